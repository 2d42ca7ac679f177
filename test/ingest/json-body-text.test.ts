// utf8Text: the one decoding of JSON report bodies (the listener's parser, the ingest workers, chunk groups).
// A large ASCII body is read as Latin-1 (the same text, as an external string in malloc's memory); anything
// else as UTF-8, invalid sequences as U+FFFD.
import { describe, expect, it } from 'vitest';
import { EXTERNAL_TEXT_BYTES, utf8Text } from '../../src/ingest/json-body.js';

/** A JSON array of objects named `name`, as bytes: `count` of them, or just enough to pass EXTERNAL_TEXT_BYTES. */
function body(name: string, count?: number): Buffer {
  const one = `{"id":1000000,"name":"${name}"}`;
  const n = count ?? Math.ceil(EXTERNAL_TEXT_BYTES / Buffer.byteLength(one)) + 10;
  const bytes = Buffer.from(
    `[${Array.from({ length: n }, (_, i) => `{"id":${1_000_000 + i},"name":"${name}"}`).join(',')}]`,
  );
  if (count === undefined) expect(bytes.length).toBeGreaterThan(EXTERNAL_TEXT_BYTES);
  return bytes;
}

describe('utf8Text', () => {
  it('reads a large ASCII body as the same text UTF-8 gives', () => {
    const bytes = body('checkout-api');
    const text = utf8Text(bytes);
    expect(text).toBe(bytes.toString('utf8'));
    expect((JSON.parse(text) as { name: string }[])[1].name).toBe('checkout-api');
  });

  it('reads a large body with UTF-8 characters as UTF-8, not Latin-1', () => {
    const bytes = body('café-Überweisung-支付');
    const text = utf8Text(bytes);
    expect(text).toBe(bytes.toString('utf8'));
    expect((JSON.parse(text) as { name: string }[])[0].name).toBe('café-Überweisung-支付');
  });

  it('turns an invalid byte of a large body into U+FFFD, as UTF-8 does (Latin-1 would read é)', () => {
    const bytes = body('plain');
    const at = bytes.indexOf('plain', bytes.length - 40);
    bytes[at] = 0xe9;
    const text = utf8Text(bytes);
    expect(text).toBe(bytes.toString('utf8'));
    expect(text).toContain('\ufffdlain');
    expect(text).not.toContain('élain');
  });

  it('keeps a byte-order mark of a large body for the parser to drop', () => {
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), body('a')]);
    expect(utf8Text(bytes).charCodeAt(0)).toBe(0xfeff);
  });

  it('decodes a range of a view into shared memory, ASCII or not', () => {
    const ascii = body('x');
    const shared = new Uint8Array(new SharedArrayBuffer(ascii.length + 8), 4, ascii.length);
    shared.set(ascii);
    expect(utf8Text(shared)).toBe(ascii.toString('utf8'));
    expect(utf8Text(shared, 1, ascii.length - 1)).toBe(ascii.toString('utf8', 1, ascii.length - 1));
    // Non-ASCII outside the range: the range alone decides.
    shared[0] = 0xc3;
    expect(utf8Text(shared, 1)).toBe(ascii.toString('utf8', 1));
    expect(utf8Text(shared).charCodeAt(0)).toBe(0xfffd);
  });

  it('reads a small body as UTF-8', () => {
    expect(utf8Text(Buffer.from('{"name":"café"}'))).toBe('{"name":"café"}');
    expect(utf8Text(Buffer.from([0x22, 0xe9, 0x22]))).toBe('"\ufffd"');
  });
});
