// The compile's fast path over the compact store's slots (compiled-graph.ts, SlotView) against its general
// path over graphology-style iteration: the same arrays, value for value, for every way a hop is priced and
// with dead node and edge slots in the store.
import { describe, expect, it } from 'vitest';
import { compileGraph, type CompiledGraph } from '../../src/analysis/compiled-graph.js';
import {
  createTenantGraph,
  type EdgeAttributes,
  type GraphView,
  type TenantGraph,
} from '../../src/graph/model.js';
import { EDGE_TYPES, WEIGHT_BASES, type EdgeType, type NodeLabel } from '../../src/graph/vocabulary.js';
import { prng } from '../helpers/random-estate.js';

/** The store as a graph without the slot view: compileGraph takes its general path. */
function withoutSlots(graph: TenantGraph): GraphView {
  return new Proxy(graph, {
    get: (target, key) => (key === 'slots' ? undefined : Reflect.get(target, key, target)),
  }) as unknown as GraphView;
}

function arrays(c: CompiledGraph): Record<string, unknown> {
  const out: Record<string, unknown> = { nodeIds: c.nodeIds, names: c.names };
  for (const [key, value] of Object.entries(c))
    if (ArrayBuffer.isView(value)) out[key] = Array.from(value as unknown as ArrayLike<number>);
  return out;
}

function expectSameCompile(graph: TenantGraph, seedIamUsers = false): CompiledGraph {
  const fast = compileGraph(graph, { seedIamUsers });
  const general = compileGraph(withoutSlots(graph), { seedIamUsers });
  expect(arrays(fast)).toEqual(arrays(general));
  return fast;
}

const node = (label: NodeLabel, name: string, props: Record<string, unknown> = {}) => ({
  label,
  name,
  props,
  lastSeen: 0,
});

describe('compile over the store by slot', () => {
  it('prices every kind of hop as the general path does', () => {
    const g = createTenantGraph();
    g.addNode('lb', node('LoadBalancer', 'lb', { internet_exposed: true }));
    g.addNode('svc', node('Service', 'svc'));
    g.addNode('svc-clean', node('Service', 'svc-clean'));
    g.addNode('svc-runtime', node('Service', 'svc-runtime', { runtime_observed: true }));
    g.addNode('img', node('Image', 'img'));
    g.addNode('img-clean', node('Image', 'img-clean', { vulnerability_count: 0 }));
    g.addNode('cve', node('CVE', 'CVE-1', { cvss_score: 9.8 }));
    g.addNode('host', node('VirtualMachine', 'host', { runtime_observed: true }));
    g.addNode('role', node('IAM_Role', 'role'));
    g.addNode('db', node('Database', 'db', { crown_jewel: true, public_access: true }));
    const edge = (type: EdgeType, from: string, to: string, attrs: Partial<EdgeAttributes> = {}) =>
      g.addDirectedEdgeWithKey(`${type}|${from}|${to}`, from, to, { type, lastSeen: 0, ...attrs });
    edge('ROUTES_TO', 'lb', 'svc'); // no p: priced from the CVE of the image the Service runs
    edge('ROUTES_TO', 'lb', 'svc-clean'); // no p: a scanned-clean image
    edge('ROUTES_TO', 'lb', 'svc-runtime', { p: 0.3, basis: 'cvss' }); // own p and basis
    edge('DEPENDS_ON', 'svc', 'img', { joinConfidence: 0.6 });
    edge('DEPENDS_ON', 'svc-clean', 'img-clean');
    edge('AFFECTS', 'cve', 'img', { p: 0.5 });
    edge('CONNECTS_TO', 'svc', 'host'); // no p into a node observed at runtime
    edge('CONNECTS_TO', 'svc-runtime', 'host', { p: 0.9, joinConfidence: 0.5 }); // own p, halved by the join
    edge('CONNECTS_TO', 'svc-clean', 'host', { p: 0.7, joinPending: true });
    edge('CAN_ESCALATE_TO', 'host', 'role', { resourceScoped: true }); // no p, resource-scoped
    edge('ASSUMES', 'host', 'role', { p: 1.7 }); // clamped
    edge('HAS_PERMISSION', 'role', 'db', { p: 0 }); // impassable
    edge('CONNECTS_TO', 'role', 'db', { p: 0.4, basis: 'epss', resourceScoped: true });
    const c = expectSameCompile(g);
    const price = (type: EdgeType, from: string, to: string) => {
      const e = Array.from({ length: c.edgeCount }, (_, k) => k).find(
        (k) =>
          EDGE_TYPES[c.edgeType[k]] === type &&
          c.nodeIds[c.edgeFrom[k]] === from &&
          c.nodeIds[c.edgeTo[k]] === to,
      )!;
      return [c.edgeP[e], WEIGHT_BASES[c.edgeBasis[e]]];
    };
    // The cases the fast path must not take alone, priced as their records say.
    expect(price('ROUTES_TO', 'lb', 'svc')).toEqual([(9.8 / 10) * 0.8 * 0.6, 'cvss']);
    expect(price('ROUTES_TO', 'lb', 'svc-runtime')).toEqual([0.3, 'cvss']);
    expect(price('CONNECTS_TO', 'svc-runtime', 'host')).toEqual([0.45, 'heuristic']);
    expect(price('ASSUMES', 'host', 'role')).toEqual([1, 'heuristic']);
    expect(price('CONNECTS_TO', 'role', 'db')).toEqual([0.4, 'epss']);
  });

  it('numbers nodes and places edges alike with dead slots in the store (seeds 1–6)', () => {
    for (let seed = 1; seed <= 6; seed++) {
      const random = prng(seed);
      // Compaction held off, so that dead slots stay in place.
      const g = createTenantGraph({ compactAt: 1e9 });
      const ids: string[] = [];
      for (let i = 0; i < 300; i++) {
        const id = `n${i}`;
        ids.push(id);
        g.addNode(
          id,
          node(i % 7 === 0 ? 'Service' : 'VirtualMachine', id, {
            internet_exposed: random() < 0.1,
            crown_jewel: random() < 0.1,
            runtime_observed: random() < 0.1,
          }),
        );
      }
      const types: EdgeType[] = ['CONNECTS_TO', 'ROUTES_TO', 'CAN_ESCALATE_TO', 'DEPENDS_ON'];
      for (let k = 0; k < 1500; k++) {
        const from = ids[Math.floor(random() * ids.length)];
        const to = ids[Math.floor(random() * ids.length)];
        const type = types[Math.floor(random() * types.length)];
        const key = `${type}|${from}|${to}`;
        if (from === to || g.hasEdge(key)) continue;
        const attrs: EdgeAttributes = { type, lastSeen: 0 };
        if (random() < 0.7) attrs.p = random() * 1.2;
        if (random() < 0.3) attrs.basis = WEIGHT_BASES[Math.floor(random() * WEIGHT_BASES.length)];
        if (random() < 0.1) attrs.joinConfidence = random();
        if (random() < 0.1) attrs.resourceScoped = true;
        g.addDirectedEdgeWithKey(key, from, to, attrs);
      }
      for (const key of g.edges()) if (random() < 0.1) g.dropEdge(key);
      for (const id of ids) if (random() < 0.05) g.dropNode(id);
      expectSameCompile(g, seed % 2 === 0);
    }
  });
});
