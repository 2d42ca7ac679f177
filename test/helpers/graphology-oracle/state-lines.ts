// FROZEN copy of the graph part of src/engine/state-snapshot.ts (format 1) as of commit 8f355e3: how the
// graphology writer, the oracle of the differential test (issue 38), is restarted. One tenant's node, edge,
// parked and scopes lines, serialized and restored as the engine did then. Never change its behaviour.
import type { EnvelopeEdge } from '../../../src/ingest/envelope.js';
import type { ScopeState } from '../../../src/graph/scope-ledger.js';
import type { OracleEdgeAttributes, OracleNodeAttributes } from './model.js';
import type { OracleGraphWriter } from './writer.js';

type Line =
  | { k: 'node'; t: string; id: string; a: OracleNodeAttributes }
  | { k: 'edge'; t: string; key?: string; s: string; d: string; a: OracleEdgeAttributes }
  | { k: 'parked'; t: string; edge: EnvelopeEdge; at: number }
  | { k: 'scopes'; t: string; s: ScopeState };

/** The oracle writer's graph state as format-1 snapshot lines of tenant `t`. */
export function* serializeOracle(writer: OracleGraphWriter, t = 't'): Iterable<string> {
  const graph = writer.graph;
  for (const { node, attributes } of graph.nodeEntries())
    yield JSON.stringify({ k: 'node', t, id: node, a: attributes });
  for (const { source, target, attributes } of graph.edgeEntries()) {
    yield JSON.stringify({ k: 'edge', t, s: source, d: target, a: attributes });
  }
  for (const [, entry] of writer.parkedEntries())
    yield JSON.stringify({ k: 'parked', t, edge: entry.edge, at: entry.receivedAt });
  if (writer.scopes.scopeCount)
    yield JSON.stringify({ k: 'scopes', t, s: writer.serializeScopes() } satisfies Line);
}

/** Restores format-1 lines into `writer` (a fresh oracle graph and writer), as restoreState did. */
export function restoreOracle(lines: Iterable<string>, writer: OracleGraphWriter): void {
  for (const text of lines) {
    const line = JSON.parse(text) as Line;
    switch (line.k) {
      case 'node':
        writer.graph.mergeNode(line.id, line.a);
        break;
      case 'edge':
        writer.restoreEdge(line.s, line.d, line.a);
        break;
      case 'parked':
        writer.restoreParked(line.edge, line.at);
        break;
      case 'scopes':
        writer.restoreScopes(line.s);
        break;
      default:
        throw new Error(`oracle: unknown snapshot line kind ${JSON.stringify((line as { k: unknown }).k)}`);
    }
  }
  writer.reindex();
  writer.touch();
}
