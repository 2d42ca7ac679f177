// SPDX 2.x JSON SBOMs (src/ingest/sources/spdx.ts) read by the supply-chain source as the spec's component
// list: Trivy's SPDX and CycloneDX of the same Bitnami Elasticsearch give the same Library nodes; a container
// root names the image, GitHub's dependency-graph root the repository; twins: what the document describes is
// no dependency, and a root of another purpose names no image.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSupplyChainSource } from '../../../src/ingest/sources/supplychain.js';
import { normalize, REAL } from '../../helpers/normalize.js';

const supplychain = createSupplyChainSource();
const json = (file: string) => JSON.parse(readFileSync(file, 'utf8'));
const unseen = (file: string) =>
  json(new URL(`../../../fixtures/unseen/sbom/${file}`, import.meta.url).pathname);
const REPO = { repo: 'github.com/bitnami/containers' };

const doc = (root: Record<string, unknown>, packages: Record<string, unknown>[]) => ({
  spdxVersion: 'SPDX-2.3',
  SPDXID: 'SPDXRef-DOCUMENT',
  documentDescribes: [root.SPDXID],
  packages: [root, ...packages],
});
const pkg = (name: string, version: string, purl: string) => ({
  SPDXID: `SPDXRef-Package-${name}`,
  name,
  versionInfo: version,
  externalRefs: [{ referenceCategory: 'PACKAGE-MANAGER', referenceType: 'purl', referenceLocator: purl }],
});

describe('SPDX SBOMs', () => {
  it("Trivy's SPDX of Bitnami Elasticsearch: its four libraries, named as Trivy's CycloneDX of it names them", () => {
    const fromSpdx = normalize(supplychain, unseen('trivy-bitnami-elasticsearch.spdx.json'), REPO);
    expect(fromSpdx.names('Library').sort()).toEqual([
      'pkg:maven/co.elastic.apm/apm-agent-cached-lookup-key@1.36.0',
      'pkg:maven/co.elastic.apm/apm-agent-common@1.36.0',
      'pkg:maven/co.elastic.apm/apm-agent-core@1.36.0',
      'pkg:maven/co.elastic.apm/apm-agent@1.36.0',
    ]);
    // Trivy's CycloneDX of another build of the image lists two of them: the same nodes.
    const fromCdx = normalize(
      supplychain,
      json(path.join(REAL, 'sbom/trivy-bitnami-elasticsearch.cdx.json')),
    );
    expect(fromCdx.names('Library')).toHaveLength(2);
    for (const name of fromCdx.names('Library')) expect(fromSpdx.names('Library')).toContain(name);
    // Twin: the package the document describes (Elasticsearch itself) is no dependency of it.
    expect(fromSpdx.names('Library')).not.toContain('pkg:bitnami/elasticsearch@8.9.1');
  });

  it('a container root names the image its packages are in', () => {
    const out = normalize(
      supplychain,
      doc(
        {
          SPDXID: 'SPDXRef-DocumentRoot-Image-alpine',
          name: 'alpine:3.16',
          primaryPackagePurpose: 'CONTAINER',
        },
        [pkg('musl', '1.2.3-r0', 'pkg:apk/alpine/musl@1.2.3-r0?arch=x86_64&distro=3.16.0')],
      ),
    );
    expect(out.edges).toEqual(['DEPENDS_ON alpine:3.16 -> pkg:apk/alpine/musl@1.2.3-r0']);
  });

  it("GitHub's dependency-graph export names the repository it describes", () => {
    const out = normalize(
      supplychain,
      doc(
        {
          SPDXID: 'SPDXRef-github-acme-shop-main',
          name: 'com.github.acme/shop',
          versionInfo: 'main',
          externalRefs: [
            {
              referenceCategory: 'PACKAGE-MANAGER',
              referenceType: 'purl',
              referenceLocator: 'pkg:github/acme/shop@main',
            },
          ],
        },
        [pkg('express', '4.18.2', 'pkg:npm/express@4.18.2')],
      ),
    );
    expect(out.edges).toEqual(['DEPENDS_ON github.com/acme/shop -> pkg:npm/express@4.18.2']);
  });

  it('twin: a root of another purpose names no image, and the document asks which it describes', () => {
    const body = doc(
      { SPDXID: 'SPDXRef-app', name: 'alpine:3.16', primaryPackagePurpose: 'APPLICATION' },
      [],
    );
    expect(() => supplychain.normalize({ body, query: {}, receivedAt: '2026-11-24T00:00:00Z' })).toThrow(
      /describes no container image/,
    );
  });
});
