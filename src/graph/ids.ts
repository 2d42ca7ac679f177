// Node id derivation: `<Label>:<first 16 hex of SHA-1 of the lowercased name>`.
import { hash } from 'node:crypto';
import { NODE_LABELS, type NodeLabel } from './vocabulary.js';

/** The id of the node with this label and name; the same name in any case gives the same id. */
export function nodeId(label: NodeLabel, name: string): string {
  // One-shot hash: several times faster than createHash() per call, and ingest derives one id per node.
  // Joined, not concatenated: join writes one flat string, where `${label}:${hex}` is a rope of three
  // strings over the whole 40-digit hex, each a heap object that every scavenge copies while the id lives.
  // (The label goes through the template, so it converts to a string exactly as before.)
  return [`${label}:`, hash('sha1', name.toLowerCase(), 'hex').slice(0, 16)].join('');
}

/** The label part of a well-formed id (`<letters and _>:<16 lowercase hex>`), or undefined. */
export function idLabel(id: string): string | undefined {
  // Checked by hand rather than by a regular expression: ingest checks two ids per edge.
  const colon = id.length - 17;
  if (colon < 1 || id.charCodeAt(colon) !== 58) return undefined;
  for (let i = colon + 1; i < id.length; i++) {
    const c = id.charCodeAt(i);
    if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102))) return undefined;
  }
  for (let i = 0; i < colon; i++) {
    const c = id.charCodeAt(i);
    if (!((c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95)) return undefined;
  }
  return id.slice(0, colon);
}

/** Edges are keyed by (type, from, to): one edge of a type between two nodes. */
export function edgeKey(type: string, from: string, to: string): string {
  return `${type}|${from}|${to}`;
}

/** The vocabulary's labels by length: hasKnownLabel compares an id's prefix with the few of its length. */
const LABELS_BY_LENGTH: readonly (readonly string[])[] = (() => {
  const byLength: string[][] = [];
  for (const label of NODE_LABELS) (byLength[label.length] ??= []).push(label);
  return byLength;
})();

/**
 * Whether `id` is a well-formed id (as idLabel reads it) whose label is in the vocabulary. Ingest checks two
 * ids per edge: this cuts no label out of the id and hashes nothing.
 */
export function hasKnownLabel(id: string): boolean {
  const colon = id.length - 17;
  const candidates = colon > 0 ? LABELS_BY_LENGTH[colon] : undefined;
  if (candidates === undefined || id.charCodeAt(colon) !== 58) return false;
  let known = false;
  for (const label of candidates) {
    if (id.startsWith(label)) {
      known = true;
      break;
    }
  }
  if (!known) return false;
  for (let i = colon + 1; i < id.length; i++) {
    const c = id.charCodeAt(i);
    if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102))) return false;
  }
  return true;
}
