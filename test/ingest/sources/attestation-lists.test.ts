// Several attestations in one file, one per line (`gh attestation download`'s .jsonl of Sigstore bundles,
// `cosign download attestation`'s DSSE envelopes): recognised as the supply-chain source's and each read as
// it would be alone (src/ingest/sources/supplychain.ts, `normalizeEach`). A real `gh` file of cli/cli's tests
// (fixtures/unseen/provenance, SOURCES.md); twins: a list holding something else, or a broken attestation,
// refused naming the item.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readReport, recognizeReport } from '../../../src/ingest/recognize.js';
import { createSupplyChainSource } from '../../../src/ingest/sources/supplychain.js';
import { normalize, rejection } from '../../helpers/normalize.js';

const supplychain = createSupplyChainSource();
const bundles = readReport(
  readFileSync(
    new URL(
      '../../../fixtures/unseen/provenance/gh-cli-sigstore-js-2.1.0_with_2_bundles.jsonl',
      import.meta.url,
    ),
    'utf8',
  ),
);

describe('attestation lists', () => {
  it("`gh attestation download`'s two bundles: the npm package signed, its SLSA provenance read", () => {
    expect(bundles.format).toBe('ndjson');
    expect(recognizeReport(bundles.body)).toBe('supplychain');
    const out = normalize(supplychain, bundles.body);
    expect(out.node('Library', 'pkg:npm/sigstore@2.1.0').properties).toMatchObject({
      // each bundle verifies offline against the public-good root
      signed: true,
      signature: 'signed',
      signature_verified: true,
      slsaLevel: 2,
      provenance_format: 'sigstore-bundle',
    });
    expect(out.envelopes).toHaveLength(2);
  });

  it('twin: a list with something that is no attestation is refused at that item', () => {
    const [bundle] = bundles.body as unknown[];
    expect(rejection(supplychain, [bundle, { image: 'nginx:1.25' }])).toEqual([
      expect.objectContaining({ pointer: '/1', detail: expect.stringContaining('not an attestation') }),
    ]);
    expect(recognizeReport([bundle, { image: 'nginx:1.25' }])).toBeUndefined();
  });

  it('twin: a broken attestation in the list is refused with its index before its own pointer', () => {
    const [bundle] = bundles.body as Record<string, any>[];
    const broken = { ...bundle, dsseEnvelope: { ...bundle.dsseEnvelope, payload: 'not base64 json' } };
    const [error] = rejection(supplychain, [bundle, broken]);
    expect(error.pointer).toMatch(/^\/1\//);
  });
});
