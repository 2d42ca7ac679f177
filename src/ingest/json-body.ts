// JSON request bodies: parsed with the platform's JSON.parse (fast, and not recursive), then guarded
// (src/ingest/body-guard.ts). A body that does not parse is a 400 naming where: line, column and offset,
// found by re-reading it with jsonc-parser's scanner under a small grammar with an explicit stack, so even
// a hostile body cannot overflow the stack while its error is located.
import { isAscii } from 'node:buffer';
import { createScanner } from 'jsonc-parser';
import { ProblemError } from '../http/problems.js';
import { guardBody } from './body-guard.js';
import { rememberBodyText } from './raw-items.js';

/** Where a JSON text first stops being JSON. */
export interface JsonErrorPosition {
  /** 1-based */
  line: number;
  /** 1-based, in UTF-16 code units */
  column: number;
  /** 0-based, in UTF-16 code units from the start of the text */
  offset: number;
  /** what was expected or found there */
  message: string;
}

export interface JsonBodyOptions {
  /** JSON pointer of this document in the body (an NDJSON line's index) */
  base?: string;
  /** where this document is, in words, for the guard's problems (`line 7`) */
  where?: string;
  /** the body line and offset this text starts at (an NDJSON line), so positions are the body's */
  startLine?: number;
  startOffset?: number;
  /** Remember the text the parsed body came from (a request body: `events` cuts its chunks from it). */
  keepText?: boolean;
}

/**
 * Bytes of a JSON body as text, as the listener's JSON parser and the ingest workers decode them: invalid UTF-8
 * becomes U+FFFD, and a byte-order mark is left for parseJsonBody to drop. `from`/`to` are byte offsets into
 * `bytes`. No copy of the bytes is made first: a view of the same memory (shared or not) is decoded.
 */
export function utf8Text(bytes: Uint8Array, from = 0, to = bytes.byteLength): string {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // ASCII reads the same as UTF-8 and Latin-1. Node makes a large Latin-1 text an external string, in memory
  // from malloc, which glibc maps with huge pages ("Settings that matter" in docs/perf.md): 32 MiB took
  // 17-534 page faults instead of 8,200 (75-82 ms instead of 109-126 on this project's machines).
  if (to - from >= EXTERNAL_TEXT_BYTES && isAscii(view.subarray(from, to)))
    return view.toString('latin1', from, to);
  return view.toString('utf8', from, to);
}

/** From this size on (Node's own threshold is about 1 MB), an ASCII body is decoded as Latin-1 (utf8Text). */
export const EXTERNAL_TEXT_BYTES = 1 << 20;

/** Parses one JSON document and guards it. Throws `malformed-json` naming the position, or the guard's problem. */
export function parseJsonBody(text: string, options: JsonBodyOptions = {}): unknown {
  // A byte-order mark is not part of the document (fastify's parser drops it too).
  const bom = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const body = bom ? text.slice(1) : text;
  if (!body.trim()) throw new ProblemError('malformed-json', 'request body is empty; send a JSON document');
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (error) {
    const at = locateJsonError(body) ?? {
      ...lineColumn(body, body.length),
      offset: body.length,
      message: (error as Error).message,
    };
    const line = at.line + (options.startLine ?? 1) - 1;
    const column = at.line === 1 ? at.column + bom : at.column;
    const offset = at.offset + bom + (options.startOffset ?? 0);
    throw new ProblemError(
      'malformed-json',
      `request body is not valid JSON: line ${line}, column ${column} (offset ${offset}): ${at.message}`,
      { line, column, offset },
    );
  }
  guardBody(value, options);
  if (options.keepText) rememberBodyText(value, body);
  return value;
}

// jsonc-parser's token kinds and scan errors (declared as const enums, which isolated modules cannot read).
const T = {
  openBrace: 1,
  closeBrace: 2,
  openBracket: 3,
  closeBracket: 4,
  comma: 5,
  colon: 6,
  null: 7,
  true: 8,
  false: 9,
  string: 10,
  number: 11,
  lineComment: 12,
  blockComment: 13,
  lineBreak: 14,
  trivia: 15,
  unknown: 16,
  eof: 17,
} as const;

const SCAN_ERRORS: Record<number, string> = {
  1: 'unterminated comment',
  2: 'unterminated string',
  3: 'unfinished number',
  4: 'invalid \\u escape in a string',
  5: 'invalid escape in a string',
  6: 'control character in a string (escape it)',
};

type Expect = 'value' | 'value-or-close' | 'key' | 'key-or-close' | 'colon' | 'after-value';

/** The position of the first syntax error in `text`, or undefined when the scanner finds none. */
export function locateJsonError(text: string): JsonErrorPosition | undefined {
  const scanner = createScanner(text, false);
  const stack: number[] = [];
  let expect: Expect = 'value';
  const fail = (message: string, offset = scanner.getTokenOffset()): JsonErrorPosition => ({
    ...lineColumn(text, offset),
    offset,
    message,
  });
  const found = () => {
    const token = scanner.getToken();
    if (token === T.eof) return 'the body ends';
    const raw = text.slice(
      scanner.getTokenOffset(),
      scanner.getTokenOffset() + Math.min(scanner.getTokenLength(), 20),
    );
    return `found ${JSON.stringify(raw)}`;
  };
  for (;;) {
    const token = scanner.scan();
    if (token === T.lineBreak || token === T.trivia) continue;
    if (token === T.lineComment || token === T.blockComment) return fail('comments are not JSON');
    const scanError = scanner.getTokenError();
    if (scanError !== 0) return fail(SCAN_ERRORS[scanError] ?? 'invalid token');
    const isValue =
      token === T.string || token === T.number || token === T.true || token === T.false || token === T.null;
    // An empty container closes where its first entry could start.
    if (
      (expect === 'value-or-close' && token === T.closeBracket) ||
      (expect === 'key-or-close' && token === T.closeBrace)
    ) {
      stack.pop();
      expect = 'after-value';
      continue;
    }
    if (expect === 'value' || expect === 'value-or-close') {
      if (token === T.openBrace || token === T.openBracket) {
        stack.push(token);
        expect = token === T.openBrace ? 'key-or-close' : 'value-or-close';
      } else if (isValue) expect = 'after-value';
      else return fail(`expected a value, ${found()}`);
    } else if (expect === 'key' || expect === 'key-or-close') {
      if (token !== T.string) return fail(`expected a property name in double quotes, ${found()}`);
      expect = 'colon';
    } else if (expect === 'colon') {
      if (token !== T.colon) return fail(`expected ':' after a property name, ${found()}`);
      expect = 'value';
    } else {
      const open = stack[stack.length - 1];
      if (open === undefined) {
        if (token === T.eof) return undefined;
        return fail(`unexpected data after the JSON document, ${found()}`);
      }
      const close = open === T.openBrace ? T.closeBrace : T.closeBracket;
      if (token === T.comma) expect = open === T.openBrace ? 'key' : 'value';
      else if (token === close) stack.pop();
      else return fail(`expected ',' or '${open === T.openBrace ? '}' : ']'}', ${found()}`);
    }
  }
}

function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: offset - lineStart + 1 };
}
