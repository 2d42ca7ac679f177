// An envelope's JSON as a producer hands it to the bus: one string, or (a chunk of nodes or of edges) three
// pieces kept apart: the envelope's fields, the items' JSON array, the closing. Joined with `+`, V8 keeps them
// as a string of pieces and copies the whole into one flat string the first time anything measures, encodes,
// sends or parses it. Nothing needs that copy: the journal encodes the pieces one by one, a worker posts them,
// and the bus parses the items alone when it delivers them. For a 50,000-object Kubernetes dump it was 23 MB
// copied into fresh memory per report (docs/perf.md, "a chunk's JSON in its pieces").
import type { EventEnvelope } from './envelope.js';

/**
 * A chunk's JSON in pieces, joined without a separator: between the first and the last, the JSON array of its
 * `field` items, in one piece or several (a chunk cut from a request's text: brackets, runs of the text and
 * commas, each piece a slice of that text or JSON.stringify output, none of them copied).
 */
export interface SplitEnvelopeJson {
  field: 'nodes' | 'edges';
  /** the envelope up to the items' array, that array, and the rest of the envelope after it */
  pieces: readonly [head: string, ...items: string[], tail: string];
}

/** JSON.stringify output (or such outputs joined), never holding a newline: see BusRecord.envelopeJson. */
export type EnvelopeJson = string | SplitEnvelopeJson;

/** The JSON as one string (a copy: only where one string is all a consumer takes). */
export function joinEnvelopeJson(json: EnvelopeJson): string {
  return typeof json === 'string' ? json : json.pieces.join('');
}

/** The JSON's UTF-8 bytes, the pieces encoded one after another (a broker message's body). */
export function encodeEnvelopeJson(json: EnvelopeJson): Buffer {
  if (typeof json === 'string') return Buffer.from(json);
  const bytes = Buffer.allocUnsafe(json.pieces.reduce((sum, piece) => sum + Buffer.byteLength(piece), 0));
  let at = 0;
  for (const piece of json.pieces) at += bytes.write(piece, at);
  return bytes;
}

/**
 * The same JSON with its items' array in one piece: what an ingest worker posts, so that the event loop
 * receives the array as one string and parses it without joining it (the join is the worker's copy).
 */
export function withItemsWhole(json: SplitEnvelopeJson): SplitEnvelopeJson {
  const { pieces } = json;
  if (pieces.length === 3) return json;
  return { field: json.field, pieces: [pieces[0], pieces.slice(1, -1).join(''), pieces[pieces.length - 1]] };
}

/** The JSON as the pieces a writer encodes one after another. */
export function envelopeJsonPieces(json: EnvelopeJson): readonly string[] {
  return typeof json === 'string' ? [json] : json.pieces;
}

/**
 * The envelope the JSON holds, as JSON.parse of the joined text gives it (the same fields in the same order):
 * the pieces around the items are parsed with an empty array in the items' place, the items on their own.
 */
export function parseEnvelopeJson(json: EnvelopeJson): EventEnvelope {
  if (typeof json === 'string') return JSON.parse(json) as EventEnvelope;
  const { pieces } = withItemsWhole(json);
  const envelope = JSON.parse(`${pieces[0]}[]${pieces[2]}`) as EventEnvelope;
  envelope[json.field] = JSON.parse(pieces[1]) as never;
  return envelope;
}
