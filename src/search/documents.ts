// What a search document holds, read from the tenant graph and the path store: a node's name, label and key
// properties; a path's hops and the findings its hops stand on (the CVEs and code weaknesses of the images
// and repositories a hop leads into, the shape hop-evidence.ts shows and the pricing reads, and of the
// images' libraries), so a CVE id finds the routes it opens.
import { appsOfNode } from '../auth/scope.js';
import type { NodeAttributes, TenantGraph } from '../graph/model.js';
import { PROP, type NodeLabel } from '../graph/vocabulary.js';
import { routeNodes, type PathRecord } from '../paths/path-store.js';
import type { SearchDoc, SearchKind } from './search-index.js';

/** Labels whose nodes are findings rather than assets. */
const FINDING_LABELS: ReadonlySet<NodeLabel> = new Set(['CVE', 'Weakness', 'Misconfiguration']);
/** Properties that say nothing a person searches by (times, the engine's own flags, vectors of numbers). */
const SKIPPED_PROPS: ReadonlySet<string> = new Set([
  PROP.lastSeen,
  PROP.secretsScrubbed,
  'cvss_vector',
  'cvss',
  'resolve_ref',
]);
/** A property value longer than this is cut (a finding's message); a document's text at most TEXT_CHARS. */
const VALUE_CHARS = 160;
const TEXT_CHARS = 1_000;
/** Findings named in a path's text at most (the most a route's hops stand on in the estates seen: a few). */
const PATH_FINDINGS = 40;

export const PATH_LABEL = 'AttackPath';

export function nodeKind(label: NodeLabel): SearchKind {
  return FINDING_LABELS.has(label) ? 'finding' : 'node';
}

export function docKey(kind: SearchKind, id: string): string {
  return `${kind}:${id}`;
}

/** The node's document: its name, label, and its string properties (`key: value`, each cut short). */
export function nodeDoc(
  graph: TenantGraph,
  id: string,
  attrs: NodeAttributes = graph.getNodeAttributes(id),
): SearchDoc {
  const kind = nodeKind(attrs.label);
  const parts = Object.entries(shownProps(attrs.props)).map(([key, text]) => `${key}: ${text}`);
  return {
    key: docKey(kind, id),
    kind,
    id,
    name: attrs.name,
    label: attrs.label,
    text: cut(parts.join(' · '), TEXT_CHARS),
    apps: appsOfNode(graph, id),
  };
}

/**
 * A node's properties as the API shows them (search snippets, GET /export/graph): string and string-list
 * values only, each cut short, the engine's own flags and times left out. Nothing else of `props` leaves.
 */
export function shownProps(props: Record<string, unknown>): Record<string, string> {
  const out: [string, string][] = [];
  for (const [key, value] of Object.entries(props)) {
    if (SKIPPED_PROPS.has(key)) continue;
    const text = propText(value);
    if (text) out.push([key, text]);
  }
  // fromEntries defines own properties: a `__proto__` key stays a key.
  return Object.fromEntries(out);
}

function propText(value: unknown): string {
  if (typeof value === 'string') return cut(value, VALUE_CHARS);
  if (Array.isArray(value) && value.every((v) => typeof v === 'string'))
    return cut(value.join(', '), VALUE_CHARS);
  return '';
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** What a route node stands on, kept for the paths of one build or update that share the node. */
export type FindingsCache = Map<string, { names: readonly string[]; reads: readonly string[] }>;

/**
 * A path's document and the node ids it read (its route, the images, libraries and repositories of its
 * hops, the findings on them): when any of those changes, the document is built again. `cache` shares what
 * a route node stands on between the paths of one build (routes share most of their hops).
 */
export function pathDoc(
  graph: TenantGraph,
  record: PathRecord,
  cache: FindingsCache = new Map(),
): { doc: SearchDoc; reads: string[] } {
  const nodes = routeNodes(record);
  const reads = nodes.map((n) => n.id);
  const apps = new Set<string>();
  for (const n of nodes) for (const app of appsOfNode(graph, n.id)) apps.add(app);
  const findings = new Set<string>();
  for (const n of nodes) {
    let under = cache.get(n.id);
    if (!under) cache.set(n.id, (under = findingsUnder(graph, n.id)));
    for (const name of under.names) findings.add(name);
    for (const id of under.reads) reads.push(id);
  }
  const start = nodes[0];
  const target = nodes.at(-1)!;
  const hops = nodes.map((n) => `${n.name} (${n.label})`).join(' → ');
  const found = [...findings].slice(0, PATH_FINDINGS);
  return {
    doc: {
      key: docKey('path', record.id),
      kind: 'path',
      id: record.id,
      name: record.directAccess ? `direct access → ${target.name}` : `${start.name} → ${target.name}`,
      label: PATH_LABEL,
      text: cut(
        `${record.priority} · ${hops}${found.length ? ` · findings: ${found.join(', ')}` : ''}`,
        TEXT_CHARS * 2,
      ),
      apps: [...apps],
    },
    reads,
  };
}

/** The CVEs and weaknesses a route node stands on: its own, its images', their libraries' and repositories'. */
function findingsUnder(graph: TenantGraph, id: string): { names: string[]; reads: string[] } {
  const names = new Set<string>();
  const reads: string[] = [];
  if (!graph.hasNode(id)) return { names: [], reads };
  const affecting = (node: string) => {
    reads.push(node);
    graph.forEachInEdge(node, (_key, attrs, source, _target, sourceAttrs) => {
      if (attrs.type !== 'AFFECTS' || !FINDING_LABELS.has(sourceAttrs.label)) return;
      reads.push(source);
      names.add(sourceAttrs.name);
    });
  };
  graph.forEachInEdge(id, (_key, attrs, source, _target, sourceAttrs) => {
    if (attrs.type !== 'AFFECTS' || !FINDING_LABELS.has(sourceAttrs.label)) return;
    reads.push(source);
    names.add(sourceAttrs.name);
  });
  graph.forEachOutEdge(id, (_key, attrs, _source, image, _sourceAttrs, imageAttrs) => {
    if (attrs.type !== 'DEPENDS_ON' || imageAttrs.label !== 'Image') return;
    affecting(image);
    graph.forEachOutEdge(image, (_k, a, _s, part, _sa, partAttrs) => {
      if (a.type === 'BUILT_FROM' && partAttrs.label === 'Repository') affecting(part);
      // An SBOM names a CVE on the library alone (grype): the image's libraries count as the image.
      else if (a.type === 'DEPENDS_ON' && (partAttrs.label === 'Library' || partAttrs.label === 'Package'))
        affecting(part);
    });
  });
  return { names: [...names], reads };
}
