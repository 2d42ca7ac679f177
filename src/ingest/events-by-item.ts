// An `events` body prepared item by item: the ingest worker's way with a large one (report-worker.ts). The
// whole body parsed at once is one tree that lives until its last item is checked, so the young generation
// copies all of it and the old generation grows by all of it: fresh pages, a page fault each 4 KiB on this
// project's machines (docs/perf.md, "An events body item by item"). Here the nodes and edges are parsed from
// their own text (raw-items.ts finds it) a run at a time, checked, scrubbed and let go; only the few serialized
// again (an id derived, a secret scrubbed, a line break in its text) are kept for the chunks, which are cut
// from the text.
//
// What comes out is what prepareReport gives for the whole body: the same chunks' JSON, counts, scope and
// redactions. A body this path does not settle (not JSON, a check that fails, a pull request's scan, nothing
// in it) answers undefined before any chunk is cut, and the caller prepares it whole, so every refusal is the
// problem it always was.
import { MAX_BODY_DEPTH, findBodyViolation } from './body-guard.js';
import { BUS_MESSAGE_LIMIT, chunkPrefix, type Chunk } from './chunk.js';
import { chunkRawEnvelope } from './chunk-raw.js';
import {
  checkSnapshotRequest,
  completenessScope,
  isPullRequestScan,
  readIngestContext,
  type IngestContext,
} from './context.js';
import {
  checkEnvelopeEdge,
  checkEnvelopeNode,
  createEnvelopeItemChecks,
  createEnvelopeValidator,
  type EnvelopeEdge,
  type EnvelopeNode,
  type EventEnvelope,
  type FieldError,
} from './envelope.js';
import { chunkRefusal, type PreparedReport } from './prepare.js';
import { redactedItem, scanEnvelopeItems, type ItemSpans, type RawItems } from './raw-items.js';
import { scrubEnvelope } from './scrub.js';
import type { IngestSource } from './sources/source.js';

export interface ItemByItemInput {
  query: Record<string, string | undefined>;
  receivedAt: number;
  scrub: boolean;
  /** Each chunk's JSON as soon as it is cut (its envelope holds only the items kept, so it is not given). */
  onChunk: (chunk: Omit<Chunk, 'envelope'>) => void;
}

/**
 * Items parsed together: one JSON.parse of a run of them (their text and the commas between, in brackets) costs
 * far less than one per item, and a run's objects still die young.
 */
const GROUP = 256;

let checks: {
  items: ReturnType<typeof createEnvelopeItemChecks>;
  frame: ReturnType<typeof createEnvelopeValidator>;
};

/** Whether `text[from, to)` is JSON white space only (the scan counts any control character as space). */
function blank(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c !== 32 && c !== 10 && c !== 13 && c !== 9) return false;
  }
  return true;
}

/** Whether the text between an array's brackets is its items' spans, white space and one comma between two. */
function separated(text: string, spans: ItemSpans): boolean {
  const { start, end, open, close } = spans;
  const count = start.length;
  if (count === 0) return blank(text, open + 1, close);
  if (!blank(text, open + 1, start[0]) || !blank(text, end[count - 1], close)) return false;
  for (let i = 1; i < count; i++) {
    const comma = text.indexOf(',', end[i - 1]);
    if (
      comma < 0 ||
      comma >= start[i] ||
      !blank(text, end[i - 1], comma) ||
      !blank(text, comma + 1, start[i])
    )
      return false;
  }
  return true;
}

/**
 * The body's text without its items: the two arrays emptied. With the items' texts and the separators
 * between them all JSON, the whole text is JSON exactly when this is, and parses to this with the items put
 * back (a key given twice counts last in both: the scan spans the last `nodes` and `edges` arrays).
 */
function frameText(text: string, nodes: ItemSpans, edges: ItemSpans): string {
  const [first, second] = nodes.open < edges.open ? [nodes, edges] : [edges, nodes];
  return text.slice(0, first.open + 1) + text.slice(first.close, second.open + 1) + text.slice(second.close);
}

/**
 * Parses, checks and scrubs the items of one array, a run of GROUP at a time; undefined when one does not pass.
 * Kept: those to be serialized again (changed, written over several lines, or perhaps too large to stay as
 * written).
 */
function readItems<T extends EnvelopeNode | EnvelopeEdge>(
  text: string,
  spans: ItemSpans,
  field: 'nodes' | 'edges',
  frame: EventEnvelope,
  scrub: boolean,
  room: number,
  redactions: Record<string, number>,
): { kept: T[]; changed: Set<number> } | undefined {
  const { start, end, multiline } = spans;
  const count = start.length;
  const kept = new Array<T>(count);
  const changed = new Set<number>();
  const check = field === 'nodes' ? checks.items.node : checks.items.edge;
  const errors: FieldError[] = [];
  for (let from = 0; from < count; from += GROUP) {
    const to = Math.min(count, from + GROUP);
    // The items' texts with the commas between them (separated() checked those): as many values as spans,
    // or a span was not one item.
    let group: T[];
    try {
      group = JSON.parse(`[${text.slice(start[from], end[to - 1])}]`) as T[];
    } catch {
      return undefined;
    }
    // The array stands where `nodes` or `edges` does, level 2: the guard's limit is the same from there.
    if (group.length !== to - from || findBodyViolation(group, MAX_BODY_DEPTH - 1)) return undefined;
    for (let k = 0; k < group.length; k++) {
      const item = group[k];
      const i = from + k;
      if (!check(item)) return undefined;
      if (field === 'nodes') {
        if (checkEnvelopeNode(item as EnvelopeNode, i, errors)) changed.add(i);
      } else checkEnvelopeEdge(item as EnvelopeEdge, i, errors);
      if (errors.length) return undefined;
      // A UTF-8 byte count is at most three times the UTF-16 length: a superset of the items too large.
      if (changed.has(i) || multiline.has(i) || (end[i] - start[i]) * 3 > room) kept[i] = item;
    }
    if (!scrub) continue;
    const { redactions: found } = scrubEnvelope({
      ...frame,
      nodes: field === 'nodes' ? (group as EnvelopeNode[]) : [],
      edges: field === 'edges' ? (group as EnvelopeEdge[]) : [],
    });
    for (const r of found) {
      redactions[r.kind] = (redactions[r.kind] ?? 0) + 1;
      // `/<field>/<k>/...`: the k-th item of this run.
      const k = redactedItem(r.pointer)!.index;
      changed.add(from + k);
      kept[from + k] = group[k];
    }
  }
  return { kept, changed };
}

/** Whether a body of `source` is read item by item on a worker (the one source whose report is an envelope). */
export function readsItemByItem(source: string): boolean {
  return source === 'events';
}

/**
 * Prepares an `events` body from its text as prepareReport would from the parsed body, item by item; undefined
 * when it is left to prepareReport (any other source's body; nothing was cut or told then).
 */
export function prepareEventsByItem(
  source: IngestSource,
  bodyText: string,
  input: ItemByItemInput,
): PreparedReport<Omit<Chunk, 'envelope'>> | undefined {
  if (!readsItemByItem(source.name)) return undefined;
  let context: IngestContext;
  try {
    context = readIngestContext(input.query);
    checkSnapshotRequest(source, context);
  } catch {
    // Refused by prepareReport, which says so after the body's own problems, as it always did.
    return undefined;
  }
  // A pull request's stamp changes every node: nothing is sent as written.
  if (isPullRequestScan(context)) return undefined;
  // As parseJsonBody reads a body: a byte-order mark is not part of the document.
  const text = bodyText.charCodeAt(0) === 0xfeff ? bodyText.slice(1) : bodyText;
  let spans: ReturnType<typeof scanEnvelopeItems>;
  try {
    // The scan expects JSON (it decodes a key with escapes by JSON.parse): here the text is not known to be.
    spans = scanEnvelopeItems(text);
  } catch {
    return undefined;
  }
  if (!spans || !separated(text, spans.nodes) || !separated(text, spans.edges)) return undefined;
  let frame: EventEnvelope;
  try {
    frame = JSON.parse(frameText(text, spans.nodes, spans.edges)) as EventEnvelope;
  } catch {
    return undefined;
  }
  checks ??= { items: createEnvelopeItemChecks(), frame: createEnvelopeValidator() };
  if (findBodyViolation(frame) || !checks.frame(frame).ok) return undefined;
  // Nothing in it: prepareReport says what that means (a refusal for a complete snapshot).
  if (!spans.nodes.start.length && !spans.edges.start.length) return undefined;
  const prefix = chunkPrefix(frame);
  const room = BUS_MESSAGE_LIMIT - Buffer.byteLength(`${prefix}"nodes":[],"edges":[]}`);
  const redactions: Record<string, number> = {};
  const nodes = readItems<EnvelopeNode>(text, spans.nodes, 'nodes', frame, input.scrub, room, redactions);
  const edges =
    nodes && readItems<EnvelopeEdge>(text, spans.edges, 'edges', frame, input.scrub, room, redactions);
  if (!nodes || !edges) return undefined;
  const raw: RawItems = {
    text,
    ascii: Buffer.byteLength(text) === text.length,
    nodes: spans.nodes,
    edges: spans.edges,
    changed: { nodes: nodes.changed, edges: edges.changed },
  };
  const envelope: EventEnvelope = { ...frame, nodes: nodes.kept, edges: edges.kept };
  try {
    for (const { json, split } of chunkRawEnvelope(envelope, raw))
      input.onChunk(split ? { json, split } : { json });
  } catch (error) {
    throw chunkRefusal(error);
  }
  return {
    chunks: [],
    nodes: spans.nodes.start.length,
    edges: spans.edges.start.length,
    warnings: [],
    scope: completenessScope(source, context, { envelopes: [], warnings: [] }),
    redactions,
  };
}
