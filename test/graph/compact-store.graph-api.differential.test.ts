// The tenant graph's API alone against graphology (issue 38), below the writer: seeded random adds, merges,
// drops, attribute replacements and the in-place attribute writes the writer makes, applied to
// createTenantGraph() and to a plain graphology MultiDirectedGraph, must list the same nodes and edges in the
// same order (that order breaks ties between equally good routes) and answer every read alike. Only methods
// that src/ and test/ call on tenant graphs are used, as the writer calls them (one edge per type, from, to;
// no self-loops; keys from a counter).
import { MultiDirectedGraph } from 'graphology';
import { CompactGraph } from '../../src/graph/store/compact-graph.js';
import { describe, expect, it } from 'vitest';
import {
  createTenantGraph,
  findEdge,
  type EdgeAttributes,
  type NodeAttributes,
  type TenantGraph,
} from '../../src/graph/model.js';
import type { EdgeType, NodeLabel } from '../../src/graph/vocabulary.js';
import { canonical } from '../helpers/graph-state.js';
import { prng } from '../helpers/random-estate.js';

type Reference = MultiDirectedGraph<NodeAttributes, EdgeAttributes>;

const IDS = Array.from(
  { length: 12 },
  (_, i) => `${i % 3 ? 'Service' : 'Database'}:${i.toString(16).padStart(16, '0')}`,
);
const TYPES: EdgeType[] = ['ROUTES_TO', 'CONNECTS_TO', 'DEPENDS_ON'];

/** Edge reads of a graph as plain data: key, type|from|to, attributes, and the endpoints' names as handed. */
function edgeRow(
  key: string,
  a: EdgeAttributes,
  s: string,
  t: string,
  sa?: NodeAttributes,
  ta?: NodeAttributes,
) {
  return canonical({ key, edge: `${a.type}|${s}|${t}`, a, s: sa?.name, t: ta?.name });
}

const nodeRow = (id: string, a: NodeAttributes) =>
  canonical({ id, label: a.label, name: a.name, props: a.props, lastSeen: a.lastSeen });

const set = <T>(items: T[]) => items.map((i) => JSON.stringify(i)).sort();

/** Everything the graph answers, through the methods the engine calls. */
function reads(g: TenantGraph | Reference) {
  const nodes: unknown[] = [];
  g.forEachNode((id, a) => nodes.push(nodeRow(id, a)));
  const edges: unknown[] = [];
  g.forEachEdge((key, a, s, t, sa, ta) => edges.push(edgeRow(key, a, s, t, sa, ta)));
  const perNode = IDS.map((id) => {
    if (!g.hasNode(id)) return { id, absent: true };
    const out: unknown[] = [];
    const inn: unknown[] = [];
    const all: unknown[] = [];
    g.forEachOutEdge(id, (key, a, s, t, sa, ta) => out.push(edgeRow(key, a, s, t, sa, ta)));
    g.forEachInEdge(id, (key, a, s, t, sa, ta) => inn.push(edgeRow(key, a, s, t, sa, ta)));
    g.forEachEdge(id, (key, a, s, t) => all.push(edgeRow(key, a, s, t)));
    const neighbours: string[] = [];
    g.forEachNeighbor(id, (n) => neighbours.push(n));
    return {
      id,
      attrs: nodeRow(id, g.getNodeAttributes(id)),
      label: g.getNodeAttribute(id, 'label'),
      outDegree: g.outDegree(id),
      inDegree: g.inDegree(id),
      degree: g.degree(id),
      out: set(out),
      in: set(inn),
      all: set(all),
      inEdges: g.inEdges(id).sort(),
      outNeighbors: g.outNeighbors(id).sort(),
      neighbors: g.neighbors(id).sort(),
      forEachNeighbor: neighbours.sort(),
    };
  });
  const found: unknown[] = [];
  for (const type of TYPES)
    for (const from of IDS)
      for (const to of IDS) {
        if (from === to || !g.hasNode(from) || !g.hasNode(to)) continue;
        // The store's own lookup; graphology's is findOutEdge with a type test (what model.ts's findEdge was).
        const key =
          g instanceof CompactGraph
            ? findEdge(g, type, from, to)
            : g.findOutEdge(from, to, (_key, a) => a.type === type);
        if (key === undefined) continue;
        found.push({
          triple: `${type}|${from}|${to}`,
          key,
          hasEdge: g.hasEdge(key),
          hasDirectedEdge: g.hasDirectedEdge(from, to),
          source: g.source(key),
          target: g.target(key),
          type: g.getEdgeAttribute(key, 'type'),
          attrs: canonical(g.getEdgeAttributes(key)),
        });
      }
  return {
    order: g.order,
    size: g.size,
    // In iteration order: both lists, and the entries a snapshot writes.
    nodes,
    edges,
    nodeIds: g.nodes(),
    nodeEntries: [...g.nodeEntries()].map(({ node, attributes }) => nodeRow(node, attributes)),
    edgeEntries: [...g.edgeEntries()].map(({ edge, source, target, attributes }) =>
      edgeRow(edge, attributes, source, target),
    ),
    perNode,
    found,
    crownJewels: g.filterNodes((_id, a) => a.props.crown_jewel === true),
    anyExposed: g.someNode((_id, a) => a.props.internet_exposed === true),
  };
}

function run(seed: number, steps: number): void {
  const next = prng(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)];
  const store = createTenantGraph();
  const reference: Reference = new MultiDirectedGraph<NodeAttributes, EdgeAttributes>({
    allowSelfLoops: false,
  });
  const both = (call: (g: TenantGraph | Reference) => void) => {
    call(store);
    call(reference);
  };
  let keys = 0;
  const log: string[] = [];
  const nodeAttrs = (id: string): NodeAttributes => ({
    label: id.slice(0, id.indexOf(':')) as NodeLabel,
    name: `n${id.slice(-2)}-${Math.floor(next() * 3)}`,
    props: next() < 0.3 ? { crown_jewel: true } : next() < 0.3 ? { internet_exposed: true } : {},
    lastSeen: Math.floor(next() * 100),
  });
  const edgeAttrs = (type: EdgeType): EdgeAttributes => {
    const a: EdgeAttributes = { type, lastSeen: Math.floor(next() * 100) };
    if (next() < 0.5) a.p = pick([0, 0.5, 0.9]);
    if (next() < 0.2) a.joinPending = true;
    if (next() < 0.2) a.props = { port: pick([22, 443]) };
    return a;
  };
  for (let step = 0; step < steps; step++) {
    const r = next();
    const present = IDS.filter((id) => reference.hasNode(id));
    const edgeKeys = reference.edges();
    if (r < 0.25 || present.length < 2) {
      const id = pick(IDS);
      const attrs = nodeAttrs(id);
      if (reference.hasNode(id) || next() < 0.3) {
        log.push(`mergeNode ${id} ${JSON.stringify(attrs)}`);
        both((g) => g.mergeNode(id, { ...attrs, props: { ...attrs.props } }));
      } else {
        log.push(`addNode ${id} ${JSON.stringify(attrs)}`);
        both((g) => g.addNode(id, { ...attrs, props: { ...attrs.props } }));
      }
    } else if (r < 0.55) {
      const from = pick(present);
      const to = pick(present.filter((id) => id !== from));
      const type = pick(TYPES);
      if (reference.findOutEdge(from, to, (_key, a) => a.type === type) !== undefined) continue;
      const key = String(keys++);
      const attrs = edgeAttrs(type);
      log.push(`addDirectedEdgeWithKey ${key} ${from} ${to} ${JSON.stringify(attrs)}`);
      both((g) => g.addDirectedEdgeWithKey(key, from, to, { ...attrs }));
    } else if (r < 0.65 && edgeKeys.length) {
      const key = pick(edgeKeys);
      log.push(`dropEdge ${key}`);
      both((g) => g.dropEdge(key));
    } else if (r < 0.72) {
      const id = pick(present);
      log.push(`dropNode ${id}`);
      both((g) => g.dropNode(id));
    } else if (r < 0.82 && edgeKeys.length) {
      const key = pick(edgeKeys);
      const attrs = edgeAttrs(reference.getEdgeAttribute(key, 'type'));
      log.push(`replaceEdgeAttributes ${key} ${JSON.stringify(attrs)}`);
      both((g) => g.replaceEdgeAttributes(key, { ...attrs }));
    } else if (r < 0.91) {
      // What the writer does to a node it updates: new props, name and lastSeen written in place.
      const id = pick(present);
      const name = `renamed-${Math.floor(next() * 3)}`;
      const lastSeen = Math.floor(next() * 200);
      const extra = next() < 0.5 ? { v: Math.floor(next() * 3) } : {};
      log.push(
        `write node ${id} in place: name ${name}, lastSeen ${lastSeen}, props + ${JSON.stringify(extra)}`,
      );
      both((g) => {
        const attrs = g.getNodeAttributes(id);
        attrs.props = { ...attrs.props, ...extra };
        attrs.name = name;
        if (lastSeen > attrs.lastSeen) attrs.lastSeen = lastSeen;
      });
    } else {
      // What a join does to the edges of a node: settled from the iteration's attributes and written back
      // (the store hands out copies of an edge's attributes; graphology's were its own, changed in place).
      const id = pick(present);
      const confidence = pick([0.6, 0.85, 1]);
      const direction = next() < 0.5 ? 'in' : 'out';
      log.push(`settle the ${direction}-edges of ${id} at ${confidence}`);
      both((g) => {
        const settle = (key: string, edge: EdgeAttributes) => {
          if (!edge.joinPending) return;
          delete edge.joinPending;
          if (confidence < 1) edge.joinConfidence = confidence;
          else delete edge.joinConfidence;
          g.replaceEdgeAttributes(key, edge);
        };
        if (direction === 'in') g.forEachInEdge(id, settle);
        else g.forEachOutEdge(id, settle);
      });
    }
    const where = `seed ${seed}, step ${step} (${log[log.length - 1]}); ops so far:\n${log.slice(-15).join('\n')}\n`;
    expect(reads(store), where).toEqual(reads(reference));
  }
}

describe('the tenant graph API against graphology (issue 38)', () => {
  it('answers alike after every step of 40 random sequences of 100 operations', () => {
    for (let seed = 1; seed <= 40; seed++) run(seed, 100);
  });
});
