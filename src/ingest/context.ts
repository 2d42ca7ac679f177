// The query parameters every ingest path shares (spec "Ingest listener"): pull-request context
// (slug, pr, sha), which is stamped on the nodes a report contains, and `snapshot`, which declares that
// a report describes a whole scope so that what it omits is retracted ("Snapshot rules").
import { ProblemError } from '../http/problems.js';
import type { EventEnvelope, FieldError } from './envelope.js';
import type { IngestSource, NormalizeOutput } from './sources/source.js';

export interface IngestContext {
  slug?: string;
  pr?: number;
  sha?: string;
  /** `none`, `cluster:<name>` or `<provider>:<account_id>/<region>`, as given. */
  snapshot?: string;
}

const SLUG = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})\/[A-Za-z0-9._-]{1,100}$/;
const SHA = /^[0-9a-f]{7,64}$/i;
const PR = /^[1-9][0-9]{0,9}$/;
const SNAPSHOT =
  /^(?:none|cluster:[A-Za-z0-9._:-]{1,253}|[a-z][a-z0-9-]{0,31}:[A-Za-z0-9._-]{1,64}\/[a-z0-9-]{1,64})$/;

/** Reads and checks the shared parameters; a bad one is a 400 naming `/query/<param>`. */
export function readIngestContext(query: Record<string, string | undefined>): IngestContext {
  const errors: FieldError[] = [];
  const context: IngestContext = {};
  const check = (name: keyof IngestContext, shape: RegExp, expected: string): string | undefined => {
    const value = query[name];
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || !shape.test(value)) {
      errors.push({ pointer: `/query/${name}`, value, detail: `expected ${expected}` });
      return undefined;
    }
    return value;
  };
  context.slug = check('slug', SLUG, '<owner>/<repo>');
  const pr = check('pr', PR, 'a pull request number (a positive integer)');
  if (pr !== undefined) context.pr = Number(pr);
  const sha = check('sha', SHA, 'a commit SHA (7 to 64 hex characters)');
  if (sha !== undefined) context.sha = sha.toLowerCase();
  context.snapshot = check('snapshot', SNAPSHOT, 'none, cluster:<name> or <provider>:<account_id>/<region>');
  if (errors.length) {
    throw new ProblemError('invalid-query', `${errors[0].pointer}: ${errors[0].detail}`, { errors });
  }
  for (const key of Object.keys(context) as (keyof IngestContext)[])
    if (context[key] === undefined) delete context[key];
  return context;
}

export function isPullRequestScan(context: IngestContext): boolean {
  return context.slug !== undefined || context.pr !== undefined || context.sha !== undefined;
}

/**
 * Refuses what can never be a complete snapshot before the report is even normalized: a scope asked for
 * on a pull-request scan, or on a source that declares its own scope.
 */
export function checkSnapshotRequest(source: IngestSource, context: IngestContext): void {
  const asked = context.snapshot;
  if (asked === undefined || asked === 'none') return;
  if (isPullRequestScan(context)) {
    throw new ProblemError(
      'snapshot-refused',
      `snapshot=${asked} on a pull-request scan: a scan of a change (slug, pr or sha given) is never complete`,
      { errors: [{ pointer: '/query/snapshot', value: asked, detail: 'not allowed with slug, pr or sha' }] },
    );
  }
  if (source.snapshots === 'self') {
    throw new ProblemError(
      'snapshot-refused',
      `snapshot=${asked}: ${source.name} reports declare their own scope; only snapshot=none (a partial report) is accepted`,
      {
        errors: [
          { pointer: '/query/snapshot', value: asked, detail: 'only none is accepted for this source' },
        ],
      },
    );
  }
}

/**
 * The scope this report completes, if any, qualified by source so that two tools' scopes of the same
 * name never retract each other's data. Undefined for partial reports and pull-request scans.
 */
export function completenessScope(
  source: IngestSource,
  context: IngestContext,
  output: NormalizeOutput,
): string | undefined {
  if (isPullRequestScan(context) || context.snapshot === 'none') return undefined;
  const scope = source.snapshots === 'self' ? output.scope : context.snapshot;
  return scope === undefined ? undefined : `${source.name}|${scope}`;
}

/**
 * Stamps `repo_slug`, `pr_number` and `commit_sha` on every node the report contains (not on those it
 * only mentions), so that comments and statuses can be routed back to the change.
 */
export function stampPullRequest(
  envelopes: EventEnvelope[],
  context: IngestContext,
  mentioned: readonly string[] = [],
): void {
  if (!isPullRequestScan(context)) return;
  const stamp: Record<string, unknown> = {};
  if (context.slug !== undefined) stamp.repo_slug = context.slug;
  if (context.pr !== undefined) stamp.pr_number = context.pr;
  if (context.sha !== undefined) stamp.commit_sha = context.sha;
  const skip = new Set(mentioned);
  for (const envelope of envelopes) {
    for (const node of envelope.nodes) {
      if (skip.has(node.id)) continue;
      node.properties = { ...node.properties, ...stamp };
    }
  }
}
