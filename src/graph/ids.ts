// Node id derivation: `<Label>:<first 16 hex of SHA-1 of the lowercased name>`.
import { hash } from 'node:crypto';
import type { NodeLabel } from './vocabulary.js';

/** The id of the node with this label and name; the same name in any case gives the same id. */
export function nodeId(label: NodeLabel, name: string): string {
  // One-shot hash: several times faster than createHash() per call, and ingest derives one id per node.
  return `${label}:${hash('sha1', name.toLowerCase(), 'hex').slice(0, 16)}`;
}

const ID_SHAPE = /^([A-Za-z_]+):([0-9a-f]{16})$/;

/** The label part of a well-formed id, or undefined. */
export function idLabel(id: string): string | undefined {
  return ID_SHAPE.exec(id)?.[1];
}

/** Edges are keyed by (type, from, to): one edge of a type between two nodes. */
export function edgeKey(type: string, from: string, to: string): string {
  return `${type}|${from}|${to}`;
}
