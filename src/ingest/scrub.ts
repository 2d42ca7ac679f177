// Secret scrubbing at ingest: high-precision patterns are redacted from property values before anything
// is journaled, as `***redacted:<kind>***`, and the node is marked `secrets_scrubbed`. Identifiers the
// graph joins on (ids, names, commit SHAs, digests, refs) are never touched. docs/scrubbing.md lists the kinds.
import type { EventEnvelope } from './envelope.js';

export interface SecretPattern {
  kind: string;
  pattern: RegExp;
  description: string;
  /** For assignments: the capture group holding the secret value; the rest of the match is kept. */
  valueGroup?: number;
}

/** The one table of patterns. Each must be global (`g`) so every occurrence is replaced. */
export const SECRET_PATTERNS: readonly SecretPattern[] = [
  {
    kind: 'private-key',
    pattern:
      /-----BEGIN (?:RSA |EC |DSA |OPENSSH |ENCRYPTED |PGP )?PRIVATE KEY(?: BLOCK)?-----[\s\S]*?-----END (?:RSA |EC |DSA |OPENSSH |ENCRYPTED |PGP )?PRIVATE KEY(?: BLOCK)?-----/g,
    description: 'PEM private key blocks, BEGIN to END',
  },
  {
    kind: 'aws-access-key',
    pattern: /\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|APKA)[0-9A-Z]{16}\b/g,
    description: 'AWS access key ids',
  },
  {
    kind: 'aws-secret-key',
    pattern: /\baws_?secret_?(?:access_?)?key\b\s*[:=]\s*["']?([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])/gi,
    description: 'AWS secret access keys in an assignment',
    valueGroup: 1,
  },
  {
    kind: 'google-api-key',
    pattern: /\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/g,
    description: 'Google API keys',
  },
  {
    kind: 'github-token',
    pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b/g,
    description: 'GitHub tokens (classic and fine-grained)',
  },
  {
    kind: 'gitlab-token',
    pattern: /\bglpat-[A-Za-z0-9_-]{20,}(?![A-Za-z0-9_-])/g,
    description: 'GitLab personal access tokens',
  },
  {
    kind: 'slack-token',
    pattern: /\bxox[abprs]-[A-Za-z0-9-]{10,}/g,
    description: 'Slack bot, user and app tokens',
  },
  {
    kind: 'slack-webhook',
    pattern: /https:\/\/hooks\.slack\.com\/services\/T[A-Za-z0-9]+\/B[A-Za-z0-9]+\/[A-Za-z0-9]+/g,
    description: 'Slack incoming webhook URLs',
  },
  {
    kind: 'jwt',
    pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}/g,
    description: 'JSON Web Tokens (signed: three base64url parts)',
  },
  {
    kind: 'secret-assignment',
    pattern:
      /\b(?:[A-Za-z0-9_]*_)?(?:secret|password|passwd|pwd|api_?key|apikey|token|client_secret|access_key|private_key)\s*=\s*["']?(?!\*\*\*redacted:)([^\s"'&;,]{6,})/gi,
    description: '`secret=`, `password=`, `api_key=`, `token=` ... assignments: the value after `=`',
    valueGroup: 1,
  },
];

/** Properties that carry identifiers the graph joins on: never scrubbed. */
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

/** The shortest string any pattern can match; shorter values are skipped without running a regex. */
const MIN_CANDIDATE = 16;
/** A cheap pre-check: every pattern needs one of these substrings (case-insensitive). */
const HINT =
  /(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|APKA)[0-9A-Z]{16}|AIza|secret|key|gh[pousr]_|github_pat_|glpat-|xox[abprs]-|hooks\.slack|eyJ|pass|pwd|token/i;

export interface Redaction {
  kind: string;
  path: string;
}

function scrubString(value: string, path: string, redactions: Redaction[]): string {
  if (value.length < MIN_CANDIDATE || !HINT.test(value)) return value;
  let out = value;
  for (const p of SECRET_PATTERNS) {
    p.pattern.lastIndex = 0;
    if (!p.pattern.test(out)) continue;
    p.pattern.lastIndex = 0;
    const replacement = `***redacted:${p.kind}***`;
    out = out.replace(p.pattern, (match: string, ...groups: unknown[]) => {
      redactions.push({ kind: p.kind, path });
      if (p.valueGroup === undefined) return replacement;
      const secret = groups[p.valueGroup - 1] as string;
      return match.slice(0, match.lastIndexOf(secret)) + replacement;
    });
  }
  return out;
}

function scrubValue(value: unknown, path: string, redactions: Redaction[]): unknown {
  if (typeof value === 'string') return scrubString(value, path, redactions);
  if (Array.isArray(value)) {
    let changed: unknown[] | null = null;
    for (let i = 0; i < value.length; i++) {
      const next = scrubValue(value[i], `${path}/${i}`, redactions);
      if (next !== value[i]) (changed ??= [...value])[i] = next;
    }
    return changed ?? value;
  }
  if (value !== null && typeof value === 'object')
    return scrubObject(value as Record<string, unknown>, path, redactions);
  return value;
}

function scrubObject(
  props: Record<string, unknown>,
  path: string,
  redactions: Redaction[],
): Record<string, unknown> {
  let changed: Record<string, unknown> | null = null;
  for (const key in props) {
    if (PROTECTED_PROPERTIES.has(key)) continue;
    const value = props[key];
    const next = scrubValue(value, `${path}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`, redactions);
    if (next !== value) (changed ??= { ...props })[key] = next;
  }
  return changed ?? props;
}

/** Scrubs one property bag; returns the same object when nothing matched. */
export function scrubProperties(
  props: Record<string, unknown>,
  basePath = '',
): { props: Record<string, unknown>; redactions: Redaction[] } {
  const redactions: Redaction[] = [];
  return { props: scrubObject(props, basePath, redactions), redactions };
}

/**
 * Scrubs every node's and edge's properties in place (ingest owns the parsed body) and marks nodes that
 * lost a secret with `secrets_scrubbed: true`. Node ids and names, and edge endpoints, are untouched.
 */
export function scrubEnvelope(envelope: EventEnvelope): {
  envelope: EventEnvelope;
  redactions: { kind: string; pointer: string }[];
} {
  const all: { kind: string; pointer: string }[] = [];
  envelope.nodes.forEach((node, i) => {
    if (!node.properties) return;
    const { props, redactions } = scrubProperties(node.properties, `/nodes/${i}/properties`);
    if (redactions.length) {
      node.properties = { ...props, secrets_scrubbed: true };
      for (const r of redactions) all.push({ kind: r.kind, pointer: r.path });
    }
  });
  envelope.edges.forEach((edge, i) => {
    if (!edge.properties) return;
    const { props, redactions } = scrubProperties(edge.properties, `/edges/${i}/properties`);
    if (redactions.length) {
      edge.properties = props;
      for (const r of redactions) all.push({ kind: r.kind, pointer: r.path });
    }
  });
  return { envelope, redactions: all };
}
