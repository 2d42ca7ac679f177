import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration } from '../../src/config/duration.js';
import { SETTINGS_DOC, SettingsError, loadSettings } from '../../src/config/settings.js';

describe('parseDuration', () => {
  it.each([
    ['30s', 30_000],
    ['5m', 300_000],
    ['168h', 604_800_000],
    ['1h30m', 5_400_000],
    ['250ms', 250],
    ['1.5h', 5_400_000],
  ])('%s is %i ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['30', '', '-5s', '5d', 'soon', '1h 30m'])('refuses %j', (text) => {
    expect(() => parseDuration(text)).toThrow(/not a duration/);
  });

  it.each([5_400_000, 30_000, 250, 604_800_000])('formats %i ms back to what parses to it', (ms) => {
    expect(parseDuration(formatDuration(ms))).toBe(ms);
  });
});

describe('loadSettings', () => {
  it('has the documented defaults', () => {
    const s = loadSettings({});
    expect(s).toMatchObject({
      dataDir: './data',
      ingestAddr: { host: '127.0.0.1', port: 8081 },
      apiAddr: { host: '127.0.0.1', port: 8080 },
      analyzerIntervalMs: 30_000,
      seedIamUsers: false,
      scrubIngest: true,
      graphTtlMs: null,
      parkedEdgeTtlMs: 168 * 3_600_000,
      priorityP1Score: 0.5,
      priorityP2Score: 0.1,
      logFormat: 'text',
      logLevel: 'info',
      demoData: false,
    });
    expect(loadSettings({}, { demoData: true }).demoData).toBe(true);
  });

  it('reads values, with booleans spelled several ways and :port meaning every interface', () => {
    const s = loadSettings(
      {
        SEED_IAM_USERS: 'YES',
        SCRUB_INGEST: 'off',
        INGEST_ADDR: ':9081',
        GRAPH_TTL: '72h',
        ANALYZER_THREADS: '2',
        DEMO_DATA: '0',
      },
      { demoData: true },
    );
    expect(s).toMatchObject({
      seedIamUsers: true,
      scrubIngest: false,
      ingestAddr: { host: '0.0.0.0', port: 9081 },
      graphTtlMs: 72 * 3_600_000,
      analyzerThreads: 2,
      demoData: false,
    });
  });

  it('reports every bad setting at once, naming the variable and the value', () => {
    let caught: unknown;
    try {
      loadSettings({
        ANALYZER_INTERVAL: '30',
        LOG_FORMAT: 'xml',
        PRIORITY_P1_SCORE: '2',
        API_ADDR: 'localhost',
      });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(SettingsError);
    const problems = (caught as SettingsError).problems;
    expect(problems).toHaveLength(4);
    expect(problems[0]).toBe('API_ADDR="localhost" is not host:port (e.g. 127.0.0.1:8080 or :8080)');
    expect(problems.join('\n')).toContain('ANALYZER_INTERVAL="30" is not a duration');
    expect(problems.join('\n')).toContain('LOG_FORMAT="xml" is not one of text, json');
    expect(problems.join('\n')).toContain('PRIORITY_P1_SCORE="2" is not a number between 0 and 1');
  });

  it('refuses P2 above P1', () => {
    expect(() => loadSettings({ PRIORITY_P1_SCORE: '0.2', PRIORITY_P2_SCORE: '0.3' })).toThrow(
      /above PRIORITY_P1_SCORE/,
    );
  });

  it('is documented: docs/configuration.md lists every setting', () => {
    const doc = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');
    for (const { name } of SETTINGS_DOC) expect(doc).toContain(`\`${name}\``);
  });
});
