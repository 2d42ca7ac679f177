// The k8s ingest path (normalize, scrub, chunk) yields byte for byte what it yielded before issue 14's
// optimizations: same nodes, edges, order, properties, warnings and mentioned ids, same redactions, same
// bus chunks. The golden digests (fixtures/k8s-golden.json) were written by scripts/k8s-golden.ts from the
// code as it was before; the cases are in test/helpers/k8s-golden.ts.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { digestCase, goldenCases, type GoldenDigest } from '../helpers/k8s-golden.js';

const golden = JSON.parse(
  readFileSync(new URL('../../fixtures/k8s-golden.json', import.meta.url), 'utf8'),
) as Record<string, GoldenDigest>;
const cases = goldenCases();

describe('k8s ingest output is unchanged', () => {
  it('has a golden digest for every case, and no stale one', () => {
    expect(Object.keys(golden).sort()).toEqual(cases.map((c) => c.name).sort());
  });

  it.each(cases.map((c) => [c.name, c] as const))('%s', (name, c) => {
    expect(digestCase(c)).toEqual(golden[name]);
  });
});
