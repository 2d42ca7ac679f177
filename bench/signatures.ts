// Provenance signatures (BENCH_SUITES=signatures): how long the supplychain normalizer holds the event loop
// for a report whose signature it verifies (src/ingest/signatures/): a real Sigstore bundle (Fulcio chain,
// CT, Rekor entry, DSSE signature), npm's two-bundle attestations, a DSSE envelope checked against a key
// given in settings, and the same bundle with verification's cost alone (normalizer minus reading). Median
// of BENCH_SIGNATURE_RUNS (default 50) runs, after a warm-up, in ms per report.
import { generateKeyPairSync, sign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createSupplyChainSource } from '../src/ingest/sources/supplychain.js';
import { loadSignatureTrust, parsePublicKeys } from '../src/ingest/signatures/trust.js';

export async function runSignatureBench(root: string): Promise<void> {
  const runs = Number(process.env.BENCH_SIGNATURE_RUNS ?? 50);
  const real = (file: string) =>
    JSON.parse(
      readFileSync(path.join(root, '..', 'shared', 'fixtures', 'real', 'sbom', 'provenance', file), 'utf8'),
    );
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const pem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
  const statement = Buffer.from(
    JSON.stringify(real('slsa-github-generator-container-v2.1.0.statement.decoded.json')),
  );
  const type = 'application/vnd.in-toto+json';
  const pae = Buffer.concat([Buffer.from(`DSSEv1 ${type.length} ${type} ${statement.length} `), statement]);
  const envelope = {
    payloadType: type,
    payload: statement.toString('base64'),
    signatures: [{ keyid: '', sig: sign('sha256', pae, privateKey).toString('base64') }],
  };
  const source = createSupplyChainSource({ signatures: loadSignatureTrust({ keys: parsePublicKeys(pem) }) });
  const reports: [string, unknown][] = [
    [
      'Sigstore bundle (slsa-github-generator)',
      real('slsa-github-generator-delegator-v2.1.0.sigstore-bundle.json'),
    ],
    ['npm attestations (2 bundles)', real('npm-sigstore-2.3.1-attestations.json')],
    ['DSSE envelope, key from settings', envelope],
  ];
  console.log(
    `\nprovenance signatures: the supplychain normalizer, verifying (main thread, median of ${runs}, ms/report)`,
  );
  for (const [name, body] of reports) {
    const once = () => {
      const started = process.hrtime.bigint();
      const out = source.normalize({ body, query: {}, receivedAt: new Date().toISOString() });
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const signed = out.envelopes.some((e) => e.nodes.some((n) => n.properties?.signed === true));
      if (!signed) throw new Error(`bench/signatures: ${name} did not verify`);
      return ms;
    };
    for (let i = 0; i < 3; i++) once();
    const times = Array.from({ length: runs }, once).sort((a, b) => a - b);
    console.log(
      `  ${name.padEnd(42)} median ${times[Math.floor(runs / 2)].toFixed(1).padStart(6)}  p90 ${times[Math.floor(runs * 0.9)].toFixed(1).padStart(6)}`,
    );
  }
}
