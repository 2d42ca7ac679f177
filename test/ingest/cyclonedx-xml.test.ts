// CycloneDX XML (src/ingest/cyclonedx-xml.ts): a `bom.xml` gives exactly what its JSON twin gives through the
// supply-chain source (CycloneDX's own example BOMs and the specification's test BOM, fixtures/unseen/sbom,
// SOURCES.md); any other XML, a document type declaration (entity expansion) and broken XML are refused by
// name.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cyclonedxXmlToJson } from '../../src/ingest/cyclonedx-xml.js';
import { readReport } from '../../src/ingest/recognize.js';
import { createSupplyChainSource } from '../../src/ingest/sources/supplychain.js';

const sbom = (file: string) =>
  readFileSync(new URL(`../../fixtures/unseen/sbom/${file}`, import.meta.url), 'utf8');
const normalize = (body: unknown) =>
  createSupplyChainSource().normalize({
    body,
    query: { repo: 'github.com/acme/app' },
    receivedAt: '2026-11-24T00:00:00.000Z',
  });

describe('CycloneDX XML', () => {
  it.each([
    ['bom-examples-laravel-7.12.0.cdx', 62],
    ['bom-examples-proton-bridge-v1.8.0.cdx', 201],
    ['cyclonedx-spec-valid-vulnerability-1.6.cdx', 1],
  ])('%s.xml gives what its JSON twin gives, node for node', (name, edges) => {
    const xml = readReport(sbom(`${name}.xml`));
    expect(xml.format).toBe('xml');
    const fromXml = normalize(xml.body);
    expect(fromXml).toEqual(normalize(JSON.parse(sbom(`${name}.json`))));
    expect(fromXml.envelopes.flatMap((e) => e.edges)).toHaveLength(edges);
  });

  it("reads the specification's vulnerability as its JSON twin writes it: ratings, CWEs, affects, VEX", () => {
    const bom = cyclonedxXmlToJson(sbom('cyclonedx-spec-valid-vulnerability-1.6.cdx.xml'));
    const twin = JSON.parse(sbom('cyclonedx-spec-valid-vulnerability-1.6.cdx.json'));
    const [vulnerability] = bom.vulnerabilities as Record<string, unknown>[];
    expect(vulnerability).toMatchObject({
      id: twin.vulnerabilities[0].id,
      ratings: twin.vulnerabilities[0].ratings.map((r: Record<string, unknown>) =>
        expect.objectContaining({ score: r.score, severity: r.severity, method: r.method }),
      ),
      cwes: twin.vulnerabilities[0].cwes,
      affects: [{ ref: twin.vulnerabilities[0].affects[0].ref }],
      analysis: expect.objectContaining({ state: twin.vulnerabilities[0].analysis.state }),
    });
    expect(bom.specVersion).toBe('1.6');
  });

  it('twin: XML that is no CycloneDX BOM is refused, naming what it is', () => {
    expect(() =>
      readReport('<?xml version="1.0"?><project><modelVersion>4.0.0</modelVersion></project>'),
    ).toThrow('an XML document whose root element is <project>, not a CycloneDX <bom>');
    expect(() => readReport('<bom xmlns="http://example.com/other"><components/></bom>')).toThrow(
      /a <bom> in the namespace "http:\/\/example.com\/other", not CycloneDX's/,
    );
    expect(() => readReport('<bom xmlns="http://cyclonedx.org/schema/bom/1.4"><components>')).toThrow(
      /not well-formed XML/,
    );
  });

  it('refuses a document type declaration before parsing: entities never expand', () => {
    const laughs =
      '<?xml version="1.0"?><!DOCTYPE bom [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">' +
      '<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]>' +
      '<bom xmlns="http://cyclonedx.org/schema/bom/1.4"><components><component type="library"><name>&c;</name>' +
      '</component></components></bom>';
    expect(() => cyclonedxXmlToJson(laughs)).toThrow(/document type declaration/);
  });
});
