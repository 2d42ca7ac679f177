// The engine's state as snapshot lines: every tenant's nodes, edges, parked edges and path records.
// Written atomically beside the journal; on start-up it is restored and the journal replayed after it.
import type { EnvelopeEdge } from '../ingest/envelope.js';
import type { EdgeAttributes, NodeAttributes } from '../graph/model.js';
import type { PathRecord } from '../paths/path-store.js';
import type { PruneRecord, TenantState } from './tenant.js';
import type { ScopeState } from '../graph/scope-ledger.js';
import type { BatchProgress, BatchTracker } from '../ingest/batches.js';

/** Bumped whenever the line format changes; an older snapshot is refused rather than misread. */
export const STATE_FORMAT = 1;

type Line =
  | { k: 'tenant'; t: string; pruning: PruneRecord }
  | { k: 'node'; t: string; id: string; a: NodeAttributes }
  // Edges are identified by (type, s, d); `key` (written by early builds) is ignored.
  | { k: 'edge'; t: string; key?: string; s: string; d: string; a: EdgeAttributes }
  | { k: 'parked'; t: string; edge: EnvelopeEdge; at: number }
  | { k: 'path'; t: string; r: PathRecord }
  | { k: 'scopes'; t: string; s: ScopeState }
  // Engine-wide: ingest batch progress, so `ingestBatch` answers across restarts.
  | { k: 'batch'; b: BatchProgress };

export function* serializeState(
  tenants: Map<string, TenantState>,
  batches?: { tracker: BatchTracker; now: number },
): Iterable<string> {
  if (batches)
    for (const b of batches.tracker.serialize(batches.now))
      yield JSON.stringify({ k: 'batch', b } satisfies Line);
  for (const state of tenants.values()) {
    const t = state.name;
    yield JSON.stringify({ k: 'tenant', t, pruning: state.pruning } satisfies Line);
    const graph = state.graph;
    for (const { node, attributes } of graph.nodeEntries())
      yield JSON.stringify({ k: 'node', t, id: node, a: attributes });
    for (const { source, target, attributes } of graph.edgeEntries()) {
      yield JSON.stringify({ k: 'edge', t, s: source, d: target, a: attributes });
    }
    for (const [, entry] of state.writer.parkedEntries())
      yield JSON.stringify({ k: 'parked', t, edge: entry.edge, at: entry.receivedAt });
    for (const record of state.paths.serialize()) yield JSON.stringify({ k: 'path', t, r: record });
    if (state.writer.scopes.scopeCount)
      yield JSON.stringify({ k: 'scopes', t, s: state.writer.serializeScopes() } satisfies Line);
  }
}

export async function restoreState(
  lines: AsyncIterable<string>,
  tenant: (name: string) => TenantState,
  batches?: BatchTracker,
): Promise<void> {
  const touched = new Set<TenantState>();
  for await (const text of lines) {
    const line = JSON.parse(text) as Line;
    if (line.k === 'batch') {
      batches?.restore(line.b);
      continue;
    }
    const state = tenant(line.t);
    touched.add(state);
    switch (line.k) {
      case 'tenant':
        Object.assign(state.pruning, line.pruning);
        break;
      case 'node':
        state.graph.mergeNode(line.id, line.a);
        break;
      case 'edge':
        state.writer.restoreEdge(line.s, line.d, line.a);
        break;
      case 'parked':
        state.writer.restoreParked(line.edge, line.at);
        break;
      case 'path':
        state.paths.restore(line.r as Parameters<TenantState['paths']['restore']>[0]);
        break;
      case 'scopes':
        state.writer.restoreScopes(line.s);
        break;
      default:
        throw new Error(`engine: unknown snapshot line kind ${JSON.stringify((line as { k: unknown }).k)}`);
    }
  }
  for (const state of touched) {
    state.writer.reindex();
    state.writer.touch();
  }
}
