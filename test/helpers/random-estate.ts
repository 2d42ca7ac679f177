// Seeded random writes over a small estate where pricing and tie-breaking both matter, for the
// incremental analysis property tests (test/analysis/*.property.test.ts).
import type { PairPath } from '../../src/analysis/best-paths.js';
import type { CompiledGraph } from '../../src/analysis/compiled-graph.js';
import { nodeId } from '../../src/graph/ids.js';
import type { EdgeType, NodeLabel } from '../../src/graph/vocabulary.js';
import type { EnvelopeEdge, EnvelopeNode } from '../../src/ingest/envelope.js';

/** mulberry32: the same sequence for the same seed on every run. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The universe the writes draw from: a small estate where pricing and tie-breaking both matter. */
const KINDS: [NodeLabel, number][] = [
  ['LoadBalancer', 3],
  ['User', 2],
  ['Service', 8],
  ['Database', 4],
  ['Image', 3],
  ['Repository', 2],
  ['CVE', 4],
];
const HANDLES = KINDS.flatMap(([label, count]) =>
  Array.from({ length: count }, (_, i) => ({ label, name: `${label.toLowerCase()}-${i}` })),
);
const ofLabel = (label: NodeLabel) => HANDLES.filter((h) => h.label === label);
/** Edge shapes: [type, from labels, to labels]. */
const SHAPES: [EdgeType, NodeLabel[], NodeLabel[]][] = [
  ['ROUTES_TO', ['LoadBalancer'], ['Service']],
  ['CONNECTS_TO', ['Service', 'LoadBalancer'], ['Service', 'Database']],
  ['HAS_PERMISSION', ['Service', 'User'], ['Database', 'Service']],
  ['ASSUMES', ['User'], ['Service']],
  ['DEPENDS_ON', ['Service'], ['Image']],
  ['BUILT_FROM', ['Image'], ['Repository']],
  ['AFFECTS', ['CVE'], ['Image', 'Repository']],
];
/** Few values, so that equally good routes (exact ties) are common; undefined = the model prices it. */
export const PS = [undefined, undefined, 0, 0.25, 0.5, 0.5, 0.8, 0.8, 0.9, 1];

export function pick<T>(random: () => number, from: readonly T[]): T {
  return from[Math.floor(random() * from.length)];
}

export function randomNode(random: () => number): EnvelopeNode {
  const h = pick(random, HANDLES);
  const props: Record<string, unknown> = {};
  const r = random();
  if (h.label === 'LoadBalancer' || h.label === 'Service') props.internet_exposed = r < 0.5;
  if (h.label === 'User') props.credential_exposed = r < 0.6;
  if (h.label === 'Database' || h.label === 'Service') {
    props.crown_jewel = random() < (h.label === 'Database' ? 0.7 : 0.15);
    if (random() < 0.2) props.public_access = random() < 0.5;
  }
  if (h.label === 'CVE') {
    const evidence = random();
    if (evidence < 0.2) props.kev = random() < 0.5;
    else if (evidence < 0.5) props.cvss_score = pick(random, [2.5, 5, 7.5, 9.8]);
    else props.severity = pick(random, ['LOW', 'MEDIUM', 'HIGH', 'CRITICAL']);
  }
  if (random() < 0.1) props.runtime_observed = random() < 0.5;
  // A rename now and then: the id stays, the name shown on routes changes.
  const name = random() < 0.1 ? `${h.name} (renamed ${Math.floor(random() * 3)})` : h.name;
  return { id: nodeId(h.label, h.name), label: h.label, name, properties: props };
}

export function randomEdge(random: () => number): EnvelopeEdge {
  const [type, fromLabels, toLabels] = pick(random, SHAPES);
  const from = pick(random, ofLabel(pick(random, fromLabels)));
  const to = pick(random, ofLabel(pick(random, toLabels)));
  const edge: EnvelopeEdge = { type, from: nodeId(from.label, from.name), to: nodeId(to.label, to.name) };
  const p = pick(random, PS);
  if (p !== undefined) edge.exploit_probability = p;
  return edge;
}

/** Pairs, scores and routes by ids, as a reader sees them. */
export function readable(g: CompiledGraph, found: PairPath[]) {
  return found.map((p) => ({
    pair: `${g.nodeIds[p.start]}>${g.nodeIds[p.target]}`,
    score: p.score,
    route: Array.from(
      p.edges,
      (e) =>
        `${g.nodeIds[g.edgeFrom[e]]} ${g.edgeType[e]} ${g.nodeIds[g.edgeTo[e]]} ${g.edgeP[e]} ${g.edgeBasis[e]}`,
    ),
  }));
}
