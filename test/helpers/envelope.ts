// Builders for small literal estates in tests: nodes by (label, name), edges by node handles.
import { nodeId } from '../../src/graph/ids.js';
import type { EdgeType, NodeLabel } from '../../src/graph/vocabulary.js';
import type { EnvelopeEdge, EnvelopeNode, EventEnvelope } from '../../src/ingest/envelope.js';

export function node(label: NodeLabel, name: string, properties: Record<string, unknown> = {}): EnvelopeNode {
  return { id: nodeId(label, name), label, name, properties };
}

export function edge(type: EdgeType, from: EnvelopeNode, to: EnvelopeNode, p?: number): EnvelopeEdge {
  return p === undefined
    ? { type, from: from.id, to: to.id }
    : { type, from: from.id, to: to.id, exploit_probability: p };
}

export function envelope(nodes: EnvelopeNode[], edges: EnvelopeEdge[] = [], source = 'test'): EventEnvelope {
  return { source, kind: 'asset', observed_at: '2026-11-01T00:00:00Z', nodes, edges };
}
