// The pieces behind the hostile-input answers (test/app/hostile-input.test.ts drives them through the
// listeners): the body guard's pointers and limit, the JSON error locator on each kind of syntax error,
// scrubbing's own depth bound (a defence no listener can reach, since bodies are guarded first), and
// the capping of echoed values in every problem.
import { describe, expect, it } from 'vitest';
import { capEchoed, problem, ProblemError } from '../../src/http/problems.js';
import { findBodyViolation, MAX_BODY_DEPTH } from '../../src/ingest/body-guard.js';
import { locateJsonError } from '../../src/ingest/json-body.js';
import { MAX_SCRUB_DEPTH, scrubEnvelope } from '../../src/ingest/scrub.js';
import { envelope, node } from '../helpers/envelope.js';

const nest = (levels: number, key = 'a'): unknown => {
  let value: unknown = 1;
  for (let i = 0; i < levels; i++) value = { [key]: value };
  return value;
};

describe('findBodyViolation', () => {
  it('allows MAX_BODY_DEPTH levels and names the first container past them', () => {
    expect(findBodyViolation(nest(MAX_BODY_DEPTH))).toBeUndefined();
    expect(findBodyViolation(nest(MAX_BODY_DEPTH + 1))).toEqual({
      reason: 'depth',
      pointer: '/a'.repeat(MAX_BODY_DEPTH),
    });
  });

  it('escapes ~ and / in keys, numbers array items, and finds the deep branch among shallow ones', () => {
    const body = { shallow: [1, 2, { x: 1 }], 'a/b~c': [0, nest(10)] };
    expect(findBodyViolation(body, 4)).toEqual({ reason: 'depth', pointer: '/a~1b~0c/1/a/a' });
  });

  it('refuses __proto__ and constructor.prototype keys, and leaves other constructors alone', () => {
    expect(findBodyViolation(JSON.parse('{"x":[{"__proto__":{}}]}'))).toEqual({
      reason: 'prototype',
      pointer: '/x/0/__proto__',
    });
    expect(findBodyViolation({ constructor: { prototype: {} } })?.reason).toBe('prototype');
    expect(findBodyViolation({ constructor: 'Foo', prototype: 'bar' })).toBeUndefined();
  });
});

describe('locateJsonError', () => {
  it.each([
    ['an unexpected token', '{"a": x}', { line: 1, column: 7, message: 'expected a value, found "x"' }],
    ['a trailing comma', '[1,2,]', { line: 1, column: 6, message: 'expected a value, found "]"' }],
    [
      'a missing comma',
      '{"a":1\n "b":2}',
      { line: 2, column: 2, message: 'expected \',\' or \'}\', found "\\"b\\""' },
    ],
    [
      'an unquoted key',
      '{a:1}',
      { line: 1, column: 2, message: 'expected a property name in double quotes, found "a"' },
    ],
    ['a comment', '{"a":1 // no\n}', { line: 1, column: 8, message: 'comments are not JSON' }],
    [
      'a control character',
      '{"a":"\u0001"}',
      { line: 1, column: 6, message: 'control character in a string (escape it)' },
    ],
    ['an unterminated string', '{"a":"b', { line: 1, column: 6, message: 'unterminated string' }],
    [
      'trailing data',
      '{"a":1}}',
      { line: 1, column: 8, message: 'unexpected data after the JSON document, found "}"' },
    ],
    ['a cut body', '{"a":[1,', { line: 1, column: 9, message: 'expected a value, the body ends' }],
    ['a leading zero', '{"a":01}', { line: 1, column: 7, message: "expected ',' or '}', found \"1\"" }],
  ])('names %s', (_case, text, expected) => {
    expect(() => JSON.parse(text)).toThrow();
    expect(locateJsonError(text)).toMatchObject(expected);
  });

  it('finds nothing in valid JSON, and locates an error behind 100,000 open arrays without recursing', () => {
    expect(locateJsonError('{"a":[1,{"b":null}],"c":"d"}')).toBeUndefined();
    const text = '['.repeat(100_000) + ']'.repeat(99_999);
    expect(locateJsonError(text)).toMatchObject({
      offset: 199_999,
      message: "expected ',' or ']', the body ends",
    });
  });
});

describe('scrubbing’s own depth bound', () => {
  it('refuses with nesting-too-deep rather than overflowing the stack', () => {
    const deep = envelope([node('VirtualMachine', 'vm', { env: nest(100_000) as Record<string, unknown> })]);
    let thrown: unknown;
    try {
      scrubEnvelope(deep);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ProblemError);
    expect((thrown as ProblemError).problem).toMatchObject({
      type: 'urn:pathgate:problem:nesting-too-deep',
      errors: [{ pointer: `/nodes/0/properties/env${'/a'.repeat(MAX_SCRUB_DEPTH - 3)}` }],
    });
  });
});

describe('echoed values in problems', () => {
  it('cuts long strings, and objects whose JSON is long, keeping the original size', () => {
    expect(capEchoed('short')).toBe('short');
    expect(capEchoed('y'.repeat(201))).toBe(`${'y'.repeat(200)}… (201 characters)`);
    const small = { a: [1, 2], b: 'c' };
    expect(capEchoed(small)).toBe(small);
    const wide = capEchoed(Object.fromEntries(Array.from({ length: 1_000 }, (_, i) => [`k${i}`, i])));
    expect(wide).toMatch(/^\{"k0":0,"k1":1,.*… \(object of 1000 keys\)$/);
    expect(capEchoed(nest(100_000))).toMatch(/… \(object of 1 keys\)$/);
  });

  it('caps detail, pointers and values in every problem, and at most 50 errors', () => {
    const body = problem('invalid-payload', 'd'.repeat(5_000), {
      errors: Array.from({ length: 80 }, (_, i) => ({
        pointer: `/${'p'.repeat(2_000)}`,
        detail: 'x',
        value: i,
      })),
    });
    expect(body.detail).toBe(`${'d'.repeat(1_000)}… (5000 characters)`);
    expect(body.errors).toHaveLength(50);
    expect(body.errors![0].pointer).toBe(`/${'p'.repeat(999)}… (2001 characters)`);
  });
});
