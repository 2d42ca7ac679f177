// What held under the outside review must keep holding (issue 13): malformed inputs store nothing and
// crash nothing. A fixed corpus made from real reports (cut at many offsets, and with seeded one-byte
// damage) goes to the JSON, NDJSON and YAML routes; every answer is a 202 or a 4xx problem+json (never a
// 5xx), a refusal adds nothing to the journal, and Object.prototype stays clean.
import { readFileSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { makeService, type TestService } from '../helpers/service.js';

const REAL = path.resolve(import.meta.dirname, '../../../shared/fixtures/real');
const reports = [
  {
    source: 'trivy',
    type: 'application/json',
    text: readFileSync(path.join(REAL, 'trivy/alpine-310-registry.json'), 'utf8'),
  },
  {
    source: 'falco',
    type: 'application/x-ndjson',
    text: readFileSync(path.join(REAL, 'falco/falco-website-syscall-alerts.ndjson'), 'utf8'),
  },
  {
    source: 'k8s',
    type: 'application/yaml',
    text: readFileSync(path.join(REAL, 'k8s/popeye/core-pod-1.yaml'), 'utf8'),
  },
];

/** Seeded, so the corpus is the same on every run (mulberry32). */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const DAMAGE = [
  '{',
  '}',
  '[',
  ']',
  ',',
  ':',
  '"',
  '\\',
  '\u0000',
  '\u2028',
  '&',
  '*',
  '!',
  '- ',
  '\n',
  '\t',
  '#',
];

function corpus(text: string, seed: number): string[] {
  const next = random(seed);
  const out: string[] = [];
  for (let i = 1; i <= 40; i++) out.push(text.slice(0, Math.floor((text.length * i) / 41)));
  for (let i = 0; i < 40; i++) {
    const at = Math.floor(next() * text.length);
    out.push(text.slice(0, at) + DAMAGE[Math.floor(next() * DAMAGE.length)] + text.slice(at + 1));
  }
  return out;
}

let service: TestService;
beforeAll(async () => {
  service = await makeService();
});
afterAll(async () => {
  await service.dispose();
});

async function journalBytes(): Promise<number> {
  const dir = path.join(service.dataDir, 'journal');
  let total = 0;
  for (const name of await readdir(dir)) total += (await stat(path.join(dir, name))).size;
  return total;
}

it('answers 240 damaged reports with 202 or a 4xx problem, storing nothing for each refusal', async () => {
  const statuses = new Map<number, number>();
  const refused = new Map<string, number>();
  for (const [index, report] of reports.entries()) {
    for (const body of corpus(report.text, index + 1)) {
      const before = await journalBytes();
      const response = await service.ingestApp.inject({
        method: 'POST',
        url: `/ingest/${report.source}`,
        headers: { 'content-type': report.type },
        payload: body,
      });
      statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1);
      expect(response.statusCode, `${report.source}: ${response.body.slice(0, 200)}`).toBeLessThan(500);
      if (response.statusCode === 202) continue;
      refused.set(report.source, (refused.get(report.source) ?? 0) + 1);
      expect(response.statusCode).toBeGreaterThanOrEqual(400);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(response.json().detail).toEqual(expect.any(String));
      expect(await journalBytes()).toBe(before);
    }
  }
  // The corpus does exercise refusals, on every route.
  for (const { source } of reports) expect(refused.get(source), source).toBeGreaterThan(10);
  expect([...statuses.values()].reduce((a, b) => a + b, 0)).toBe(240);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
});
