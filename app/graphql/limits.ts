// What one GraphQL request may ask for, and what one answer may carry (docs/security.md, GraphQL cost).
// Without these, 100 aliases of `attackPaths { nodes steps }` on a tenant with 2,012 paths built a 467 MB
// answer and froze both listeners, and 1,000 aliases ran the process out of heap.
//
// Libraries, chosen for graphql 16 + mercurius 16 + Node 20:
// - @escape.tech/graphql-armor-max-aliases, -max-depth, -max-directives: plain graphql-js validation rules
//   (mercurius `validationRules`), fragment-aware, maintained together; they stop validation at the first
//   operation over the limit, before graphql-js' own rules walk a 1,000-alias document.
// - graphql-query-complexity: cost from estimators that see the field's arguments and a request context,
//   so a list is priced by its real length (`attackPaths`: the tenant's paths, or `first`). graphql-armor's
//   cost-limit prices every object alike and cannot see list sizes; graphql-depth-limit is unmaintained
//   and only does depth. The cost runs in mercurius' preExecution hook, where the variables and the caller's
//   tenant are known, so mercurius' cache of validated documents stays on.
// - Tokens are counted with graphql-js' own lexer before the document is parsed (its parser's `maxTokens`
//   names no count we could report).
// graphql ships a CommonJS copy (`main`) and an ES module copy (`module`) whose classes do not recognise
// each other; mercurius requires the CommonJS one, so it is named here for every runtime (Node resolves
// `graphql` to it anyway, Vite and Vitest would pick the other).
// A limit broken answers one `query-limit` problem (400, application/problem+json) naming the setting,
// its value and what the request had: the mercurius error formatter rethrows it to the listener's problem
// handler instead of answering GraphQL's 200-with-errors.
import type { FastifyInstance } from 'fastify';
import {
  GraphQLError,
  Kind,
  Lexer,
  NoSchemaIntrospectionCustomRule,
  Source,
  TokenKind,
  getNullableType,
  isIntrospectionType,
  isListType,
  isObjectType,
  isInputObjectType,
  isEnumType,
  isInterfaceType,
  isUnionType,
  getOperationAST,
  type DocumentNode,
  type GraphQLSchema,
  type ValidationContext,
  type ValidationRule,
} from 'graphql/index.js';
import mercurius from 'mercurius';
import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import { maxDirectivesRule } from '@escape.tech/graphql-armor-max-directives';
import { getComplexity, type ComplexityEstimator } from 'graphql-query-complexity';
import type { GraphqlLimits } from '../../src/config/settings.js';
import { ProblemError } from '../../src/http/problems.js';
import { HEAVY_FIELDS } from './analyses/heavy.js';
import { CONNECTION_PAGE, type GraphqlContext } from './resolvers.js';
import { AnalysisBusyError, AnalysisDeadlineError } from '../../src/analysis/analysis-service.js';
import { MAX_POINTS as HISTORY_MAX_POINTS } from '../../src/governance/history.js';
import {
  DEFAULT_FIRST as SEARCH_DEFAULT_FIRST,
  MAX_FIRST as SEARCH_MAX_FIRST,
} from '../../src/search/query.js';

export type LimitName =
  | 'GRAPHQL_MAX_ALIASES'
  | 'GRAPHQL_MAX_DEPTH'
  | 'GRAPHQL_MAX_DIRECTIVES'
  | 'GRAPHQL_MAX_TOKENS'
  | 'GRAPHQL_MAX_COST'
  | 'GRAPHQL_MAX_PATHS'
  | 'GRAPHQL_MAX_VARIABLES_BYTES'
  | 'GRAPHQL_MAX_LIST_ITEMS'
  | 'GRAPHQL_MAX_ITERATIONS'
  | 'GRAPHQL_INTROSPECTION';

/** A request over a limit: the `query-limit` problem, with `limit`, `max` and (when counted) `actual`. */
export class QueryLimitError extends ProblemError {
  constructor(limit: LimitName, max: number | boolean, actual: number | undefined, detail: string) {
    super('query-limit', detail, { limit, max, ...(actual !== undefined && { actual }) });
  }
}

/**
 * Route lengths are known only once a route is materialized: the cost prices a route at this many nodes
 * (and one hop fewer), the length of a long route in the estates we have seen. GRAPHQL_MAX_PATHS bounds
 * what an underestimate could cost.
 */
export const ROUTE_NODES_ESTIMATE = 6;
/** A list with no better measure (`violations`, computed when asked, and any list added later). */
export const LIST_ESTIMATE = 100;

/** Heavy analyses (app/graphql/analyses.ts): each costs this much on top of its answer. */
export const HEAVY_FIELD_COST = 1_000;
const HEAVY_FIELD_NAMES = new Set<string>(HEAVY_FIELDS);
/** A search's work beyond its answer: every word looked up by prefix and typo in the tenant's index. */
export const SEARCH_COST = 10;
/** A remediation plan's items at most (src/analysis/remediation-plan.ts). */
const PLAN_ITEMS_ESTIMATE = 20;
const PROFILE_COUNT = 3;

const COUNTED = {
  GRAPHQL_MAX_ALIASES: 'aliases',
  GRAPHQL_MAX_DEPTH: 'levels of nesting',
  GRAPHQL_MAX_DIRECTIVES: 'directives',
} as const;

/**
 * graphql-armor reports "… limit of N exceeded, found M." in its message only; the count is read back from
 * it (the versions are pinned by package-lock.json, and test/app/graphql-limits.test.ts checks the count).
 */
function armorReject(limit: keyof typeof COUNTED, max: number) {
  return (_context: ValidationContext | null, error: GraphQLError) => {
    const found = /found (\d+)/.exec(error.message);
    const actual = found ? Number(found[1]) : undefined;
    throw new QueryLimitError(
      limit,
      max,
      actual,
      `the query has ${actual ?? `more than ${max}`} ${COUNTED[limit]}; ${limit} allows ${max}`,
    );
  };
}

/** GRAPHQL_INTROSPECTION: graphql-js' own rule, its report turned into the limit problem. */
const introspectionOff: ValidationRule = (context) =>
  NoSchemaIntrospectionCustomRule(
    Object.create(context, {
      reportError: {
        value: (error: GraphQLError) => {
          const field = error.nodes?.[0] && 'name' in error.nodes[0] ? error.nodes[0].name?.value : undefined;
          throw new QueryLimitError(
            'GRAPHQL_INTROSPECTION',
            false,
            undefined,
            `schema introspection (${field ?? '__schema'}) is off on this service (by default while API auth is on); GRAPHQL_INTROSPECTION=true allows it`,
          );
        },
      },
    }) as ValidationContext,
  );

/** GRAPHQL_MAX_LIST_ITEMS for lists written in the document (variables are counted with the cost). */
function listItemsRule(max: number): ValidationRule {
  return (context) => ({
    Argument(argument) {
      const value = argument.value;
      if (value.kind !== Kind.LIST || value.values.length <= max) return;
      const field = context.getParentType()?.name === 'Query' ? context.getFieldDef()?.name : undefined;
      throw listItemsError(`${field ?? 'field'}(${argument.name.value}:)`, value.values.length, max);
    },
  });
}

function listItemsError(argument: string, actual: number, max: number): QueryLimitError {
  return new QueryLimitError(
    'GRAPHQL_MAX_LIST_ITEMS',
    max,
    actual,
    `${argument} has ${actual} entries; GRAPHQL_MAX_LIST_ITEMS allows ${max}`,
  );
}

/** The validation rules (run once per distinct document; mercurius caches documents that pass). */
export function limitRules(limits: GraphqlLimits, options: { introspection: boolean }): ValidationRule[] {
  const rules: ValidationRule[] = [
    // An alias on a heavy analysis is not counted here: the spec caps those per request (20) and answers
    // the ones past the cap with a per-field error, which the alias limit (15) would otherwise make
    // unreachable. Their cost (HEAVY_FIELD_COST each) still bounds how many a request may name, and aliases
    // inside a heavy field's selection still count (docs/api.md, "Heavy analyses and the alias limit").
    maxAliasesRule({
      n: limits.maxAliases,
      allowList: ['__typename', ...HEAVY_FIELD_NAMES],
      onReject: [armorReject('GRAPHQL_MAX_ALIASES', limits.maxAliases)],
    }),
    // `__schema` is left to the cost: the introspection query GraphiQL sends is 21 levels deep by this
    // count; its lists are priced there by the schema's sizes, and graphql-js' own
    // MaxIntrospectionDepthRule refuses `fields { type { fields … } }` nested past three.
    maxDepthRule({
      n: limits.maxDepth,
      ignoreIntrospection: true,
      onReject: [armorReject('GRAPHQL_MAX_DEPTH', limits.maxDepth)],
    }),
    maxDirectivesRule({
      n: limits.maxDirectives,
      onReject: [armorReject('GRAPHQL_MAX_DIRECTIVES', limits.maxDirectives)],
    }),
    listItemsRule(limits.maxListItems),
  ];
  if (!options.introspection) rules.push(introspectionOff);
  return rules;
}

/** GRAPHQL_MAX_TOKENS, counted with graphql-js' lexer (comments are not tokens) and stopped at the limit. */
export function checkTokens(source: string, max: number): void {
  const lexer = new Lexer(new Source(source));
  let count = 0;
  try {
    while (lexer.advance().kind !== TokenKind.EOF) {
      if (++count > max)
        throw new QueryLimitError(
          'GRAPHQL_MAX_TOKENS',
          max,
          undefined,
          `the document has more than ${max} tokens; GRAPHQL_MAX_TOKENS allows ${max}`,
        );
    }
  } catch (error) {
    // A syntax error is the parser's to report, with its position.
    if (error instanceof QueryLimitError) throw error;
  }
}

/**
 * Introspection lists priced at their mean length over the schema (types for `__Type` lists, fields and
 * directives for `args`): `__schema { types { fields { args } } }` then costs what it returns, and nesting
 * `fields { type { fields … } }` still multiplies its way past the limit.
 */
function introspectionSizes(schema: GraphQLSchema): Map<string, number> {
  const types = Object.values(schema.getTypeMap());
  const directives = schema.getDirectives();
  const mean = (sizes: number[]) => Math.max(1, Math.ceil(sizes.reduce((a, b) => a + b, 0) / sizes.length));
  const fields = types.map((t) =>
    isObjectType(t) || isInterfaceType(t) ? Object.values(t.getFields()) : [],
  );
  return new Map([
    ['__Schema.types', types.length],
    ['__Schema.directives', Math.max(1, directives.length)],
    ['__Type.fields', mean(fields.map((f) => f.length))],
    [
      '__Type.inputFields',
      mean(types.map((t) => (isInputObjectType(t) ? Object.keys(t.getFields()).length : 0))),
    ],
    ['__Type.enumValues', mean(types.map((t) => (isEnumType(t) ? t.getValues().length : 0)))],
    [
      '__Type.interfaces',
      mean(types.map((t) => (isObjectType(t) || isInterfaceType(t) ? t.getInterfaces().length : 0))),
    ],
    ['__Type.possibleTypes', mean(types.map((t) => (isUnionType(t) ? t.getTypes().length : 0)))],
    ['__Field.args', mean(fields.flat().map((f) => f.args.length))],
    ['__Directive.args', mean(directives.map((d) => d.args.length))],
    ['__Directive.locations', mean(directives.map((d) => d.locations.length))],
  ]);
}

/** How many entries `attackPaths(...)` can return: the tenant's paths in that state, or `first` if fewer. */
function attackPathsLength(ctx: GraphqlContext, args: Record<string, unknown>): number {
  const state = ctx.engine.tenant(ctx.tenant);
  if (!state) return 0;
  // Filters (priority, target, minScore, after) only shrink the list: the unfiltered count bounds it.
  const total = (args.state ?? 'OPEN') === 'OPEN' ? state.paths.open().length : state.paths.size;
  return typeof args.first === 'number' ? Math.max(0, Math.min(args.first, total)) : total;
}

/** How many hits `search(first:)` can return (the default page, or `first` within its bounds). */
function searchPageLength(first: unknown): number {
  return typeof first === 'number' ? Math.max(0, Math.min(first, SEARCH_MAX_FIRST)) : SEARCH_DEFAULT_FIRST;
}

/** What one request asks of the heavy analyses, summed while it is priced (aliases and fragments included). */
interface Tally {
  iterations: number;
}

/**
 * Each field is one value; a list is one value plus its length times one entry's cost. List arguments
 * (GRAPHQL_MAX_LIST_ITEMS, here with variables coerced) and Monte Carlo iterations are checked on the way.
 */
function estimator(schema: GraphQLSchema, limits: GraphqlLimits): (tally: Tally) => ComplexityEstimator {
  const introspection = introspectionSizes(schema);
  return (tally) =>
    ({ type, field, args, childComplexity, context }) => {
      for (const [name, value] of Object.entries(args))
        if (Array.isArray(value) && value.length > limits.maxListItems)
          throw listItemsError(`${field.name}(${name}:)`, value.length, limits.maxListItems);
      if (type.name === 'Query' && typeof args.iterations === 'number') {
        tally.iterations += args.iterations;
        if (tally.iterations > limits.maxIterations)
          throw new QueryLimitError(
            'GRAPHQL_MAX_ITERATIONS',
            limits.maxIterations,
            tally.iterations,
            `the request asks for ${tally.iterations} Monte Carlo iterations (riskSimulation and whatIf together); GRAPHQL_MAX_ITERATIONS allows ${limits.maxIterations}`,
          );
      }
      // A heavy analysis is priced for its work as well as its answer (at most 20 run per request anyway).
      const work = type.name === 'Query' && HEAVY_FIELD_NAMES.has(field.name) ? HEAVY_FIELD_COST : 0;
      // A connection's edges are priced as one entry here and multiplied by the page where it is asked for.
      if (type.name === 'Query' && field.name === 'attackPathsConnection')
        return (
          1 +
          attackPathsLength(context as GraphqlContext, { first: CONNECTION_PAGE, ...args }) * childComplexity
        );
      if (type.name === 'AttackPathConnection' && field.name === 'edges') return 1 + childComplexity;
      // gateVerdicts: priced by its page; neighbourhood: by its limit (nodes, and edges up to twice as many).
      if (type.name === 'Query' && field.name === 'gateVerdicts')
        return 1 + (typeof args.first === 'number' ? Math.max(0, args.first) : 50) * childComplexity;
      if (type.name === 'GateVerdictConnection' && field.name === 'edges') return 1 + childComplexity;
      if (type.name === 'Query' && field.name === 'neighbourhood')
        return 1 + (typeof args.limit === 'number' ? Math.max(0, args.limit) : 2000) * childComplexity;
      if (type.name === 'Neighbourhood' && (field.name === 'nodes' || field.name === 'edges'))
        return 1 + (field.name === 'edges' ? 2 : 1) * (1 + childComplexity);
      // A search page holds `first` hits at most (an out-of-range first is refused by the resolver).
      if (type.name === 'Query' && field.name === 'search')
        return SEARCH_COST + 1 + searchPageLength(args.first) * childComplexity;
      if (type.name === 'SearchConnection' && field.name === 'edges') return 1 + childComplexity;
      if (!isListType(getNullableType(field.type))) return work + 1 + childComplexity;
      const key = `${type.name}.${field.name}`;
      let length: number;
      if (key === 'Query.attackPaths') length = attackPathsLength(context as GraphqlContext, args);
      else if (key === 'Query.kShortestPaths') length = typeof args.k === 'number' ? Math.max(0, args.k) : 5;
      else if (key === 'Query.remediationPlan') length = PLAN_ITEMS_ESTIMATE;
      else if (key === 'WhatIfResult.closedPaths' || key === 'WhatIfResult.remainingPaths')
        length = attackPathsLength(context as GraphqlContext, {});
      else if (key === 'History.trend') length = HISTORY_MAX_POINTS;
      else if (key === 'AttackPath.profileScores' || key === 'RiskSimulation.profileCompromise')
        length = PROFILE_COUNT;
      else if (key === 'RankedRoute.nodes' || key === 'WhatIfPath.nodes') length = ROUTE_NODES_ESTIMATE;
      else if (key === 'RankedRoute.steps') length = ROUTE_NODES_ESTIMATE - 1;
      else if (key === 'AttackPath.nodes') length = ROUTE_NODES_ESTIMATE;
      else if (key === 'AttackPath.steps') length = ROUTE_NODES_ESTIMATE - 1;
      else length = introspection.get(key) ?? (isIntrospectionType(type) ? 1 : LIST_ESTIMATE);
      return work + 1 + length * (1 + childComplexity);
    };
}

const TOO_MANY_SELECTIONS = /maximum allowed number of nodes/;

/** The operation the request names (GraphQL's own selection), or why none can be chosen. */
function executedOperation(document: DocumentNode, operationName: string | undefined) {
  const operation = getOperationAST(document, operationName);
  if (operation) return operation;
  const count = document.definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION).length;
  throw new Error(
    operationName !== undefined
      ? `the document has no operation named ${JSON.stringify(operationName)}`
      : `the document holds ${count} operations and operationName names none of them`,
  );
}

/**
 * GRAPHQL_MAX_COST for one request: exactly the operation that will run (the others never run, and their
 * variables are not this request's). Fragments are expanded where they are spread; a document whose
 * expansion alone passes the limit (fragments spreading fragments) is refused without being priced. A
 * request that cannot be priced is refused (fail closed): it would otherwise run unpriced.
 */
function checkCost(
  schema: GraphQLSchema,
  estimate: (tally: Tally) => ComplexityEstimator,
  document: DocumentNode,
  operationName: string | undefined,
  variables: Record<string, unknown> | undefined,
  context: GraphqlContext,
  max: number,
): void {
  let cost: number;
  try {
    const operation = executedOperation(document, operationName);
    const priced: DocumentNode = {
      kind: Kind.DOCUMENT,
      definitions: [operation, ...document.definitions.filter((d) => d.kind === Kind.FRAGMENT_DEFINITION)],
    };
    cost = getComplexity({
      schema,
      query: priced,
      variables,
      operationName: operation.name?.value,
      context: context as unknown as Record<string, unknown>,
      estimators: [estimate({ iterations: 0 })],
      maxQueryNodes: max,
    });
  } catch (error) {
    if (error instanceof QueryLimitError) throw error;
    if (error instanceof GraphQLError && TOO_MANY_SELECTIONS.test(error.message))
      throw new QueryLimitError(
        'GRAPHQL_MAX_COST',
        max,
        undefined,
        `the query expands to more than ${max} field selections; GRAPHQL_MAX_COST allows ${max}`,
      );
    throw new QueryLimitError(
      'GRAPHQL_MAX_COST',
      max,
      undefined,
      `the request cannot be priced: ${(error as Error).message}; it is refused rather than run unpriced`,
    );
  }
  if (cost > max)
    throw new QueryLimitError(
      'GRAPHQL_MAX_COST',
      max,
      cost,
      `the answer would hold about ${cost} values; GRAPHQL_MAX_COST allows ${max}: ask for fewer fields or aliases, or page attackPaths with first/after`,
    );
}

/** GRAPHQL_MAX_VARIABLES_BYTES: the variables as sent (a GET's JSON text, a POST body's object re-encoded). */
function checkVariables(variables: unknown, max: number): void {
  if (variables === undefined || variables === null) return;
  const bytes = Buffer.byteLength(typeof variables === 'string' ? variables : JSON.stringify(variables));
  if (bytes > max)
    throw new QueryLimitError(
      'GRAPHQL_MAX_VARIABLES_BYTES',
      max,
      bytes,
      `the variables take ${bytes} bytes; GRAPHQL_MAX_VARIABLES_BYTES allows ${max}`,
    );
}

/** What the request itself says (mercurius hands its hooks neither operationName nor raw variables). */
function requestParts(context: GraphqlContext): { operationName?: string; variables?: unknown } {
  const request = (context as { reply?: { request?: { body?: unknown; query?: unknown } } }).reply?.request;
  const from = (request?.body ?? request?.query) as
    { operationName?: unknown; variables?: unknown } | undefined;
  const name = from?.operationName;
  return {
    operationName: typeof name === 'string' && name !== '' ? name : undefined,
    variables: from?.variables,
  };
}

/**
 * The answer being built. GRAPHQL_MAX_PATHS: path records one answer carries, counted as resolvers hand
 * them out. Audit views are held until the answer is complete (mercurius' onResolution): a request the
 * limit stops half-way was shown nothing, so it writes no view record.
 */
export class AnswerBudget {
  private paths = 0;
  private held: (() => void)[] = [];
  constructor(private readonly maxPaths: number) {}

  /** Runs `record` once the answer is complete; never if a limit stops it. */
  hold(record: () => void): void {
    this.held.push(record);
  }

  release(): void {
    for (const record of this.held.splice(0)) record();
  }

  /** Called before `count` more path records join the answer; throws once the answer would pass the limit. */
  takePaths(count: number): void {
    this.paths += count;
    if (this.paths > this.maxPaths)
      throw new QueryLimitError(
        'GRAPHQL_MAX_PATHS',
        this.maxPaths,
        this.paths,
        `the answer would carry at least ${this.paths} path records; GRAPHQL_MAX_PATHS allows ${this.maxPaths}: page attackPaths with first/after`,
      );
  }
}

/** A limit error behind GraphQL's wrapping, if any: thrown from validation, a hook or a resolver. */
/** Problems of the body as the listener read it (app/plugins/http-base.ts). */
const BODY_PROBLEMS = new Set([
  'malformed-json',
  'nesting-too-deep',
  'payload-too-large',
  'unsupported-media-type',
  'invalid-payload',
]);

/** A POST /graphql body that is JSON but not a GraphQL request: 400 `invalid-payload` naming the pointer. */
export class RequestShapeError extends ProblemError {
  constructor(pointer: string, expected: string, value: unknown) {
    const shown = value === undefined ? 'nothing' : JSON.stringify(value)?.slice(0, 80);
    super(
      'invalid-payload',
      `${pointer || 'the body'} must be ${expected} (a GraphQL request: {"query": "...", "variables": {...}, "operationName": "..."}), got ${shown}`,
      { errors: [{ pointer, detail: `must be ${expected}`, value }] },
    );
  }
}

/**
 * The body of POST /graphql: an object with `query` a string, `variables` an object and `operationName` a
 * string (either may be null or absent), checked before mercurius reads it (a number in `query` reached
 * the executor and answered 200 with an internal message).
 */
export function checkRequestShape(body: unknown): void {
  const kind = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
  if (kind(body) !== 'object') throw new RequestShapeError('', 'a JSON object', body);
  const { query, variables, operationName } = body as Record<string, unknown>;
  if (typeof query !== 'string' || query.trim() === '')
    throw new RequestShapeError('/query', 'a non-empty string holding a GraphQL document', query);
  if (variables !== undefined && variables !== null && kind(variables) !== 'object')
    throw new RequestShapeError('/variables', 'an object (or null)', variables);
  if (operationName !== undefined && operationName !== null && typeof operationName !== 'string')
    throw new RequestShapeError('/operationName', 'a string (or null)', operationName);
}

/** fastify's own refusals of a body (content type, JSON syntax, size): the listener answers them as problems. */
function isBodyError(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && code.startsWith('FST_ERR_CTP_');
}

function limitError(errors: readonly GraphQLError[]): Error | undefined {
  for (const error of errors) {
    const original: unknown = error.originalError;
    // Heavy analyses at capacity or past their deadline answer the whole request, as any limit does; so
    // does a body the listener refused (too large, not JSON, not a GraphQL request), which never reached
    // GraphQL. Resolvers' own problems (a bad cursor, say) stay GraphQL errors.
    if (original instanceof ProblemError) {
      if (original instanceof QueryLimitError || original instanceof AnalysisBusyError) return original;
      if (original instanceof AnalysisDeadlineError || original instanceof RequestShapeError) return original;
      if (BODY_PROBLEMS.has(original.problem.type.slice(original.problem.type.lastIndexOf(':') + 1)))
        return original;
    }
    if (isBodyError(original)) return original as Error;
    // mercurius wraps validation failures in one error carrying them as `errors`.
    const inner = (original as { errors?: unknown } | undefined)?.errors;
    if (Array.isArray(inner)) {
      const found = limitError(inner.filter((e): e is GraphQLError => e instanceof GraphQLError));
      if (found) return found;
    }
  }
  return undefined;
}

/**
 * The mercurius options that carry the limits: validation rules, one query per request, and an error
 * formatter that rethrows a limit error so the listener's error handler answers it as problem+json.
 */
export function limitOptions(limits: GraphqlLimits, options: { introspection: boolean }) {
  return {
    validationRules: limitRules(limits, options),
    // A batch would multiply everything above by its length.
    allowBatchedQueries: false,
    errorFormatter: ((execution, context) => {
      const limit = limitError(execution.errors ?? []);
      if (limit) throw limit;
      return mercurius.defaultErrorFormatter(execution, context);
    }) satisfies NonNullable<mercurius.MercuriusCommonOptions['errorFormatter']>,
  };
}

/**
 * The per-request checks: tokens before parsing, cost before execution; held views released once the
 * answer is complete. Call once mercurius is registered.
 */
export function registerLimitHooks(app: FastifyInstance, limits: GraphqlLimits): void {
  const estimate = estimator(app.graphql.schema, limits);
  app.graphql.addHook<GraphqlContext>('preParsing', async (_schema, source, context) => {
    checkVariables(requestParts(context).variables, limits.maxVariablesBytes);
    checkTokens(source, limits.maxTokens);
  });
  app.graphql.addHook<GraphqlContext>('preExecution', async (schema, document, context, variables) => {
    const { operationName } = requestParts(context);
    checkCost(schema, estimate, document, operationName, variables, context, limits.maxCost);
  });
  // Reached only when the error formatter did not refuse the answer.
  app.graphql.addHook<Record<string, unknown>, GraphqlContext>(
    'onResolution',
    async (_execution, context) => {
      context.answer?.release();
    },
  );
}
