// CycloneDX XML through the real ingest listener and `pathgate ingestreal`: a `bom.xml` posted as XML is
// read as its JSON twin; XML that is no BOM, or carries a document type declaration, is a 400 problem that
// names what was found and stores nothing; ingestreal finds a `.xml` BOM by its content.
import { copyFile, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { ingestReal } from '../../app/ingest-real.js';
import { makeService, tempDir, type TestService } from '../helpers/service.js';

const fixture = (file: string) => new URL(`../../fixtures/unseen/sbom/${file}`, import.meta.url);
let service: TestService | undefined;
afterEach(async () => {
  await service?.dispose();
  service = undefined;
});

const post = (body: string, contentType: string) =>
  service!.ingestApp.inject({
    method: 'POST',
    url: '/ingest/supplychain?repo=github.com/acme/laravel',
    headers: { 'content-type': contentType },
    payload: body,
  });

it('a bom.xml posted as XML is read as its JSON twin; other XML is refused and stores nothing', async () => {
  service = await makeService();
  const xml = await readFile(fixture('bom-examples-laravel-7.12.0.cdx.xml'), 'utf8');
  const json = await readFile(fixture('bom-examples-laravel-7.12.0.cdx.json'), 'utf8');
  const fromXml = await post(xml, 'application/vnd.cyclonedx+xml');
  expect(fromXml.statusCode, fromXml.body).toBe(202);
  const fromJson = await post(json, 'application/json');
  expect(fromJson.statusCode, fromJson.body).toBe(202);
  const counts = (r: typeof fromXml) => ({ nodes: r.json().nodes, edges: r.json().edges });
  expect(counts(fromXml)).toEqual(counts(fromJson));
  expect(counts(fromXml)).toEqual({ nodes: 63, edges: 62 });
  await service.settle();
  const before = service.engine.tenant('default')!.graph.order;

  for (const [body, detail] of [
    ['<?xml version="1.0"?><project><artifactId>x</artifactId></project>', 'root element is <project>'],
    ['<!DOCTYPE bom [<!ENTITY a "a">]><bom xmlns="http://cyclonedx.org/schema/bom/1.4"/>', 'document type'],
  ]) {
    const refused = await post(body, 'text/xml');
    expect(refused.statusCode).toBe(400);
    expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(refused.json().detail).toContain(detail);
  }
  await service.settle();
  expect(service.engine.tenant('default')!.graph.order).toBe(before);
});

it('ingestreal posts a .xml BOM by its content, with the folder’s repository', async () => {
  const dir = await tempDir('pathgate-cdx-xml-');
  await copyFile(fixture('bom-examples-proton-bridge-v1.8.0.cdx.xml'), path.join(dir, 'bom.xml'));
  service = await makeService();
  const url = await service.ingestApp.listen({ host: '127.0.0.1', port: 0 });
  const lines: string[] = [];
  const summary = await ingestReal({
    dir,
    url,
    repo: 'github.com/ProtonMail/proton-bridge',
    out: (l) => lines.push(l),
  });
  expect(lines[0]).toMatch(/^bom\.xml: supplychain -> 202, 202 nodes, 201 edges/);
  expect(summary).toEqual({ accepted: 1, rejected: 0, skipped: 0 });
});
