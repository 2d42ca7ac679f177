// One trend store (spec "History", issue 35): the posture history (HISTORY_PATH, or PostgreSQL with the
// database governance backend) is what GraphQL `history.trend` serves, and the analyzer keeps no second
// trend beside its path records; the trend a 0.1 store kept there is adopted once on upgrade.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { readSnapshot, writeSnapshot } from '../../src/bus/snapshot-file.js';
import { edge, envelope, node } from '../helpers/envelope.js';
import { makeService, tempDir, type TestService } from '../helpers/service.js';

const services: TestService[] = [];
afterEach(async () => {
  await Promise.all(services.splice(0).map((s) => s.dispose()));
});

const lb = node('LoadBalancer', 'edge-lb', { internet_exposed: true });
const db = node('Database', 'ledger', { crown_jewel: true });
const QUERY = '{ history { trend { at criticalPaths riskPct } } }';

it('serves history.trend from HISTORY_PATH, the file the posture history writes', async () => {
  let now = Date.parse('2026-03-01T00:00:00Z');
  const dir = await tempDir();
  const file = path.join(dir, 'posture.json');
  const service = await makeService({ HISTORY_PATH: file }, { now: () => now });
  services.push(service);
  await service.ingest(envelope([lb, db], [edge('ROUTES_TO', lb, db, 0.9)]));
  await service.settle();
  now += 60_000;
  await service.ingest(envelope([lb, db], [edge('ROUTES_TO', lb, db, 0.2)]));
  await service.settle();
  const { history } = await service.graphql(QUERY);
  expect(history.trend).toEqual([
    { at: '2026-03-01T00:00:00.000Z', criticalPaths: 1, riskPct: 90 },
    { at: '2026-03-01T00:01:00.000Z', criticalPaths: 0, riskPct: 20 },
  ]);
  // The same points are the file's: one store.
  const stored = JSON.parse(readFileSync(file, 'utf8')) as { at: string; riskPct: number }[];
  expect(stored.map((p) => [p.at, Math.round(p.riskPct)])).toEqual([
    ['2026-03-01T00:00:00.000Z', 90],
    ['2026-03-01T00:01:00.000Z', 20],
  ]);
  // A pass that changes nothing records nothing.
  now += 60_000;
  await service.engine.analyzeAll();
  expect((await service.graphql(QUERY)).history.trend).toHaveLength(2);
});

it('adopts the trend a 0.1 store kept beside its path records, once, and writes none there again', async () => {
  const now = Date.parse('2026-03-01T00:00:00Z');
  const first = await makeService({}, { now: () => now });
  await first.ingest(envelope([lb, db], [edge('ROUTES_TO', lb, db, 0.9)]));
  await first.settle();
  const dataDir = first.dataDir;
  await first.dispose({ keepData: true });
  // Make the snapshot a 0.1 one: its trend points beside the path records, and no posture history yet.
  const stateDir = path.join(dataDir, 'state');
  const snapshot = (await readSnapshot(stateDir))!;
  const lines: string[] = [];
  for await (const line of snapshot.lines) lines.push(line);
  expect(lines.some((l) => l.includes('trendPoint'))).toBe(false);
  const legacy = [
    { at: Date.parse('2025-12-01T00:00:00Z'), criticalPaths: 2, riskPct: 95 },
    { at: Date.parse('2025-12-02T00:00:00Z'), criticalPaths: 1, riskPct: 90 },
  ];
  for (const point of legacy)
    lines.push(JSON.stringify({ k: 'path', t: 'default', r: { trendPoint: point } }));
  await writeSnapshot(stateDir, snapshot.meta, lines);
  const { rm } = await import('node:fs/promises');
  await rm(path.join(dataDir, 'governance'), { recursive: true, force: true });

  const upgraded = await makeService({}, { dataDir, now: () => now + 3_600_000 });
  services.push(upgraded);
  const trend = (await upgraded.graphql(QUERY)).history.trend;
  expect(trend.slice(0, 2)).toEqual([
    { at: '2025-12-01T00:00:00.000Z', criticalPaths: 2, riskPct: 95 },
    { at: '2025-12-02T00:00:00.000Z', criticalPaths: 1, riskPct: 90 },
  ]);
});
