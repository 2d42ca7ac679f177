// The request's own text of an event envelope's items, so that the bus's chunks can be cut from the body
// instead of serializing every item again (docs/perf.md, "Issue 38: 100k ingest → paths ready, fourteenth
// session"). The JSON body parser remembers the text each parsed body came from; the `events` source scans
// it for where each node and edge starts and ends. An item's text parses to the very value the body's parse
// gave it (JSON.parse is a function of the text), so a chunk made of those texts replays to the records
// delivered live; an item that was changed after the parse (an id derived, a secret scrubbed) is serialized
// again instead, and so is one whose text holds a line break (a journal record is one line).
import { Int32List } from '../graph/store/int32-list.js';

/** The text each parsed JSON body came from (after any byte-order mark), by the parsed value. */
const bodyTexts = new WeakMap<object, string>();

/** Remembers that `value` was parsed from `text` (the JSON body parser, for a body that is an object). */
export function rememberBodyText(value: unknown, text: string): void {
  if (value !== null && typeof value === 'object') bodyTexts.set(value, text);
}

/** The text `value` was parsed from, when the JSON body parser remembered it. */
export function bodyTextOf(value: unknown): string | undefined {
  return value !== null && typeof value === 'object' ? bodyTexts.get(value) : undefined;
}

/** Where each item of one array of the body is: `text.slice(start[i], end[i])` is item i's JSON. */
export interface ItemSpans {
  start: Int32Array;
  end: Int32Array;
  /** Items whose text holds a line break between tokens (a pretty-printed body): serialized again. */
  multiline: Set<number>;
  /** Where the array's brackets are: `text[open]` is its `[`, `text[close]` its `]`. */
  open: number;
  close: number;
}

/**
 * ItemSpans as the scan fills them. Arrays of numbers grown by `push` were copied into fresh V8 memory at
 * every step, past 128 KiB memory of its own each time: for the 100k estate's 30 MiB request about 8,000 page
 * faults on the event loop (docs/perf.md, "Fewer faults in the ingest path").
 */
class SpanBuilder {
  readonly start: Int32List;
  readonly end: Int32List;
  readonly multiline = new Set<number>();
  close = -1;

  constructor(
    capacity: number,
    readonly open: number,
  ) {
    this.start = new Int32List(capacity);
    this.end = new Int32List(capacity);
  }

  add(start: number, end: number, multiline: boolean): void {
    if (multiline) this.multiline.add(this.start.length);
    this.start.push(start);
    this.end.push(end);
  }

  spans(): ItemSpans {
    return {
      start: this.start.view(),
      end: this.end.view(),
      multiline: this.multiline,
      open: this.open,
      close: this.close,
    };
  }
}

/** An envelope's items as the request's text holds them, and which of them were changed since the parse. */
export interface RawItems {
  text: string;
  /** The text is all ASCII: an item's UTF-8 bytes are its length. */
  ascii: boolean;
  nodes: ItemSpans;
  edges: ItemSpans;
  /** Indices of items changed after the parse (ids derived, secrets scrubbed): serialized again. */
  changed: { nodes: Set<number>; edges: Set<number> };
}

const QUOTE = 34;
const BACKSLASH = 92;
const COMMA = 44;
const COLON = 58;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;
const SPACE = 32;
const LF = 10;
const CR = 13;

/** Whether the quote at `at`, after a backslash, is escaped: an odd run of backslashes before it. */
function escaped(text: string, at: number): boolean {
  let slashes = 0;
  for (let k = at - 1; text.charCodeAt(k) === BACKSLASH; k--) slashes++;
  return slashes % 2 === 1;
}

/**
 * The spans of the top-level `nodes` and `edges` arrays' items in `text`, a JSON text that JSON.parse took
 * (its root an object). A key given twice counts last, as it does for JSON.parse; keys are compared
 * decoded (`"n\u006fdes"` is `nodes`). Undefined when the root holds no such arrays, or the text is not
 * what it should be (the caller then serializes every item, as before).
 */
export function scanEnvelopeItems(text: string): { nodes: ItemSpans; edges: ItemSpans } | undefined {
  const found: { nodes?: SpanBuilder; edges?: SpanBuilder } = {};
  const length = text.length;
  // A guess that a large body's items are at least 64 characters on average; doubled when they are not.
  const capacity = Math.max(16, Math.ceil(length / 64));
  let depth = 0;
  /** The string last closed at depth 1 (a key once its colon comes), as [open, close] quote indices. */
  let stringOpen = -1;
  let stringClose = -1;
  let key: string | undefined;
  /** The array whose items are being spanned (depth 2 inside it), if any. */
  let spans: SpanBuilder | undefined;
  let itemStart = -1;
  /** The last character of the current item that is not white space; whether it holds a line break. */
  let lastToken = -1;
  let broken = false;
  // One pass, strings skipped whole (indexOf to the closing quote); JSON.parse took this text, so every
  // string ends and every bracket closes.
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      // To the closing quote: the next one not escaped (after an even run of backslashes).
      let close = text.indexOf('"', i + 1);
      while (close > 0 && text.charCodeAt(close - 1) === BACKSLASH && escaped(text, close))
        close = text.indexOf('"', close + 1);
      if (close < 0) return undefined;
      if (depth === 1) {
        stringOpen = i;
        stringClose = close;
      } else if (depth === 2 && spans && itemStart < 0) itemStart = i;
      i = close;
      lastToken = close;
      continue;
    }
    if (c <= SPACE) {
      // White space; a line break inside an item's brackets (one after a scalar item is between items).
      if ((c === LF || c === CR) && depth > 2 && itemStart >= 0) broken = true;
      continue;
    }
    if (depth === 2 && spans) {
      if (c === COMMA || c === CLOSE_BRACKET) {
        if (itemStart >= 0) {
          spans.add(itemStart, lastToken + 1, broken);
          itemStart = -1;
          broken = false;
        }
        if (c === CLOSE_BRACKET) {
          spans.close = i;
          spans = undefined;
          depth--;
        }
        lastToken = i;
        continue;
      }
      if (itemStart < 0) itemStart = i;
    }
    switch (c) {
      case COLON:
        if (depth === 1) {
          const raw = text.slice(stringOpen + 1, stringClose);
          key = raw.includes('\\') ? (JSON.parse(text.slice(stringOpen, stringClose + 1)) as string) : raw;
        }
        break;
      case OPEN_BRACKET:
        if (depth === 1 && (key === 'nodes' || key === 'edges')) {
          spans = new SpanBuilder(capacity, i);
          found[key] = spans;
        }
        depth++;
        break;
      case OPEN_BRACE:
        depth++;
        break;
      case CLOSE_BRACKET:
      case CLOSE_BRACE:
        depth--;
        break;
      default:
        break;
    }
    lastToken = i;
  }
  if (depth !== 0 || !found.nodes || !found.edges) return undefined;
  return { nodes: found.nodes.spans(), edges: found.edges.spans() };
}

/**
 * The raw items of the envelope parsed from `body`, checked against it (as many spans as items), with the
 * nodes whose ids the validation derived marked changed. Undefined when the body's text is not known (not
 * a JSON body) or does not match.
 */
export function rawItemsOf(
  body: unknown,
  envelope: { nodes: readonly unknown[]; edges: readonly unknown[] },
  derivedIds: readonly number[],
): RawItems | undefined {
  const text = bodyTextOf(body);
  if (text === undefined) return undefined;
  const spans = scanEnvelopeItems(text);
  if (
    !spans ||
    spans.nodes.start.length !== envelope.nodes.length ||
    spans.edges.start.length !== envelope.edges.length
  )
    return undefined;
  return {
    text,
    // Every character of the text is one UTF-8 byte exactly when it is all ASCII.
    ascii: Buffer.byteLength(text) === text.length,
    nodes: spans.nodes,
    edges: spans.edges,
    changed: { nodes: new Set(derivedIds), edges: new Set() },
  };
}

/**
 * Marks the items redaction pointers (`/nodes/3/properties/...`) name as changed. False when a pointer names
 * no item: a change this cannot place, so the caller serializes every item again.
 */
export function markRedacted(raw: RawItems, pointers: Iterable<string>): boolean {
  for (const pointer of pointers) {
    const item = redactedItem(pointer);
    if (!item) return false;
    raw.changed[item.field].add(item.index);
  }
  return true;
}

/** The item a redaction pointer (`/nodes/3/properties/...`) names, or undefined when it names none. */
export function redactedItem(pointer: string): { field: 'nodes' | 'edges'; index: number } | undefined {
  const match = /^\/(nodes|edges)\/(\d+)(\/|$)/.exec(pointer);
  return match ? { field: match[1] as 'nodes' | 'edges', index: Number(match[2]) } : undefined;
}

/**
 * `raw` once scrubbing made `redactions` in its envelope: the redacted items marked changed (their text still
 * holds the secret), or undefined when a redaction names no item, so that every item is serialized again.
 */
export function afterRedactions(
  raw: RawItems | undefined,
  redactions: readonly { pointer: string }[],
): RawItems | undefined {
  if (!raw || !redactions.length) return raw;
  const pointers = redactions.map((r) => r.pointer);
  return markRedacted(raw, pointers) ? raw : undefined;
}
