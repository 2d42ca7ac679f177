// IAM policy documents as AWS writes them: statements, action and resource patterns, conditions. Patterns
// are globs (`*` any run, `?` one character); actions match case-insensitively, resources (ARNs) as
// written. See the AWS policy evaluation logic documentation ("IAM JSON policy elements: Action,
// Resource, NotAction, NotResource, Condition").

import { readTimeTest, type TimeTest } from './time-condition.js';

export interface Statement {
  Sid?: string;
  Effect?: string;
  Action?: string | string[];
  NotAction?: string | string[];
  Resource?: string | string[];
  NotResource?: string | string[];
  Principal?: unknown;
  NotPrincipal?: unknown;
  Condition?: Record<string, Record<string, unknown>>;
}

export const list = (v: unknown): string[] =>
  v === undefined || v === null ? [] : Array.isArray(v) ? v.map(String) : [String(v)];

/** Statements of a policy document (a single statement or a list). */
export function statementsOf(document: unknown): Statement[] {
  if (!document || typeof document !== 'object') return [];
  const statement = (document as { Statement?: unknown }).Statement;
  const isStatement = (s: unknown): s is Statement => !!s && typeof s === 'object';
  if (!Array.isArray(statement)) return isStatement(statement) ? [statement] : [];
  // The document's own list when every entry is a statement (nothing here writes to it): no copy for
  // each of an account's 20,000 policies.
  for (const s of statement) if (!isStatement(s)) return statement.filter(isStatement);
  return statement as Statement[];
}

const hasWildcard = (pattern: string) => pattern.includes('*') || pattern.includes('?');

/** Compiled glob matchers, shared across documents: real accounts repeat the same few hundred patterns. */
const compiledActions = new Map<string, (value: string) => boolean>();
const compiledResources = new Map<string, (value: string) => boolean>();

function compile(pattern: string, caseInsensitive: boolean): (value: string) => boolean {
  if (pattern === '*') return () => true;
  if (!hasWildcard(pattern)) {
    if (!caseInsensitive) return (value) => value === pattern;
    const lower = pattern.toLowerCase();
    return (value) => value.length === lower.length && value.toLowerCase() === lower;
  }
  const regex = new RegExp(
    `^${pattern
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.')}$`,
    caseInsensitive ? 'is' : 's',
  );
  return (value) => regex.test(value);
}

function matcher(pattern: string, caseInsensitive: boolean): (value: string) => boolean {
  const cache = caseInsensitive ? compiledActions : compiledResources;
  let match = cache.get(pattern);
  if (!match) {
    match = compile(pattern, caseInsensitive);
    if (cache.size < 50_000) cache.set(pattern, match);
  }
  return match;
}

const services = new Map<string, string>();

/** `iam:PassRole` -> `iam` (lowercased), remembered: the evaluator asks about the same few actions. */
export function serviceOf(action: string): string {
  let service = services.get(action);
  if (service === undefined) {
    service = action.slice(0, Math.max(0, action.indexOf(':'))).toLowerCase();
    if (services.size < 10_000) services.set(action, service);
  }
  return service;
}

/** Does an action pattern (`iam:Create*`, `*`) cover an action? Case-insensitive, as IAM is. */
export function actionMatches(pattern: string, action: string): boolean {
  return matcher(pattern, true)(action);
}

/** Does a resource pattern cover a resource? A pattern also covers a narrower pattern it matches as text. */
export function resourceMatches(pattern: string, resource: string): boolean {
  return matcher(pattern, false)(resource);
}

/** A resource pattern naming literal resources only (no wildcard): a grant on it is resource-scoped. */
export const isLiteral = (pattern: string): boolean => !hasWildcard(pattern);

/** Replaces the policy variables we know (`${aws:username}`); a variable we cannot resolve matches nothing. */
export function substitute(pattern: string, variables: Readonly<Record<string, string>>): string | undefined {
  if (!pattern.includes('${')) return pattern;
  let unresolved = false;
  const out = pattern.replace(/\$\{([^}]+)\}/g, (_all, name: string) => {
    const lower = name.toLowerCase();
    if (lower === '*' || lower === '?' || lower === '$') return name;
    const value = variables[lower];
    if (value === undefined) unresolved = true;
    return value ?? '';
  });
  return unresolved ? undefined : out;
}

/** A statement's action patterns as a test (Action, or everything but NotAction). */
export function coversAction(s: Statement, action: string): boolean {
  if (s.Action !== undefined) return list(s.Action).some((p) => actionMatches(p, action));
  if (s.NotAction !== undefined) return !list(s.NotAction).some((p) => actionMatches(p, action));
  return false;
}

/** Condition keys whose meaning the evaluator applies; any other key makes a grant conditional. */
export const UNDERSTOOD_CONDITION_KEYS: ReadonlySet<string> = new Set([
  'iam:passedtoservice',
  'aws:currenttime',
  'aws:epochtime',
  'aws:tokenissuetime',
]);

export interface ReadCondition {
  /** services `iam:PassedToService` admits (globs), when the statement says */
  passedToService?: string[];
  /** tests on the request time against literal dates (time-condition.ts), all of which must hold */
  time?: TimeTest[];
  /** condition keys the evaluator does not apply (`aws:MultiFactorAuthPresent`, ...) */
  unknown: string[];
}

/** The conditions of a statement, split into those applied here and the rest. */
export function readCondition(condition: Statement['Condition']): ReadCondition {
  const out: ReadCondition = { unknown: [] };
  if (!condition || typeof condition !== 'object') return out;
  for (const [operator, block] of Object.entries(condition)) {
    if (!block || typeof block !== 'object') continue;
    for (const [key, value] of Object.entries(block)) {
      const k = key.toLowerCase();
      const op = operator.replace(/^ForAnyValue:|^ForAllValues:/i, '').toLowerCase();
      if (k === 'iam:passedtoservice' && (op === 'stringequals' || op === 'stringlike')) {
        out.passedToService = [...(out.passedToService ?? []), ...list(value)];
        continue;
      }
      // A set operator on a single-valued time key is not what AWS documents: left undecided.
      const time = op === operator.toLowerCase() ? readTimeTest(operator, key, value) : undefined;
      if (time) (out.time ??= []).push(time);
      else out.unknown.push(`${operator}:${key}`);
    }
  }
  return out;
}
