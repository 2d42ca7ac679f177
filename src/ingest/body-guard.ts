// The one check every parsed request body passes before anything reads it (JSON, NDJSON lines, YAML
// documents): objects and arrays nest at most MAX_BODY_DEPTH levels, so no recursive walk further on
// (scrubbing, schemas, normalizers, serialization) can overflow the stack; and no key can reach an object's
// prototype (`__proto__`, `constructor.prototype`). The walk itself stops at the limit, so it cannot overflow.
import { ProblemError } from '../http/problems.js';

/**
 * How deep objects and arrays may nest in a request body: the root object is level 1. Real reports stay
 * far below it (the deepest recorded tool output, a Kubernetes pod list, nests 13 levels).
 */
export const MAX_BODY_DEPTH = 128;

export interface BodyViolation {
  reason: 'depth' | 'prototype';
  /** JSON pointer of the offending value, relative to the value checked. */
  pointer: string;
}

function escapePointerSegment(segment: string | number): string {
  return typeof segment === 'number' ? String(segment) : segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** A violation found below: its reason and the keys leading to it, innermost first (joined on the way out). */
interface Found {
  reason: BodyViolation['reason'];
  reversed: (string | number)[];
}

const isPrototypeKey = (key: string, child: unknown) =>
  key === '__proto__' ||
  (key === 'constructor' && child !== null && typeof child === 'object' && Object.hasOwn(child, 'prototype'));

/**
 * Recursive, but never deeper than `maxDepth` frames: it stops at the first container past the limit,
 * whatever the input holds.
 */
function walk(node: object, depth: number, maxDepth: number): Found | undefined {
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) {
      const child: unknown = node[i];
      if (child === null || typeof child !== 'object') continue;
      if (depth >= maxDepth) return { reason: 'depth', reversed: [i] };
      const found = walk(child, depth + 1, maxDepth);
      if (found) {
        found.reversed.push(i);
        return found;
      }
    }
    return undefined;
  }
  for (const key in node) {
    if (!Object.hasOwn(node, key)) continue;
    const child: unknown = (node as Record<string, unknown>)[key];
    if (isPrototypeKey(key, child)) return { reason: 'prototype', reversed: [key] };
    if (child === null || typeof child !== 'object') continue;
    if (depth >= maxDepth) return { reason: 'depth', reversed: [key] };
    const found = walk(child, depth + 1, maxDepth);
    if (found) {
      found.reversed.push(key);
      return found;
    }
  }
  return undefined;
}

/** The first value that nests too deep or names a prototype key, or undefined when `value` is sound. */
export function findBodyViolation(value: unknown, maxDepth = MAX_BODY_DEPTH): BodyViolation | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const found = walk(value, 1, maxDepth);
  if (!found) return undefined;
  const pointer = found.reversed
    .reverse()
    .map((s) => `/${escapePointerSegment(s)}`)
    .join('');
  return { reason: found.reason, pointer };
}

/**
 * Throws the 400 problem for the first violation in `value`: `nesting-too-deep` or `invalid-payload` for
 * a prototype key, naming the JSON pointer (`base` prefixes it: where the value sits in the body) and,
 * when given, where it is in words (`document 2`, `line 7`).
 */
export function guardBody(value: unknown, options: { base?: string; where?: string } = {}): void {
  const found = findBodyViolation(value);
  if (!found) return;
  const pointer = `${options.base ?? ''}${found.pointer}` || '/';
  const where = options.where ? `${options.where}: ` : '';
  if (found.reason === 'depth') {
    const detail = `objects and arrays nest deeper than ${MAX_BODY_DEPTH} levels`;
    throw new ProblemError('nesting-too-deep', `${where}${pointer}: ${detail}; flatten the report`, {
      errors: [{ pointer, detail }],
      maxDepth: MAX_BODY_DEPTH,
    });
  }
  const key = pointer.slice(pointer.lastIndexOf('/') + 1);
  const detail = `the key ${JSON.stringify(key)} is refused: it could reach an object's prototype`;
  throw new ProblemError('invalid-payload', `${where}${pointer}: ${detail}`, {
    errors: [{ pointer, detail }],
  });
}
