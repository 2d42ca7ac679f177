// The snapshot's line format: format 2 (edges in chunks by node ordinal) round-trips the graph exactly,
// format 1 (one line per edge, as versions before the compact store wrote) still restores the same graph,
// and a format newer than this version reads is refused with a message saying so.
import { describe, expect, it } from 'vitest';
import {
  checkStateFormat,
  restoreState,
  serializeState,
  STATE_FORMAT,
} from '../../src/engine/state-snapshot.js';
import { TenantState } from '../../src/engine/tenant.js';
import { silentLog } from '../../src/log/logger.js';
import { edge, envelope, node } from '../helpers/envelope.js';

function tenantState(name: string): TenantState {
  return new TenantState(name, { log: silentLog(), parkedTtlMs: 1e12, thresholds: { p1: 0.5, p2: 0.1 } });
}

async function* linesOf(lines: Iterable<string>): AsyncIterable<string> {
  yield* lines;
}

/** Every node and edge of a tenant, as comparable records in the store's order. */
function contents(state: TenantState) {
  const nodes: unknown[] = [];
  state.graph.forEachNode((id, attrs) => nodes.push({ id, ...attrs }));
  const edges: unknown[] = [];
  state.graph.forEachEdge((_key, attrs, from, to) => edges.push({ from, to, attrs }));
  return { nodes, edges, parked: [...state.writer.parkedEntries()], scopes: state.writer.serializeScopes() };
}

function sample(): Map<string, TenantState> {
  const state = tenantState('default');
  const lb = node('LoadBalancer', 'public-lb', { internet_exposed: true });
  const svc = node('Service', 'checkout', { team: 'payments' });
  const db = node('Database', 'orders-db', { crown_jewel: true });
  state.writer.apply(
    envelope(
      [lb, svc, db],
      [
        { ...edge('ROUTES_TO', lb, svc, 0.9), weight_basis: 'heuristic' },
        { ...edge('HAS_PERMISSION', svc, db), properties: { valid_until: '2099-01-01T00:00:00Z' } },
      ],
    ),
    1_000,
    'k8s:prod',
  );
  state.writer.completeScope('k8s:prod');
  state.writer.apply(envelope([], [edge('CONNECTS_TO', svc, node('Service', 'not-yet'))]), 2_000);
  // Enough edges for several `edges` lines (4096 per line).
  const many = Array.from({ length: 70 }, (_, i) => node('Service', `s${i}`));
  const hops = many.flatMap((a, i) => many.filter((_, j) => j !== i).map((b) => edge('CONNECTS_TO', a, b)));
  state.writer.apply(envelope(many, hops), 3_000);
  // A dropped node leaves a hole in the store's slots: ordinals must skip it.
  state.graph.dropNode(many[3].id);
  return new Map([['default', state]]);
}

describe('graph snapshot format', () => {
  it('writes format 2 and restores the same nodes, edges, parked edges and scope claims', async () => {
    const tenants = sample();
    const lines = [...serializeState(tenants)];
    expect(STATE_FORMAT).toBe(2);
    expect(lines.some((l) => JSON.parse(l).k === 'edge')).toBe(false);
    expect(lines.filter((l) => JSON.parse(l).k === 'edges').length).toBeGreaterThan(1);
    const restored = new Map<string, TenantState>();
    await restoreState(linesOf(lines), (name) => {
      if (!restored.has(name)) restored.set(name, tenantState(name));
      return restored.get(name)!;
    });
    expect(contents(restored.get('default')!)).toEqual(contents(tenants.get('default')!));
  });

  it('restores a format 1 snapshot (one line per edge, ends by id) to the same graph', async () => {
    const tenants = sample();
    const state = tenants.get('default')!;
    // Format 1 as versions before the compact store wrote it.
    const lines = [...serializeState(tenants)].flatMap((text) => {
      const line = JSON.parse(text) as { k: string };
      if (line.k !== 'edges') return [text];
      return [];
    });
    const at = lines.findIndex((l) => JSON.parse(l).k === 'parked');
    const edgeLines: string[] = [];
    state.graph.forEachEdge((key, a, s, d) =>
      edgeLines.push(JSON.stringify({ k: 'edge', t: 'default', key, s, d, a })),
    );
    lines.splice(at, 0, ...edgeLines);
    const restored = tenantState('default');
    await restoreState(linesOf(lines), () => restored);
    expect(contents(restored)).toEqual(contents(state));
  });

  it('refuses a snapshot written by a newer version, saying that downgrading is not supported', () => {
    expect(() => checkStateFormat(1, '/data/state')).not.toThrow();
    expect(() => checkStateFormat(2, '/data/state')).not.toThrow();
    expect(() => checkStateFormat(3, '/data/state')).toThrow(
      /\/data\/state has format 3, newer than .*a newer pathgate wrote it, and downgrading is not supported/,
    );
    expect(() => checkStateFormat('2', '/data/state')).toThrow(/format "2", which no pathgate writes/);
    expect(() => checkStateFormat(undefined, '/data/state')).toThrow(/which no pathgate writes/);
  });

  it('names the ordinal when an edges line points past the nodes written', async () => {
    const restored = tenantState('default');
    const lines = [
      JSON.stringify({
        k: 'node',
        t: 'default',
        id: 'Service:a',
        a: { label: 'Service', name: 'a', props: {}, lastSeen: 1 },
      }),
      JSON.stringify({ k: 'edges', t: 'default', s: [0], d: [7], a: [{ type: 'CONNECTS_TO', lastSeen: 1 }] }),
    ];
    await expect(restoreState(linesOf(lines), () => restored)).rejects.toThrow(/node ordinal 7/);
  });
});
