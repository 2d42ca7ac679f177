// The per-commit verdict store on its own: reports kept by source and artifact, the worst verdict wins, a
// newer report of the same source and artifact replaces the older, commit attribution stands only without
// reports, everything read back after a restart (a torn last line lost alone), and memory bounded.
import { appendFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { GateResult } from '../../src/gate/evaluate.js';
import { VerdictStore } from '../../src/gate/verdicts.js';
import { tempDir } from '../helpers/service.js';

const SHA = 'a'.repeat(40);
let dir: string;
beforeAll(async () => {
  dir = await tempDir('pathgate-verdicts-');
});

function result(
  verdict: GateResult['verdict'],
  source: string,
  artifact: string,
  extra: Partial<GateResult> = {},
): GateResult {
  return {
    verdict,
    reason: `${source} says ${verdict}`,
    analysed: verdict !== 'unknown',
    attribution: 'report',
    source,
    artifact,
    opened: [],
    worsened: [],
    preexisting: 1,
    preexistingCount: 1,
    improved: [],
    paths: [],
    commit: SHA,
    ...extra,
  };
}

describe('VerdictStore', () => {
  it('keeps each report by source and artifact; the worst wins; the same source and artifact replaces', () => {
    const store = new VerdictStore(path.join(dir, 'a'));
    store.record('t', result('blocked', 'trivy', 'image:acme/shop:1'), { slug: 'acme/shop', pr: 7 }, 1000);
    expect(store.record('t', result('clean', 'semgrep', 'repo:acme/shop'), {}, 2000)?.verdict).toBe(
      'blocked',
    );
    expect(store.get('t', SHA.slice(0, 8))).toMatchObject({ verdict: 'blocked', slug: null });
    expect(store.get('t', SHA)!.reason).toMatch(
      /^blocked over 2 reports \(worst: trivy image:acme\/shop:1\)/,
    );
    // The same image scanned again, fixed: now every report is clean.
    expect(store.record('t', result('clean', 'trivy', 'image:acme/shop:1'), {}, 3000)?.verdict).toBe('clean');
    // A later unknown does not leave the commit clean.
    expect(store.record('t', result('unknown', 'trivy', ''), {}, 4000)?.verdict).toBe('unknown');
    // Attribution by commit is not counted while reports exist.
    store.record('t', { ...result('blocked', 'x', ''), attribution: 'commit', source: null }, {}, 5000);
    expect(store.get('t', SHA)?.verdict).toBe('unknown');
    // Another tenant knows nothing of it.
    expect(store.get('u', SHA)).toBeUndefined();
  });

  it('reads every report back after a restart, a torn last line losing only itself', () => {
    const where = path.join(dir, 'b');
    const store = new VerdictStore(where);
    store.record('t', result('blocked', 'trivy', 'image:acme/shop:1'), {}, 1000);
    store.record('t', result('clean', 'semgrep', 'repo:acme/shop'), {}, 2000);
    appendFileSync(path.join(where, 'gate', 'verdicts.ndjson'), '{"tenant":"t","sha":"');
    const again = new VerdictStore(where);
    expect(again.get('t', SHA)).toMatchObject({ verdict: 'blocked' });
    expect(again.view('t', SHA)!.reports).toHaveLength(2);
  });

  it('forgets the commits gated longest ago beyond its bound', () => {
    const store = new VerdictStore(path.join(dir, 'c'), 3);
    for (let i = 0; i < 5; i++)
      store.record('t', { ...result('clean', 'trivy', 'image:x'), commit: `${i}`.repeat(40) }, {}, i);
    expect(store.size).toBe(3);
    expect(store.get('t', '0'.repeat(40))).toBeUndefined();
    expect(store.get('t', '4'.repeat(40))).toMatchObject({ verdict: 'clean' });
  });
});
