// An envelope's JSON as a producer hands it to the bus: one string, or (a chunk of nodes or of edges) in
// pieces: the envelope's fields, its items in groups, the closing. Joined with `+`, V8 keeps them as a string
// of pieces and copies the whole into one flat string the first time anything measures, encodes, sends or
// parses it, and a string over 128 KiB is fresh memory each time. Nothing needs the join: the journal encodes
// the pieces one by one, a worker posts the groups as UTF-8 bytes, and the bus parses them group by group.
// For a 50,000-object Kubernetes dump the join was 23 MB copied into fresh memory per report (docs/perf.md,
// "a chunk's JSON in its pieces").
import type { EventEnvelope } from './envelope.js';
import { utf8Text } from './json-body.js';

/**
 * A group of a chunk's items holds about this many bytes of JSON at most. V8 keeps a string over 128 KiB in
 * memory of its own (its large-object space), fresh memory touched page by page for every such string, while
 * smaller strings are made in the young generation's pages, which it reuses: in groups, a chunk's JSON is
 * made, posted by a worker (as bytes), decoded and parsed without any string that large (docs/perf.md).
 */
export const GROUP_BYTES = 48 * 1024;

/**
 * A chunk's JSON in pieces: `head`, then the items' array (`[`, the groups joined by commas, `]`), then `tail`.
 * Each group is the JSON of one or more whole items without brackets: a run of a request's text (a slice of
 * it, not a copy) or JSON.stringify output.
 */
export interface SplitEnvelopeJson {
  field: 'nodes' | 'edges';
  /** the envelope's JSON up to its items' array */
  head: string;
  groups: readonly string[];
  /** the envelope's JSON after its items' array */
  tail: string;
}

/**
 * A chunk's JSON as an ingest worker posts it (encodeForPosting): the groups' UTF-8 in one buffer of their
 * own, handed over with the message rather than copied. Strings a worker posts are made again on the event
 * loop's heap, and a backlog of them waiting for the graph outlived the young generation: the old
 * generation's pages they left half empty kept the 1M estate's heap about 50 MiB larger to its end
 * (docs/perf.md, "a worker's chunk as bytes"). Bytes lie outside the heap; each group is decoded only to be
 * parsed, a string that dies young, and the journal copies them as they are.
 */
export interface EncodedEnvelopeJson {
  field: 'nodes' | 'edges';
  head: string;
  /** the groups' UTF-8 back to back, each with its brackets: a JSON array of its items */
  bytes: Uint8Array;
  /** where each group ends in `bytes` (the next begins there) */
  ends: readonly number[];
  tail: string;
  /**
   * Set on the event loop (report-pool.ts): hands `bytes`' buffer back to a worker to fill again. The bus
   * calls it (doneWith) once it has copied and parsed them; after it, `bytes` is empty. Unset or not called,
   * the buffer is collected like any other.
   */
  release?: () => void;
}

/** JSON.stringify output (or such outputs joined), never holding a newline: see BusRecord.envelopeJson. */
export type EnvelopeJson = string | SplitEnvelopeJson | EncodedEnvelopeJson;

/** A piece of an envelope's JSON: text, or UTF-8 bytes (an encoded group's items). */
export type JsonPiece = string | Uint8Array;

/** What the bus is handed for a chunk: its pieces where it has them (a slice), else its one string. */
export function envelopeJsonOf(chunk: { json: EnvelopeJson; split?: SplitEnvelopeJson }): EnvelopeJson {
  return chunk.split ?? chunk.json;
}

/** A split's text as its pieces, joined without separator. */
export function splitPieces(json: SplitEnvelopeJson): string[] {
  const pieces = [json.head, '['];
  for (const [k, group] of json.groups.entries()) {
    if (k) pieces.push(',');
    pieces.push(group);
  }
  pieces.push(']', json.tail);
  return pieces;
}

/** The JSON as the pieces a writer encodes or copies one after another, joined without separator. */
export function envelopeJsonPieces(json: EnvelopeJson): readonly JsonPiece[] {
  if (typeof json === 'string') return [json];
  if (!('bytes' in json)) return splitPieces(json);
  const pieces: JsonPiece[] = [json.head, '['];
  let from = 0;
  for (const [k, end] of json.ends.entries()) {
    if (k) pieces.push(',');
    // The group's items without its brackets: a view of the bytes, not a copy.
    pieces.push(json.bytes.subarray(from + 1, end - 1));
    from = end;
  }
  pieces.push(']', json.tail);
  return pieces;
}

/** A piece's UTF-8 length. */
export const pieceBytes = (piece: JsonPiece): number =>
  typeof piece === 'string' ? Buffer.byteLength(piece, 'utf8') : piece.length;

/** Pieces as one string (a copy: only where one string is all a consumer takes). */
export function joinPieces(pieces: readonly JsonPiece[]): string {
  return pieces.map((piece) => (typeof piece === 'string' ? piece : utf8Text(piece))).join('');
}

/** The JSON as one string (a copy: only where one string is all a consumer takes). */
export function joinEnvelopeJson(json: EnvelopeJson): string {
  return typeof json === 'string' ? json : joinPieces(envelopeJsonPieces(json));
}

/** The JSON's UTF-8 bytes, the pieces encoded one after another (a broker message's body). */
export function encodeEnvelopeJson(json: EnvelopeJson): Buffer {
  if (typeof json === 'string') return Buffer.from(json);
  const pieces = envelopeJsonPieces(json);
  const bytes = Buffer.allocUnsafe(pieces.reduce((sum, piece) => sum + pieceBytes(piece), 0));
  let at = 0;
  for (const piece of pieces) at += writePiece(bytes, piece, at);
  return bytes;
}

/** Writes a piece into `buffer` at `at` (which has room for it); returns its bytes. */
export function writePiece(buffer: Buffer, piece: JsonPiece, at: number): number {
  if (typeof piece === 'string') return buffer.write(piece, at, 'utf8');
  buffer.set(piece, at);
  return piece.length;
}

/** The bus is done with the JSON's bytes (journaled or sent, and parsed): they may be filled again. */
export function doneWith(json: EnvelopeJson | undefined): void {
  if (json && typeof json !== 'string' && 'bytes' in json && json.release) {
    const { release } = json;
    json.release = undefined;
    // Shared memory a worker fills again: nothing here may read it after this (a transferred buffer was
    // emptied by the transfer itself).
    json.bytes = EMPTY_BYTES;
    release();
  }
}

/**
 * What an ingest worker posts for a slice: its groups encoded, each a JSON array with its brackets, at the
 * start of a buffer of their own (`bytes.buffer` holds nothing else: shared memory posted, or a buffer
 * transferred). `buffer` gives one of at least the bytes asked for (a worker's: one the event loop handed
 * back, EncodedEnvelopeJson.release).
 */
export function encodeForPosting(
  json: SplitEnvelopeJson,
  buffer: (bytes: number) => ArrayBufferLike = (bytes) => Buffer.allocUnsafeSlow(bytes).buffer,
): EncodedEnvelopeJson {
  let total = 0;
  for (const group of json.groups) total += Buffer.byteLength(group, 'utf8') + 2;
  const bytes = Buffer.from(buffer(total), 0, total);
  const ends: number[] = [];
  let at = 0;
  for (const group of json.groups) {
    bytes[at++] = OPEN;
    at += bytes.write(group, at, 'utf8');
    bytes[at++] = CLOSE;
    ends.push(at);
  }
  return { field: json.field, head: json.head, bytes, ends, tail: json.tail };
}

const EMPTY_BYTES = new Uint8Array(0);
const OPEN = 0x5b;
const CLOSE = 0x5d;

/**
 * The envelope the JSON holds, as JSON.parse of the joined text gives it (the same fields in the same order):
 * the pieces around the items are parsed with an empty array in the items' place, the items on their own.
 */
export function parseEnvelopeJson(json: EnvelopeJson): EventEnvelope {
  if (typeof json === 'string') return JSON.parse(json) as EventEnvelope;
  const envelope = JSON.parse(`${json.head}[]${json.tail}`) as EventEnvelope;
  let items: unknown[];
  if (!('bytes' in json)) items = JSON.parse(`[${json.groups.join(',')}]`) as unknown[];
  else {
    items = [];
    let from = 0;
    // Group by group: each decoded string is under V8's large-object size and garbage once parsed.
    for (const end of json.ends) {
      const group = JSON.parse(utf8Text(json.bytes, from, end)) as unknown[];
      if (json.ends.length === 1) items = group;
      else for (const item of group) items.push(item);
      from = end;
    }
  }
  envelope[json.field] = items as never;
  return envelope;
}
