// Chunks of an `events` envelope cut from the request's own text (src/ingest/raw-items.ts) instead of
// serializing its items again: the same split as chunkEnvelope's (nodes first, order kept, each chunk at most
// the limit in UTF-8 bytes), with each item's size known exactly, so slices are filled up to the limit and
// nothing is serialized twice. Items changed since the parse, or written over several lines, are serialized.
import { BUS_MESSAGE_LIMIT, ChunkError, chunkPrefix, sliceChunk, type Chunk } from './chunk.js';
import { GROUP_BYTES } from './envelope-json.js';
import type { EventEnvelope } from './envelope.js';
import type { ItemSpans, RawItems } from './raw-items.js';

/** One field's items: each one's UTF-8 bytes, and the JSON of those not taken from the text. */
interface FieldItems {
  bytes: Int32Array;
  serialized: Map<number, string>;
}

function measure(
  raw: RawItems,
  items: readonly unknown[],
  spans: ItemSpans,
  changed: ReadonlySet<number>,
  room: number,
): FieldItems {
  const bytes = new Int32Array(items.length);
  const serialized = new Map<number, string>();
  const { text, ascii } = raw;
  for (let i = 0; i < items.length; i++) {
    if (!changed.has(i) && !spans.multiline.has(i)) {
      const size = ascii
        ? spans.end[i] - spans.start[i]
        : Buffer.byteLength(text.slice(spans.start[i], spans.end[i]));
      // An item too large for a chunk as written is judged as serialized, as chunkEnvelope judges it (its
      // text may hold white space or escapes that serializing drops).
      if (size <= room) {
        bytes[i] = size;
        continue;
      }
    }
    const json = JSON.stringify(items[i]);
    serialized.set(i, json);
    bytes[i] = Buffer.byteLength(json);
  }
  return { bytes, serialized };
}

/**
 * The items [from, to) as their JSON in groups (SplitEnvelopeJson), each of about GROUP_BYTES at most (an item
 * larger than that alone): runs of adjacent texts are one slice of the request's text, not a copy; a group of
 * several pieces (runs apart, as in a pretty-printed text, or items serialized again) is joined with commas.
 */
function itemGroups(
  raw: RawItems,
  spans: ItemSpans,
  field: FieldItems,
  from: number,
  to: number,
): readonly string[] {
  const groups: string[] = [];
  /** the current group's pieces so far, and their characters */
  let pieces: string[] = [];
  let chars = 0;
  let runStart = -1;
  let runEnd = -1;
  const endRun = () => {
    if (runStart < 0) return;
    pieces.push(raw.text.slice(runStart, runEnd));
    chars += runEnd - runStart;
    runStart = -1;
  };
  const endGroup = () => {
    endRun();
    if (pieces.length) groups.push(pieces.length === 1 ? pieces[0] : pieces.join(','));
    pieces = [];
    chars = 0;
  };
  for (let i = from; i < to; i++) {
    if (chars + (runStart >= 0 ? runEnd - runStart : 0) >= GROUP_BYTES) endGroup();
    const json = field.serialized.get(i);
    if (json !== undefined) {
      endRun();
      pieces.push(json);
      chars += json.length;
    } else if (runStart >= 0 && spans.start[i] === runEnd + 1) {
      // Only the comma between this item and the last: the run goes on.
      runEnd = spans.end[i];
    } else {
      endRun();
      runStart = spans.start[i];
      runEnd = spans.end[i];
    }
  }
  endGroup();
  return groups;
}

/** Splits `envelope` as chunkEnvelope does, cutting each chunk's JSON from `raw` (the envelope's own text). */
export function chunkRawEnvelope(envelope: EventEnvelope, raw: RawItems, limit = BUS_MESSAGE_LIMIT): Chunk[] {
  const prefix = chunkPrefix(envelope);
  const overhead = Buffer.byteLength(`${prefix}"nodes":[],"edges":[]}`);
  if (overhead > limit)
    throw new ChunkError(`the envelope without items is ${overhead} bytes, over the ${limit}-byte limit`);
  const room = limit - overhead;
  const fields = {
    nodes: measure(raw, envelope.nodes, raw.nodes, raw.changed.nodes, room),
    edges: measure(raw, envelope.edges, raw.edges, raw.changed.edges, room),
  };
  const sum = (b: Int32Array) => b.reduce((s, x) => s + x, 0) + Math.max(0, b.length - 1);
  if (overhead + sum(fields.nodes.bytes) + sum(fields.edges.bytes) <= limit) {
    const nodes = itemGroups(raw, raw.nodes, fields.nodes, 0, envelope.nodes.length);
    const edges = itemGroups(raw, raw.edges, fields.edges, 0, envelope.edges.length);
    return [{ envelope, json: `${prefix}"nodes":[${nodes.join(',')}],"edges":[${edges.join(',')}]}` }];
  }
  const chunks: Chunk[] = [];
  for (const field of ['nodes', 'edges'] as const) {
    const all = envelope[field] as unknown[];
    const { bytes } = fields[field];
    for (let from = 0; from < all.length;) {
      if (bytes[from] > room)
        throw new ChunkError(
          `/${field}/${from} alone is ${bytes[from]} bytes (${overhead + bytes[from]} as a chunk), over the ${limit}-byte bus message limit`,
        );
      let size = overhead + bytes[from];
      let to = from + 1;
      while (to < all.length && size + 1 + bytes[to] <= limit) size += 1 + bytes[to++];
      const groups = itemGroups(raw, raw[field], fields[field], from, to);
      chunks.push(sliceChunk(envelope, prefix, field, all.slice(from, to), groups));
      from = to;
    }
  }
  return chunks;
}
