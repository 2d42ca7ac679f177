// CycloneDX XML (spec 1.0 to 1.6: `bom.xml`, what cyclonedx-maven-plugin, cyclonedx-gradle-plugin and
// cyclonedx-dotnet write by default) read into the JSON document the supply-chain source reads, so that an
// XML BOM and its JSON twin give the same nodes: components (nested ones too) with their purls and
// properties, the metadata component, dependencies, and vulnerabilities (1.4+) with ratings, CWEs, affects
// and VEX analysis. Parsed by fast-xml-parser; a document type declaration is refused outright (no BOM has
// one, and its entities are how an XML body expands into gigabytes).
import { XMLParser } from 'fast-xml-parser';

/** Why an XML body is not read as a CycloneDX BOM: the message names what was found. */
export class NotCycloneDxXml extends Error {}

/** Elements that may repeat, read as lists even when a document holds one. */
const LISTS = new Set([
  'component',
  'dependency',
  'hash',
  'license',
  'property',
  'tool',
  'vulnerability',
  'rating',
  'cwe',
  'advisory',
  'target',
  'reference',
  'version',
]);

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  removeNSPrefix: true,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  processEntities: false,
  isArray: (name, _path, _leaf, isAttribute) => !isAttribute && LISTS.has(name),
});

type Xml = Record<string, unknown>;

const SPEC_VERSION = /cyclonedx\.org\/schema\/bom\/(\d+\.\d+)/;

/** Whether a text looks like XML: its first non-blank character opens a tag (a byte-order mark aside). */
export function looksLikeXml(text: string): boolean {
  return /^\uFEFF?\s*</.test(text);
}

/** A CycloneDX XML document as the JSON one it is; throws NotCycloneDxXml for any other XML or a DTD. */
export function cyclonedxXmlToJson(text: string): Record<string, unknown> {
  if (/<!DOCTYPE|<!ENTITY/i.test(text))
    throw new NotCycloneDxXml('an XML document type declaration (no CycloneDX BOM has one): not read');
  let parsed: Xml;
  try {
    parsed = parser.parse(text, true) as Xml;
  } catch (error) {
    throw new NotCycloneDxXml(`not well-formed XML (${(error as Error).message.split('\n')[0]})`);
  }
  const roots = Object.keys(parsed).filter((k) => !k.startsWith('?'));
  const bom = parsed.bom as Xml | undefined;
  if (!bom || typeof bom !== 'object')
    throw new NotCycloneDxXml(
      `an XML document whose root element is <${roots[0] ?? '?'}>, not a CycloneDX <bom>`,
    );
  // The parser drops namespace declarations with the prefixes: read from the root tag as written.
  const namespace = /<(?:\w+:)?bom\b[^>]*?\sxmlns(?::\w+)?\s*=\s*["']([^"']*)["']/.exec(text)?.[1] ?? '';
  const spec = SPEC_VERSION.exec(namespace)?.[1];
  if (!spec)
    throw new NotCycloneDxXml(
      `a <bom> in the namespace ${JSON.stringify(namespace)}, not CycloneDX's (http://cyclonedx.org/schema/bom/<version>)`,
    );
  const metadata = bom.metadata as Xml | undefined;
  return compact({
    bomFormat: 'CycloneDX',
    specVersion: spec,
    serialNumber: bom['@serialNumber'],
    version: numberOf(bom['@version']),
    metadata:
      metadata &&
      compact({ timestamp: textOf(metadata.timestamp), component: component(metadata.component) }),
    components: listIn(bom.components, 'component').map(component),
    dependencies: listIn(bom.dependencies, 'dependency').map(dependency),
    vulnerabilities: listIn(bom.vulnerabilities, 'vulnerability').map(vulnerability),
  });
}

function component(value: unknown): Record<string, unknown> | undefined {
  const c = first(value);
  if (!c) return undefined;
  return compact({
    type: c['@type'],
    'bom-ref': c['@bom-ref'],
    group: textOf(c.group),
    name: textOf(c.name),
    version: textOf(c.version),
    purl: textOf(c.purl),
    cpe: textOf(c.cpe),
    description: textOf(c.description),
    hashes: listIn(c.hashes, 'hash').map((h) => compact({ alg: h['@alg'], content: textOf(h) })),
    properties: listIn(c.properties, 'property').map((p) => compact({ name: p['@name'], value: textOf(p) })),
    components: listIn(c.components, 'component').map(component),
  });
}

/** `<dependency ref="a"><dependency ref="b"/></dependency>` is `{ref: a, dependsOn: [b]}`. */
function dependency(d: Xml): Record<string, unknown> {
  return compact({ ref: d['@ref'], dependsOn: listIn(d, 'dependency').map((x) => x['@ref']) });
}

function vulnerability(v: Xml): Record<string, unknown> {
  const source = v.source as Xml | undefined;
  const analysis = v.analysis as Xml | undefined;
  return compact({
    'bom-ref': v['@bom-ref'],
    id: textOf(v.id),
    source: source && compact({ name: textOf(source.name), url: textOf(source.url) }),
    references: listIn(v.references, 'reference').map((r) => compact({ id: textOf(r.id) })),
    ratings: listIn(v.ratings, 'rating').map((r) => {
      const rated = r.source as Xml | undefined;
      return compact({
        source: rated && compact({ name: textOf(rated.name) }),
        score: numberOf(textOf(r.score)),
        severity: textOf(r.severity),
        method: textOf(r.method),
        vector: textOf(r.vector),
      });
    }),
    cwes: listIn(v.cwes, 'cwe')
      .map((c) => numberOf(textOf(c)))
      .filter((n) => n !== undefined),
    description: textOf(v.description),
    published: textOf(v.published),
    advisories: listIn(v.advisories, 'advisory').map((a) => compact({ url: textOf(a.url) })),
    affects: listIn(v.affects, 'target').map((t) => compact({ ref: textOf(t.ref) })),
    analysis:
      analysis && compact({ state: textOf(analysis.state), justification: textOf(analysis.justification) }),
  });
}

/** The elements `name` of a container element (`<components><component/>...`), as objects. */
function listIn(container: unknown, name: string): Xml[] {
  if (!container || typeof container !== 'object') return [];
  const items = (container as Xml)[name];
  return (Array.isArray(items) ? items : items === undefined ? [] : [items]).map((i) =>
    i && typeof i === 'object' ? (i as Xml) : { '#text': i },
  );
}

function first(value: unknown): Xml | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  return v && typeof v === 'object' ? (v as Xml) : undefined;
}

/** An element's text: its own (`<name>x</name>`), or `#text` beside its attributes. */
function textOf(value: unknown): string | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (typeof v === 'string') return v || undefined;
  if (typeof v === 'number') return String(v);
  if (v && typeof v === 'object' && '#text' in v) return textOf((v as Xml)['#text']);
  return undefined;
}

function numberOf(value: unknown): number | undefined {
  const n = typeof value === 'string' && value.trim() ? Number(value) : NaN;
  return Number.isFinite(n) ? n : undefined;
}

/** The object without its undefined values and empty lists, as a JSON BOM leaves them out. */
function compact(o: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o))
    if (v !== undefined && !(Array.isArray(v) && v.length === 0)) out[k] = v;
  return out;
}
