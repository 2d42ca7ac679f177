// Threat intel through the service (issue 15): a real Trivy report whose CVE is in the real KEV slice
// gives a hop priced `kev` and posture.kevOnPaths once THREATINTEL=on, without restarting the ingest,
// whether the catalog comes by hand (`pathgate intel`, POST /intel), from a file at start, or from a
// configured URL (a loopback stand-in); with THREATINTEL off nothing changes and no network is used.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { intelCommand } from '../../app/intel-cli.js';
import { signV2 } from '../../src/auth/ingest-signature.js';
import { parseImageRef } from '../../src/identity/image-ref.js';
import { edge, envelope, node } from '../helpers/envelope.js';
import { readReal, REAL } from '../helpers/normalize.js';
import { makeService, type TestService } from '../helpers/service.js';

const KEV_FILE = path.join(REAL, 'intel/cisa-kev-slice.json');
const EPSS_FILE = path.join(REAL, 'intel/epss-scores-slice.csv');
const trivy = readReal('trivy/spring4shell-jre8-archive.json');

/** An internet-facing workload running the scanned image, next to a crown-jewel database. */
function estate() {
  const lb = node('LoadBalancer', 'edge', { internet_exposed: true });
  const web = node('Service', 'web');
  const db = node('Database', 'orders', { crown_jewel: true });
  const ref = 'ghcr.io/aquasecurity/trivy-test-images:spring4shell-jre8';
  const image = node('Image', parseImageRef(ref)!.canonical, { resolve_ref: ref });
  return envelope(
    [lb, web, db, image],
    [edge('ROUTES_TO', lb, web), edge('DEPENDS_ON', web, image), edge('CONNECTS_TO', web, db, 0.5)],
  );
}

const QUERY = '{ attackPaths { steps { type weightBasis probability } } posture { kevOnPaths } }';

async function ingestAll(service: TestService) {
  expect((await service.ingest(trivy, { source: 'trivy' })).status).toBe(202);
  expect((await service.ingest(estate())).status).toBe(202);
  await service.settle();
}

async function firstHop(service: TestService) {
  await service.settle();
  const data = await service.graphql(QUERY);
  expect(data.attackPaths).toHaveLength(1);
  return { hop: data.attackPaths[0].steps[0], kevOnPaths: data.posture.kevOnPaths };
}

const enrichedMetric = async (service: TestService) =>
  (await service.metrics.registry.getSingleMetric('service_threatintel_cves_enriched')!.get()).values.reduce(
    (sum, v) => sum + v.value,
    0,
  );

let service: TestService | undefined;
let server: Server | undefined;
afterEach(async () => {
  await service?.dispose();
  service = undefined;
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = undefined;
});

describe('threat intel', () => {
  it('by hand (pathgate intel against the running listener): the CVE already in the graph becomes kev', async () => {
    service = await makeService({ THREATINTEL: 'on' });
    await ingestAll(service);
    const before = await firstHop(service);
    expect(before.hop.weightBasis).not.toBe('kev');
    expect(before.kevOnPaths).toBe(0);

    await service.ingestApp.listen({ host: '127.0.0.1', port: 0 });
    const { port } = service.ingestApp.server.address() as AddressInfo;
    const out: string[] = [];
    const code = await intelCommand({
      file: KEV_FILE,
      url: `http://127.0.0.1:${port}`,
      out: (l) => out.push(l),
      err: (l) => out.push(l),
    });
    expect(code).toBe(0);
    expect(out[0]).toMatch(/kev catalog 2025\.08\.25, 197 CVEs, 1 CVE nodes enriched/);

    const after = await firstHop(service);
    expect(after.hop).toMatchObject({ type: 'ROUTES_TO', weightBasis: 'kev' });
    expect(after.hop.probability).toBeCloseTo(0.9 * 0.85, 9); // KEV price at the tag join's confidence
    expect(after.kevOnPaths).toBeGreaterThanOrEqual(1);
    expect(await enrichedMetric(service)).toBe(1);
    // EPSS by hand too: the CVE keeps its KEV price (observed first), the file is kept for the next start.
    expect(
      (
        await service.ingestApp.inject({
          method: 'POST',
          url: '/intel',
          headers: { 'content-type': 'text/csv' },
          payload: readFileSync(EPSS_FILE, 'utf8'),
        })
      ).json(),
    ).toMatchObject({ kind: 'epss', entries: 178 });
    expect(readFileSync(path.join(service.dataDir, 'intel/kev.json'), 'utf8')).toContain('CVE-2022-22965');
  });

  it('from a file at start: every later CVE arrives enriched', async () => {
    service = await makeService({
      THREATINTEL: 'on',
      THREATINTEL_KEV_FILE: KEV_FILE,
      THREATINTEL_EPSS_FILE: EPSS_FILE,
    });
    await ingestAll(service);
    const { hop, kevOnPaths } = await firstHop(service);
    expect(hop.weightBasis).toBe('kev');
    expect(kevOnPaths).toBe(1);
  });

  it('from configured URLs (a loopback stand-in for CISA and FIRST)', async () => {
    const asked: string[] = [];
    server = createServer((request, response) => {
      asked.push(request.url!);
      const file =
        request.url === '/kev.json' ? KEV_FILE : request.url === '/epss.csv' ? EPSS_FILE : undefined;
      if (!file) return response.writeHead(404).end();
      response.writeHead(200).end(readFileSync(file));
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    service = await makeService({
      THREATINTEL: 'on',
      THREATINTEL_KEV_URL: `${base}/kev.json`,
      THREATINTEL_EPSS_URL: `${base}/epss.csv`,
    });
    expect(asked.sort()).toEqual(['/epss.csv', '/kev.json']);
    await ingestAll(service);
    expect((await firstHop(service)).hop.weightBasis).toBe('kev');
  });

  it('twin: THREATINTEL off, a catalog by hand is refused (409) and nothing is priced kev', async () => {
    service = await makeService();
    await ingestAll(service);
    const refused = await service.ingestApp.inject({
      method: 'POST',
      url: '/intel',
      headers: { 'content-type': 'application/json' },
      payload: readFileSync(KEV_FILE, 'utf8'),
    });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().detail).toMatch(/THREATINTEL=on/);
    const { hop, kevOnPaths } = await firstHop(service);
    expect(hop.weightBasis).not.toBe('kev');
    expect(kevOnPaths).toBe(0);
  });

  it("refuses a catalog signed with another tenant's secret: intel reprices every tenant (403)", async () => {
    service = await makeService({
      THREATINTEL: 'on',
      INGEST_HMAC_SECRET: 'operator-secret-0123456789',
      INGEST_HMAC_SECRETS: 'acme:acme-secret-0123456789',
    });
    // The estate straight through the engine (signed ingest is tested elsewhere).
    await service.engine.ingest({ tenant: 'default', source: 'trivy', body: trivy, query: {} });
    await service.engine.ingest({ tenant: 'default', source: 'events', body: estate(), query: {} });
    const body = readFileSync(KEV_FILE, 'utf8');
    const post = (tenant: string | undefined, secret: string) => {
      const timestamp = String(Math.floor(Date.now() / 1000));
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        'x-service-timestamp': timestamp,
        'x-service-signature-v2': signV2(secret, {
          timestamp,
          method: 'POST',
          path: '/intel',
          rawQuery: '',
          body: Buffer.from(body),
        }),
      };
      if (tenant) headers['x-tenant'] = tenant;
      return service!.ingestApp.inject({ method: 'POST', url: '/intel', headers, payload: body });
    };
    const refused = await post('acme', 'acme-secret-0123456789');
    expect(refused.statusCode).toBe(403);
    expect(refused.headers['content-type']).toMatch(/problem\+json/);
    expect(refused.json().detail).toContain('"acme"');
    expect((await firstHop(service)).hop.weightBasis).not.toBe('kev');
    // Twin: the operator's own secret loads it.
    expect((await post(undefined, 'operator-secret-0123456789')).statusCode).toBe(200);
    expect((await firstHop(service)).hop.weightBasis).toBe('kev');
  });

  it('refuses a document that is no catalog, naming what was expected', async () => {
    service = await makeService({ THREATINTEL: 'on' });
    const bad = await service.ingestApp.inject({
      method: 'POST',
      url: '/intel',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify(trivy),
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0]).toMatchObject({ pointer: '/vulnerabilities' });
  });
});
