// A hop into a workload is priced from the most exploitable CVE of the image it runs, joined by identity.
import { afterEach, describe, expect, it } from 'vitest';
import { parseImageRef } from '../../src/identity/image-ref.js';
import { makeService, type TestService } from '../helpers/service.js';
import { edge, envelope, node } from '../helpers/envelope.js';

let service: TestService | undefined;
afterEach(async () => {
  await service?.dispose();
  service = undefined;
});

const lb = node('LoadBalancer', 'edge', { internet_exposed: true });
const web = node('Service', 'web');
const db = node('Database', 'orders', { crown_jewel: true });
const image = node('Image', 'acme/web:1.0', {
  image_ref: 'acme/web:1.0',
  digests: [`sha256:${'c'.repeat(64)}`],
});

function cve(name: string, props: Record<string, unknown>) {
  return node('CVE', name, props);
}

/** The workload's view of its image: a reference the writer joins to the scanned node. */
function runs(ref: string) {
  return node('Image', parseImageRef(ref)!.canonical, { resolve_ref: ref });
}

async function firstHop(s: TestService) {
  await s.settle();
  const { attackPaths } = await s.graphql(
    '{ attackPaths { score steps { from to probability weightBasis } } }',
  );
  expect(attackPaths).toHaveLength(1);
  return attackPaths[0].steps[0];
}

describe('hop into a workload', () => {
  it('takes the most exploitable CVE of its image, scaled by the tag join, with that basis', async () => {
    service = await makeService();
    const low = cve('CVE-2024-0001', { severity: 'LOW' });
    const high = cve('CVE-2022-22965', { severity: 'CRITICAL', cvss_score: 9.8 });
    await service.ingest(
      envelope([image, low, high], [edge('AFFECTS', low, image), edge('AFFECTS', high, image)]),
    );
    const ref = runs('ghcr.io/acme/web:1.0');
    await service.ingest(
      envelope(
        [lb, web, db, ref],
        [edge('ROUTES_TO', lb, web), edge('DEPENDS_ON', web, ref), edge('CONNECTS_TO', web, db, 0.5)],
      ),
    );
    const hop = await firstHop(service);
    expect(hop).toMatchObject({ from: lb.id, to: web.id, weightBasis: 'cvss' });
    expect(hop.probability).toBeCloseTo(0.98 * 0.8 * 0.85, 9);
  });

  it('prefers observed evidence on a CVE (kev) and joins by digest at full confidence', async () => {
    service = await makeService();
    const kev = cve('CVE-2021-44228', { kev: true, cvss_score: 10 });
    await service.ingest(envelope([image, kev], [edge('AFFECTS', kev, image)]));
    const ref = runs(`acme/web@sha256:${'c'.repeat(64)}`);
    await service.ingest(
      envelope(
        [lb, web, db, ref],
        [edge('ROUTES_TO', lb, web), edge('DEPENDS_ON', web, ref), edge('CONNECTS_TO', web, db, 0.5)],
      ),
    );
    const hop = await firstHop(service);
    expect(hop).toMatchObject({ weightBasis: 'kev', probability: 0.9 });
  });

  it('keeps the edge-type price for a workload whose image has no CVE, and an explicit probability wins', async () => {
    service = await makeService();
    await service.ingest(envelope([image]));
    const ref = runs('acme/web:1.0');
    await service.ingest(
      envelope(
        [lb, web, db, ref],
        [edge('ROUTES_TO', lb, web), edge('DEPENDS_ON', web, ref), edge('CONNECTS_TO', web, db, 0.5)],
      ),
    );
    expect(await firstHop(service)).toMatchObject({ probability: 0.9, weightBasis: 'heuristic' });
    await service.ingest(envelope([lb, web], [edge('ROUTES_TO', lb, web, 0.33)]));
    expect(await firstHop(service)).toMatchObject({ probability: 0.33, weightBasis: 'heuristic' });
  });
});
