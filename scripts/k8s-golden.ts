// Writes fixtures/k8s-golden.json: what the k8s ingest path yields today for each golden case
// (test/helpers/k8s-golden.ts). Run only from code whose output is known good (it was generated before the
// issue 14 optimizations); test/ingest/k8s-output-stable.test.ts holds every later change to it.
//   npx tsx scripts/k8s-golden.ts
import { writeFileSync } from 'node:fs';
import { digestCase, goldenCases, type GoldenDigest } from '../test/helpers/k8s-golden.js';

const golden: Record<string, GoldenDigest> = {};
for (const c of goldenCases()) golden[c.name] = digestCase(c);
writeFileSync(
  new URL('../fixtures/k8s-golden.json', import.meta.url),
  `${JSON.stringify(golden, null, 2)}\n`,
);
console.log(`${Object.keys(golden).length} cases written`);
