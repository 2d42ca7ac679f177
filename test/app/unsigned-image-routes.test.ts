// Routes mark an unsigned image, end to end from real reports through the real ingest, graph and analyzer:
// a Kubernetes dump of an internet-facing Deployment (ingress-nginx's docker-registry example), the real
// Trivy scan of the image it runs (joined by identity, never drawn here), and provenance about that image
// posted to the supply-chain source: a real Sigstore bundle (verified offline against the public-good root),
// the same bundle with one payload byte changed, a DSSE envelope signed with a key the settings give or not.
// `no-internet-to-unsigned-image` fires for an image not verifiably signed (signature_unverified included)
// and the path lists it in `unsignedImages`; a verified signature, and an image never assessed, raise nothing.
import { afterEach, describe, expect, it } from 'vitest';
import { nodeId } from '../../src/graph/ids.js';
import { makeSigner, tamperPayload } from '../helpers/dsse-signer.js';
import { readReal } from '../helpers/normalize.js';
import { registryDump, SCANNED } from '../helpers/registry-dump.js';
import { makeService, type TestService } from '../helpers/service.js';
import { ingestOk } from '../helpers/service-calls.js';

let service: TestService | undefined;
afterEach(async () => {
  await service?.dispose();
  service = undefined;
});

const SCAN = 'trivy/debian-buster-archive.json';
const BUNDLE = 'sbom/provenance/slsa-github-generator-delegator-v2.1.0.sigstore-bundle.json';
const STATEMENT = 'sbom/provenance/slsa-github-generator-container-v2.1.0.statement.decoded.json';
const IMAGE = 'aquasecurity/trivy-test-images:debian-buster';
const WORKLOAD = 'prod/docker-registry/docker-registry';
const imageQuery = `image=${encodeURIComponent(SCANNED)}`;

/** The real bundle with one byte of its signed payload changed. */
function tamperedBundle(): Record<string, any> {
  const bundle = readReal(BUNDLE) as Record<string, any>;
  bundle.dsseEnvelope.payload = tamperPayload(bundle.dsseEnvelope.payload as string);
  return bundle;
}

/** The estate: the dump and the scan, as the cluster and the scanner report them. */
async function estate(env: Record<string, string> = {}): Promise<TestService> {
  const s = await makeService(env);
  await ingestOk(s, registryDump(), 'k8s', 'cluster=prod');
  await ingestOk(s, readReal(SCAN), 'trivy');
  return s;
}

async function state(s: TestService) {
  await s.settle();
  const { attackPaths, violations } = await s.graphql(
    '{ attackPaths { nodes { name } unsignedImages { id name signature problem runsIn } } violations { invariant node { name } detail } }',
  );
  return {
    paths: attackPaths as { nodes: { name: string }[]; unsignedImages: Record<string, unknown>[] }[],
    violations: violations as { invariant: string; node: { name: string }; detail: string }[],
  };
}

describe('routes mark an unsigned image (spec: the kill chain marks the image as unsigned)', () => {
  it('a real Sigstore bundle that verifies: signed, no violation, the route marks nothing; never assessed: nothing either', async () => {
    service = await estate();
    // Twin first: no supply-chain report, the image is not assessed: no mark, no violation.
    const unassessed = await state(service);
    expect(unassessed.paths).toHaveLength(1);
    expect(unassessed.paths[0].nodes.map((n) => n.name)).toContain(WORKLOAD);
    expect(unassessed.paths[0].unsignedImages).toEqual([]);
    expect(unassessed.violations).toEqual([]);

    await ingestOk(service, readReal(BUNDLE), 'supplychain', imageQuery);
    const signed = await state(service);
    const image = service.engine.tenant('default')!.graph.getNodeAttributes(nodeId('Image', IMAGE));
    expect(image.props).toMatchObject({ signed: true, signature: 'signed' });
    expect(signed.paths[0].unsignedImages).toEqual([]);
    expect(signed.violations).toEqual([]);
  });

  it('the same bundle tampered: signature_unverified, the invariant fires and the route lists the image', async () => {
    service = await estate();
    await ingestOk(service, tamperedBundle(), 'supplychain', imageQuery);
    const { paths, violations } = await state(service);
    expect(violations).toEqual([
      {
        invariant: 'no-internet-to-unsigned-image',
        node: { name: IMAGE },
        detail: expect.stringMatching(
          /carries a signature that does not verify \(signature_unverified: the Sigstore bundle does not verify .*\) and runs in prod\/docker-registry\/docker-registry/,
        ),
      },
    ]);
    expect(paths).toHaveLength(1);
    expect(paths[0].unsignedImages).toEqual([
      {
        id: nodeId('Image', IMAGE),
        name: IMAGE,
        signature: 'signature_unverified',
        problem: expect.stringContaining('does not verify against the public-good'),
        runsIn: nodeId('Service', WORKLOAD),
      },
    ]);
  });

  it("the spec's report signed: false: unsigned, marked with no problem; signed: true after it clears the mark", async () => {
    service = await estate();
    await ingestOk(service, { image: SCANNED, signed: false }, 'supplychain');
    const unsigned = await state(service);
    expect(unsigned.violations.map((v) => v.detail)).toEqual([
      `Image ${IMAGE} is unsigned and runs in ${WORKLOAD}, which the internet reaches`,
    ]);
    expect(unsigned.paths[0].unsignedImages).toEqual([
      expect.objectContaining({ name: IMAGE, signature: 'unsigned', problem: null }),
    ]);
    await ingestOk(service, { image: SCANNED, signed: true }, 'supplychain');
    const cleared = await state(service);
    expect(cleared.violations).toEqual([]);
    expect(cleared.paths[0].unsignedImages).toEqual([]);
  });

  it('a DSSE envelope signed by the key ATTESTATION_PUBLIC_KEYS gives: signed; by another key: signature_unverified, marked', async () => {
    const signer = makeSigner();
    const envelope = signer.envelope(readReal(STATEMENT));
    service = await estate({ ATTESTATION_PUBLIC_KEYS: signer.publicKeyPem });
    await ingestOk(service, envelope, 'supplychain', imageQuery);
    const verified = await state(service);
    expect(verified.violations).toEqual([]);
    expect(verified.paths[0].unsignedImages).toEqual([]);
    await service.dispose();

    service = await estate({ ATTESTATION_PUBLIC_KEYS: makeSigner().publicKeyPem });
    await ingestOk(service, envelope, 'supplychain', imageQuery);
    const wrongKey = await state(service);
    expect(wrongKey.violations.map((v) => v.invariant)).toEqual(['no-internet-to-unsigned-image']);
    expect(wrongKey.paths[0].unsignedImages).toEqual([
      expect.objectContaining({
        name: IMAGE,
        signature: 'signature_unverified',
        problem: expect.stringContaining('no signature of the DSSE envelope verifies'),
      }),
    ]);
  });
});
