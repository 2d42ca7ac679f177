// The engine's state as snapshot lines: every tenant's nodes, edges, parked edges and path records.
// Written atomically beside the journal; on start-up it is restored and the journal replayed after it.
import type { EnvelopeEdge } from '../ingest/envelope.js';
import type { EdgeAttributes, NodeAttributes } from '../graph/model.js';
import type { PathRecord } from '../paths/path-store.js';
import type { PruneRecord, TenantState } from './tenant.js';
import type { ScopeState } from '../graph/scope-ledger.js';
import type { BatchProgress, BatchTracker } from '../ingest/batches.js';

/**
 * Bumped whenever the line format changes. This version writes format 2 (edges in chunks that name their
 * ends by node ordinal, since the compact graph store, issue 38) and reads format 1 too (one line per
 * edge, ends by id): a store written before the upgrade opens, and its next snapshot is format 2. A newer
 * format is refused (checkStateFormat), as versions before this one refuse format 2: never misread.
 */
export const STATE_FORMAT = 2;
const READABLE_FORMATS = new Set([1, 2]);
/** Edges per `edges` line. */
const EDGE_CHUNK = 4096;

/** Throws a message an operator can act on when a snapshot's format is not one this version reads. */
export function checkStateFormat(format: unknown, where: string): void {
  if (typeof format === 'number' && READABLE_FORMATS.has(format)) return;
  if (typeof format === 'number' && Number.isInteger(format) && format > STATE_FORMAT)
    throw new Error(
      `engine: the snapshot in ${where} has format ${format}, newer than the formats this pathgate reads ` +
        `(1 to ${STATE_FORMAT}): a newer pathgate wrote it, and downgrading is not supported (run that version ` +
        `or a later one, or move the data aside and ingest the reports afresh)`,
    );
  throw new Error(
    `engine: the snapshot in ${where} has format ${JSON.stringify(format)}, which no pathgate writes (this one reads formats 1 to ${STATE_FORMAT})`,
  );
}

type Line =
  | { k: 'tenant'; t: string; pruning: PruneRecord }
  | { k: 'node'; t: string; id: string; a: NodeAttributes }
  // Format 1: edges are identified by (type, s, d); `key` (written by early builds) is ignored.
  | { k: 'edge'; t: string; key?: string; s: string; d: string; a: EdgeAttributes }
  // Format 2: edges in chunks, ends as ordinals of the tenant's `node` lines (in the order written).
  | { k: 'edges'; t: string; s: number[]; d: number[]; a: EdgeAttributes[] }
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
    for (const { s, d, a } of graph.edgeChunks(EDGE_CHUNK))
      yield JSON.stringify({ k: 'edges', t, s, d, a } satisfies Line);
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
  // Per tenant, its nodes in the order restored: format 2's edges name their ends by these ordinals.
  const ordinals = new Map<TenantState, string[]>();
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
      case 'node': {
        state.graph.mergeNode(line.id, line.a);
        let ids = ordinals.get(state);
        if (!ids) ordinals.set(state, (ids = []));
        ids.push(line.id);
        break;
      }
      case 'edges': {
        const ids = ordinals.get(state) ?? [];
        for (let i = 0; i < line.a.length; i++) {
          const from = ids[line.s[i]];
          const to = ids[line.d[i]];
          if (from === undefined || to === undefined)
            throw new Error(
              `engine: snapshot edge of tenant ${JSON.stringify(line.t)} names node ordinal ${from === undefined ? line.s[i] : line.d[i]}, which no node line gave`,
            );
          state.writer.restoreEdge(from, to, line.a[i]);
        }
        break;
      }
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
