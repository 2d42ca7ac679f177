// Secret scrubbing at ingest: high-precision patterns are redacted from property values before anything
// is journaled, as `***redacted:<kind>***`, and the node or edge is marked `secrets_scrubbed`. Identifiers
// the graph joins on (ids, names, commit SHAs, digests, refs) are never touched. docs/scrubbing.md lists
// the kinds; test/ingest/scrub.test.ts has positive and negative cases for each.
import { PROP } from '../graph/vocabulary.js';
import { ProblemError } from '../http/problems.js';
import { MAX_BODY_DEPTH } from './body-guard.js';
import type { EventEnvelope } from './envelope.js';

export interface SecretPattern {
  /** Short kebab name, shown in the replacement and in the `kind` label of the redaction metric. */
  kind: string;
  /** Global (`g`) so every occurrence is replaced. */
  pattern: RegExp;
  description: string;
  /**
   * Regex source (case-sensitive) of something every match contains. The hints of all rows form the one
   * pre-check that lets most values skip the patterns entirely.
   */
  hint: string;
  /** No match is shorter than this; shorter values skip the row (and, below the smallest, everything). */
  minLength: number;
  /**
   * Redact only the value: the first capture group that took part in the match. The rest of the match
   * (key, `=`, quotes) is kept so the property stays readable.
   */
  valueOnly?: boolean;
}

// A value that is already redacted, or a reference to a secret held elsewhere (`$VAR`, `${VAR}`,
// `{{ .Values.x }}`), is not itself a secret.
const NOT_A_VALUE = String.raw`(?!["']?(?:\*\*\*redacted:|\$\{|\$[A-Za-z_]|\{\{))`;

/**
 * A word as keys are spelled: `secret`, `SECRET`, `Secret` (so `dbPassword`, `ClientSecret` too). Hints are
 * case-sensitive because a case-insensitive pre-check costs about half as much again per value.
 */
const cased = (...words: string[]) =>
  words.flatMap((w) => [w, w.toUpperCase(), w[0].toUpperCase() + w.slice(1)]).join('|');

/**
 * The one table of patterns, applied in order: specific credential shapes first, so that
 * `GITHUB_TOKEN=ghp_…` is reported as a GitHub token and the generic assignment row then skips it.
 */
export const SECRET_PATTERNS: readonly SecretPattern[] = [
  {
    kind: 'private-key',
    // A block cut off before its END line (truncated by a collector) is still key material: redact to the end.
    pattern:
      /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|[\s\S]*$)/g,
    description: 'PEM private key blocks (RSA, EC, DSA, OPENSSH, ENCRYPTED, PGP, plain), BEGIN to END',
    hint: 'PRIVATE KEY-----',
    minLength: 27,
  },
  {
    kind: 'aws-access-key',
    // Only the credential prefixes: AIDA/AROA/ANPA… are unique ids of users, roles and policies, which
    // the graph may join on, and are not secret.
    pattern: /\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b/g,
    description: 'AWS access key ids (`AKIA…`, `ASIA…`, `ABIA…`, `ACCA…`: 20 upper-case letters and digits)',
    hint: 'A3T|AKIA|ASIA|ABIA|ACCA',
    minLength: 20,
  },
  {
    kind: 'aws-secret-key',
    pattern:
      /(?:aws[_-]?secret[_-]?(?:access[_-]?)?key|secret[_-]?access[_-]?key)["']?\s*[:=]\s*["']?([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])/gi,
    description:
      'a 40-character AWS secret access key after `aws_secret_access_key`, `SecretAccessKey` … and `=` or `:`',
    hint: cased('secret'),
    minLength: 53,
    valueOnly: true,
  },
  {
    kind: 'google-api-key',
    pattern: /\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/g,
    description: 'Google API keys (`AIza` and 35 more characters)',
    hint: 'AIza',
    minLength: 39,
  },
  {
    kind: 'github-token',
    pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b/g,
    description: 'GitHub tokens: `ghp_`, `gho_`, `ghu_`, `ghs_`, `ghr_` and fine-grained `github_pat_`',
    hint: 'gh[pousr]_|github_pat_',
    minLength: 33,
  },
  {
    kind: 'gitlab-token',
    pattern: /\bgl(?:pat|ptt|rt|dt|ft|soat|cbt)-[A-Za-z0-9_-]{20,}(?![A-Za-z0-9_-])/g,
    description: 'GitLab tokens: personal (`glpat-`), and trigger, runner, deploy and feed tokens',
    hint: 'gl[a-z]{2,4}-',
    minLength: 25,
  },
  {
    kind: 'slack-token',
    pattern: /\b(?:xox[abprs]-[A-Za-z0-9-]{10,}|xapp-\d-[A-Za-z0-9-]{10,})/g,
    description: 'Slack bot, user and app tokens (`xoxb-…`, `xoxp-…`, `xapp-…`)',
    hint: 'xox[abprs]-|xapp-',
    minLength: 15,
  },
  {
    kind: 'slack-webhook',
    pattern: /https:\/\/hooks\.slack\.com\/services\/T[A-Za-z0-9_]+\/B[A-Za-z0-9_]+\/[A-Za-z0-9_]+/g,
    description: 'Slack incoming webhook URLs',
    hint: String.raw`hooks\.slack\.com`,
    minLength: 40,
  },
  {
    kind: 'jwt',
    // Header and payload are base64url JSON objects: `eyJ` is `{"`, `ey` also covers `{ "`.
    pattern: /\beyJ[A-Za-z0-9_-]{8,}\.ey[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}/g,
    description: 'signed JSON Web Tokens: three base64url parts, the header starting `eyJ`',
    hint: 'eyJ',
    minLength: 39,
  },
  {
    kind: 'url-credentials',
    // No scheme in the pattern: anchoring on `://` keeps the scan linear on long dotted strings.
    pattern: new RegExp(String.raw`:\/\/[^\s:/?#@]*:${NOT_A_VALUE}([^\s/?#@]+)@`, 'g'),
    description: 'the password in a URL (`postgres://user:<password>@host`); the user and host stay',
    hint: String.raw`:\/\/[^\s/?#@]*@`,
    minLength: 6,
    valueOnly: true,
  },
  {
    kind: 'secret-assignment',
    // Unanchored, so `DB_PASSWORD=`, `dbPassword=` and `client_secret=` all match; `pwd` needs a prefix
    // (`DB_PWD=`) because `PWD=` and `OLDPWD=` are working directories in every environment dump.
    pattern: new RegExp(
      String.raw`(?:secret|password|passwd|api_?key|secret_?key|access_?key|private_?key|token|_pwd)\s*=\s*` +
        NOT_A_VALUE +
        String.raw`(?:"([^"\r\n]{6,})"|'([^'\r\n]{6,})'|["']?([^\s"'&;,]{6,}))`,
      'gi',
    ),
    description:
      'the value (6 or more characters, or a quoted string) after `secret=`, `password=`, `passwd=`, ' +
      '`api_key=`, `apikey=`, `secret_key=`, `access_key=`, `private_key=`, `token=`, `_pwd=`, with any ' +
      'prefix (`DB_PASSWORD=`, `client_secret=`); the key and `=` stay',
    hint: String.raw`(?:${cased('secret', 'password', 'passwd', 'token', 'key', '_pwd')})\s*=`,
    minLength: 11,
    valueOnly: true,
  },
];

/** Properties that carry identifiers the graph joins on: never scrubbed, at any depth. */
export const PROTECTED_PROPERTIES: ReadonlySet<string> = new Set([
  'id',
  'name',
  'commit_sha',
  'sha',
  'digest',
  'digests',
  'repo_digests',
  'image',
  'image_ref',
  'ref',
  'refs',
  'repo_slug',
  'resolution_alias',
]);

/** Values shorter than every pattern's minimum skip even the pre-check. */
const MIN_CANDIDATE = Math.min(...SECRET_PATTERNS.map((p) => p.minLength));
/** Derived from the table, so a new row cannot be forgotten here: one scan that most values fail. */
const HINT = new RegExp(SECRET_PATTERNS.map((p) => `(?:${p.hint})`).join('|'));

export interface Redaction {
  kind: string;
  /** JSON pointer of the value, relative to the property bag (or to `basePath`). */
  path: string;
}

/** One walk: where it is (pointer segments, joined only when something is found) and what it found. */
interface Walk {
  base: string;
  segments: (string | number)[];
  redactions: Redaction[];
}

function escapePointer(key: string | number): string | number {
  return typeof key === 'number' || (!key.includes('~') && !key.includes('/'))
    ? key
    : key.replace(/~/g, '~0').replace(/\//g, '~1');
}

function pathOf(walk: Walk): string {
  let path = walk.base;
  for (const s of walk.segments) path += `/${escapePointer(s)}`;
  return path;
}

function scrubString(value: string, walk: Walk): string {
  if (value.length < MIN_CANDIDATE || !HINT.test(value)) return value;
  let out = value;
  for (const p of SECRET_PATTERNS) {
    if (out.length < p.minLength) continue;
    p.pattern.lastIndex = 0;
    if (!p.pattern.test(out)) continue;
    const replacement = `***redacted:${p.kind}***`;
    const path = pathOf(walk);
    // replace() restarts a global pattern at 0 itself.
    out = out.replace(p.pattern, (match: string, ...rest: unknown[]) => {
      walk.redactions.push({ kind: p.kind, path });
      if (!p.valueOnly) return replacement;
      // Captures come first in `rest`, then the numeric offset; redact the first one that matched.
      let secret: string | undefined;
      for (const r of rest) {
        if (typeof r === 'string') secret = r;
        if (typeof r !== 'undefined') break;
      }
      if (secret === undefined) return replacement;
      // The value ends the match, bar a closing quote.
      const at = match.lastIndexOf(secret);
      return match.slice(0, at) + replacement + match.slice(at + secret.length);
    });
  }
  return out;
}

/**
 * The walk recurses once per level. Bodies are guarded at MAX_BODY_DEPTH when parsed; a normalizer may nest
 * what it copies a few levels further, so the walk's own bound, a defence for any other caller, is twice that.
 */
export const MAX_SCRUB_DEPTH = 2 * MAX_BODY_DEPTH;

function scrubValue(value: unknown, walk: Walk): unknown {
  if (typeof value === 'string') return scrubString(value, walk);
  if (value === null || typeof value !== 'object') return value;
  if (walk.segments.length > MAX_SCRUB_DEPTH) {
    const pointer = pathOf(walk);
    throw new ProblemError('nesting-too-deep', `${pointer}: nested deeper than ${MAX_SCRUB_DEPTH} levels`, {
      errors: [{ pointer, detail: `nested deeper than ${MAX_SCRUB_DEPTH} levels` }],
    });
  }
  if (Array.isArray(value)) {
    let changed: unknown[] | null = null;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      walk.segments.push(i);
      const next = scrubValue(item, walk);
      walk.segments.pop();
      if (next !== item) (changed ??= value.slice())[i] = next;
    }
    return changed ?? value;
  }
  return scrubObject(value as Record<string, unknown>, walk);
}

function scrubObject(props: Record<string, unknown>, walk: Walk): Record<string, unknown> {
  let changed: Record<string, unknown> | null = null;
  for (const key in props) {
    if (!Object.hasOwn(props, key) || PROTECTED_PROPERTIES.has(key)) continue;
    const value = props[key];
    if (value === null || (typeof value !== 'string' && typeof value !== 'object')) continue;
    walk.segments.push(key);
    const next = scrubValue(value, walk);
    walk.segments.pop();
    // The spread makes `key` an own property, so assigning to it (even `__proto__`) stays a data write.
    if (next !== value) (changed ??= { ...props })[key] = next;
  }
  return changed ?? props;
}

/**
 * Scrubs one property bag, recursing into nested objects and arrays (strings only; keys are never
 * changed). Returns the same object when nothing matched, and otherwise a copy: the input is not mutated.
 * `basePath` prefixes each redaction's JSON pointer.
 */
export function scrubProperties(
  props: Record<string, unknown>,
  basePath = '',
): { props: Record<string, unknown>; redactions: Redaction[] } {
  const walk: Walk = { base: basePath, segments: [], redactions: [] };
  return { props: scrubObject(props, walk), redactions: walk.redactions };
}

/**
 * Scrubs one free text with the same table (every kind, names included): what leaves the service for a
 * third party, such as an AI provider's prompt (src/ai/prompt.ts), where no property is protected.
 */
export function scrubText(text: string): { text: string; redactions: Redaction[] } {
  const walk: Walk = { base: '', segments: [], redactions: [] };
  return { text: scrubString(text, walk), redactions: walk.redactions };
}

/**
 * Scrubs every node's and edge's properties IN PLACE (ingest owns the parsed body, so copying 100k nodes
 * would be waste) and returns the same envelope. A node or edge that lost a secret gets
 * `secrets_scrubbed: true`; the others keep their very property objects. Node ids and names and edge
 * endpoints are not properties and are never looked at. Pointers are into the envelope:
 * `/nodes/3/properties/env/0`.
 */
export function scrubEnvelope(envelope: EventEnvelope): {
  envelope: EventEnvelope;
  redactions: { kind: string; pointer: string }[];
} {
  // One walk for the whole envelope: no per-node pointer strings or arrays unless something is found.
  const walk: Walk = { base: '', segments: [], redactions: [] };
  // Frozen property objects are shared by many edges of one kind (a normalizer's `handOver`): one found clean
  // is clean for all of them (69,000 of a 50,000-object cluster dump's 102,000 edges).
  const clean = new Set<object>();
  const scrubOwner = (owner: { properties?: Record<string, unknown> }, list: string, index: number) => {
    const properties = owner.properties;
    if (properties === undefined || properties === null || typeof properties !== 'object') return;
    const shared = Object.isFrozen(properties);
    if (shared && clean.has(properties)) return;
    const before = walk.redactions.length;
    walk.segments.push(list, index, 'properties');
    const props = scrubObject(properties, walk);
    walk.segments.length = 0;
    if (walk.redactions.length === before) {
      if (shared) clean.add(properties);
      return;
    }
    // `props` is a fresh copy whenever something was redacted, so marking it touches nothing shared.
    props[PROP.secretsScrubbed] = true;
    owner.properties = props;
  };
  const { nodes, edges } = envelope;
  for (let i = 0; i < nodes.length; i++) scrubOwner(nodes[i], 'nodes', i);
  for (let i = 0; i < edges.length; i++) scrubOwner(edges[i], 'edges', i);
  const all = walk.redactions.map((r) => ({ kind: r.kind, pointer: r.path }));
  return { envelope, redactions: all };
}
