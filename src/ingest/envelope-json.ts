// An envelope's JSON as a producer hands it to the bus: one string, or (a chunk of nodes or of edges) in
// pieces: the envelope's fields, its items in groups, the closing. Joined with `+`, V8 keeps them as a string
// of pieces and copies the whole into one flat string the first time anything measures, encodes, sends or
// parses it, and a string over 128 KiB is fresh memory each time. Nothing needs the join: the journal encodes
// the pieces one by one, a worker posts the groups, and the bus parses them group by group. For a
// 50,000-object Kubernetes dump the join was 23 MB copied into fresh memory per report (docs/perf.md, "a
// chunk's JSON in its pieces").
import type { EventEnvelope } from './envelope.js';

/**
 * A group of a chunk's items holds about this many bytes of JSON at most. V8 keeps a string over 128 KiB in
 * memory of its own (its large-object space), fresh memory touched page by page for every such string, while
 * smaller strings are made in the young generation's pages, which it reuses: in groups, a chunk's JSON is
 * made, posted by a worker, received and parsed without any string that large (docs/perf.md).
 */
export const GROUP_BYTES = 48 * 1024;

/**
 * A chunk's JSON in pieces: `head`, then the items' array (`[`, the groups joined by commas, `]`), then `tail`.
 * Each group is the JSON of one or more whole items without brackets: a run of a request's text (a slice of
 * it, not a copy) or JSON.stringify output. With `arrays` (as an ingest worker posts it: forPosting), each
 * group is a JSON array of its own, brackets included.
 */
export interface SplitEnvelopeJson {
  field: 'nodes' | 'edges';
  /** the envelope's JSON up to its items' array */
  head: string;
  groups: readonly string[];
  /** the envelope's JSON after its items' array */
  tail: string;
  arrays?: true;
}

/** JSON.stringify output (or such outputs joined), never holding a newline: see BusRecord.envelopeJson. */
export type EnvelopeJson = string | SplitEnvelopeJson;

/** What the bus is handed for a chunk: its pieces where it has them (a slice), else its one string. */
export function envelopeJsonOf(chunk: { json: EnvelopeJson; split?: SplitEnvelopeJson }): EnvelopeJson {
  return chunk.split ?? chunk.json;
}

/** The JSON as the pieces a writer encodes one after another, joined without separator. */
export function envelopeJsonPieces(json: EnvelopeJson): readonly string[] {
  if (typeof json === 'string') return [json];
  const pieces = [json.head, '['];
  for (const [k, group] of json.groups.entries()) {
    if (k) pieces.push(',');
    // A group posted as an array: its items without the brackets, a view of the string, not a copy.
    pieces.push(json.arrays ? group.slice(1, -1) : group);
  }
  pieces.push(']', json.tail);
  return pieces;
}

/** The JSON as one string (a copy: only where one string is all a consumer takes). */
export function joinEnvelopeJson(json: EnvelopeJson): string {
  return typeof json === 'string' ? json : envelopeJsonPieces(json).join('');
}

/** The JSON's UTF-8 bytes, the pieces encoded one after another (a broker message's body). */
export function encodeEnvelopeJson(json: EnvelopeJson): Buffer {
  if (typeof json === 'string') return Buffer.from(json);
  const pieces = envelopeJsonPieces(json);
  const bytes = Buffer.allocUnsafe(pieces.reduce((sum, piece) => sum + Buffer.byteLength(piece), 0));
  let at = 0;
  for (const piece of pieces) at += bytes.write(piece, at);
  return bytes;
}

/**
 * The same JSON with each group a JSON array of its own: what an ingest worker posts. Its message copies the
 * groups anyway; the event loop then receives strings under the large-object size and parses each as it is.
 */
export function forPosting(json: SplitEnvelopeJson): SplitEnvelopeJson {
  if (json.arrays) return json;
  return { ...json, groups: json.groups.map((group) => `[${group}]`), arrays: true };
}

/**
 * The envelope the JSON holds, as JSON.parse of the joined text gives it (the same fields in the same order):
 * the pieces around the items are parsed with an empty array in the items' place, the items on their own.
 */
export function parseEnvelopeJson(json: EnvelopeJson): EventEnvelope {
  if (typeof json === 'string') return JSON.parse(json) as EventEnvelope;
  const envelope = JSON.parse(`${json.head}[]${json.tail}`) as EventEnvelope;
  let items: unknown[];
  if (!json.arrays) items = JSON.parse(`[${json.groups.join(',')}]`) as unknown[];
  else if (json.groups.length === 1) items = JSON.parse(json.groups[0]) as unknown[];
  else {
    items = [];
    for (const group of json.groups) for (const item of JSON.parse(group) as unknown[]) items.push(item);
  }
  envelope[json.field] = items as never;
  return envelope;
}
