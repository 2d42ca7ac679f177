// Splits an event envelope into bus messages of at most 1 MiB serialized, nodes first, order kept.
// Slices are serialized in groups of about 48 KiB (one JSON.stringify per group, not per item) and the chunks
// carry their JSON in those groups, so the journal need not serialize again (envelope-json.ts).
import type { EnvelopeEdge, EnvelopeNode, EventEnvelope } from './envelope.js';
import { GROUP_BYTES, splitPieces, type SplitEnvelopeJson } from './envelope-json.js';

/** The message limit of a default bus (NATS' default max_payload). */
export const BUS_MESSAGE_LIMIT = 1024 * 1024;

export class ChunkError extends Error {}

export interface Chunk {
  envelope: EventEnvelope;
  /** `envelope` as JSON, at most the limit in UTF-8 bytes. */
  json: string;
  /**
   * `json` in its pieces (a slice of nodes or of edges): what the bus is handed, so that no one copies the
   * joined text (envelope-json.ts).
   */
  split?: SplitEnvelopeJson;
}

/** Slices aim at this share of the limit, so that a slice a little larger than its estimate still fits. */
const AIM = 0.9;

/**
 * `items` as their JSON in groups of about GROUP_BYTES (`perItem` bytes each on average), each group its
 * items' JSON array without the brackets: joined by commas between brackets, the text JSON.stringify(items)
 * gives.
 */
function itemGroups(items: readonly unknown[], perItem: number): string[] {
  const size = Math.max(1, Math.floor(GROUP_BYTES / perItem));
  const groups: string[] = [];
  // Each group's array without its brackets: a view of the serialized group, not a copy.
  for (let at = 0; at < items.length; at += size)
    groups.push(JSON.stringify(items.slice(at, at + size)).slice(1, -1));
  return groups;
}

/** Average UTF-8 bytes of one item of `items`, from an even sample of at most 128 of them. */
function averageItemBytes(items: readonly unknown[]): number {
  if (!items.length) return 1;
  const every = Math.max(1, Math.floor(items.length / 128));
  const sample: unknown[] = [];
  for (let i = 0; i < items.length; i += every) sample.push(items[i]);
  return Math.max(1, Buffer.byteLength(JSON.stringify(sample)) / sample.length);
}

/** A chunk's JSON up to its items: the envelope's other fields, and a comma (sliceChunk adds the items). */
export function chunkPrefix(envelope: EventEnvelope): string {
  return `${JSON.stringify({ source: envelope.source, kind: envelope.kind, observed_at: envelope.observed_at }).slice(0, -1)},`;
}

/**
 * One chunk of `envelope`: a slice of its nodes or of its edges, and the slice's JSON after `prefix`
 * (chunkPrefix), its items in `groups` (SplitEnvelopeJson).
 */
export function sliceChunk(
  envelope: EventEnvelope,
  prefix: string,
  field: 'nodes' | 'edges',
  items: unknown[],
  groups: readonly string[],
): Chunk {
  const split: SplitEnvelopeJson =
    field === 'nodes'
      ? { field, head: `${prefix}"nodes":`, groups, tail: ',"edges":[]}' }
      : { field, head: `${prefix}"nodes":[],"edges":`, groups, tail: '}' };
  return {
    envelope: {
      source: envelope.source,
      kind: envelope.kind,
      observed_at: envelope.observed_at,
      nodes: field === 'nodes' ? (items as EnvelopeNode[]) : [],
      edges: field === 'edges' ? (items as EnvelopeEdge[]) : [],
    },
    // Joined lazily by V8 (a string of pieces): only what reads `json` pays for the copy.
    json: splitPieces(split).reduce((joined, piece) => joined + piece),
    split,
  };
}

/** Splits `envelope` so that each chunk's JSON is at most `limit` UTF-8 bytes. One that fits stays whole. */
export function chunkEnvelope(envelope: EventEnvelope, limit = BUS_MESSAGE_LIMIT): Chunk[] {
  return [...chunksOf(envelope, limit)];
}

/**
 * chunkEnvelope's chunks one by one, each as soon as it is final (an ingest worker posts each while it
 * cuts the next). While the items so far could still fit in one chunk, their slices are held back: the
 * envelope may yet be kept whole.
 */
export function* chunksOf(envelope: EventEnvelope, limit = BUS_MESSAGE_LIMIT): Generator<Chunk> {
  // Nodes and edges are sampled apart: their sizes differ several times over (a Kubernetes dump's nodes
  // carry properties, its edges mostly none), and one average for both made most node slices overshoot the
  // limit and be serialized a second time, halved (docs/perf.md, "Issue 38").
  const average = { nodes: averageItemBytes(envelope.nodes), edges: averageItemBytes(envelope.edges) };
  if (average.nodes * envelope.nodes.length + average.edges * envelope.edges.length < limit * AIM) {
    const whole = JSON.stringify(envelope);
    if (Buffer.byteLength(whole) <= limit) {
      yield { envelope, json: whole };
      return;
    }
  }

  const prefix = chunkPrefix(envelope);
  const overhead = Buffer.byteLength(`${prefix}"nodes":[],"edges":[]}`);
  if (overhead > limit)
    throw new ChunkError(`the envelope without items is ${overhead} bytes, over the ${limit}-byte limit`);
  const room = Math.max(1, limit * AIM - overhead);
  /** Chunks held back while the whole envelope might still fit in one (null once it cannot). */
  let held: Chunk[] | null = [];
  /** The whole envelope's size so far, were it one chunk: the items' bytes and the commas between them. */
  let wholeBytes = overhead;
  const counted = { nodes: 0, edges: 0 };
  for (const field of ['nodes', 'edges'] as const) {
    const all = envelope[field] as unknown[];
    let perItem = average[field];
    for (let from = 0; from < all.length;) {
      let count = Math.min(all.length - from, Math.max(1, Math.floor(room / perItem)));
      for (;;) {
        const items = all.slice(from, from + count);
        const groups = itemGroups(items, perItem);
        // Counted group by group (and a comma between two), so the chunk's JSON is not joined to be measured.
        let bytes = overhead + groups.length - 1;
        for (const group of groups) bytes += Buffer.byteLength(group);
        if (bytes <= limit) {
          const chunk = sliceChunk(envelope, prefix, field, items, groups);
          wholeBytes += bytes - overhead + (counted[field]++ > 0 ? 1 : 0);
          if (held) {
            held.push(chunk);
            if (wholeBytes > limit) {
              yield* held;
              held = null;
            }
          } else yield chunk;
          // The next slice is sized by what this one measured (items next to each other are alike), but
          // never above the field's average: where larger items begin, an overshoot serializes its slice
          // twice, while a slice a little short costs only a chunk more.
          perItem = Math.max(average[field], (bytes - overhead) / count);
          from += count;
          break;
        }
        if (count === 1)
          throw new ChunkError(
            `/${field}/${from} alone is ${bytes - overhead} bytes (${bytes} as a chunk), over the ${limit}-byte bus message limit`,
          );
        // Fewer items, as many as this slice's own size says fit (and at least one fewer): only the slice
        // that overshot is serialized again.
        count = Math.max(1, Math.min(count - 1, Math.floor((count * room) / (bytes - overhead))));
      }
    }
  }
  if (!held) return;
  // The sample overestimated: an envelope that fits is kept whole after all.
  if (held.length > 1) {
    const whole = JSON.stringify(envelope);
    if (Buffer.byteLength(whole) <= limit) {
      yield { envelope, json: whole };
      return;
    }
  }
  yield* held;
}
