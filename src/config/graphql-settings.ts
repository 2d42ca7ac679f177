// GraphQL request limits (GRAPHQL_*): read by loadSettings (settings.ts).
import { type Reader, parseBoolean, wholeNumber } from './parsers.js';

/** GraphQL request limits (docs/security.md, GraphQL cost); a request over one is refused with a 400. */
export interface GraphqlLimits {
  maxAliases: number;
  maxDepth: number;
  maxDirectives: number;
  maxTokens: number;
  /** estimated values in the answer: each field 1, each list times its expected length */
  maxCost: number;
  /** path records one answer may carry, all fields and aliases together */
  maxPaths: number;
  /** bytes of one POST /graphql body, refused while it is read, before JSON parsing */
  maxBodyBytes: number;
  /** bytes of one request's variables (as JSON), refused before they are coerced */
  maxVariablesBytes: number;
  /** entries of one list argument (`whatIf(cuts:)`), written in the document or passed as a variable */
  maxListItems: number;
  /** Monte Carlo iterations one request may ask for, every riskSimulation and whatIf together */
  maxIterations: number;
  /** GRAPHQL_INTROSPECTION; unset: introspection is on only while API auth is off */
  introspection?: boolean;
}

export const DEFAULT_GRAPHQL_LIMITS: Readonly<GraphqlLimits> = {
  maxAliases: 15,
  maxDepth: 10,
  maxDirectives: 50,
  maxTokens: 2_000,
  maxCost: 250_000,
  maxPaths: 10_000,
  maxBodyBytes: 256 * 1024,
  maxVariablesBytes: 64 * 1024,
  maxListItems: 100,
  maxIterations: 1_000_000,
};

export function readGraphqlLimits(read: Reader): GraphqlLimits {
  const d = DEFAULT_GRAPHQL_LIMITS;
  return {
    maxAliases: read('GRAPHQL_MAX_ALIASES', wholeNumber(0, 10_000), d.maxAliases),
    maxDepth: read('GRAPHQL_MAX_DEPTH', wholeNumber(1, 1_000), d.maxDepth),
    maxDirectives: read('GRAPHQL_MAX_DIRECTIVES', wholeNumber(0, 10_000), d.maxDirectives),
    maxTokens: read('GRAPHQL_MAX_TOKENS', wholeNumber(100, 1_000_000), d.maxTokens),
    maxCost: read('GRAPHQL_MAX_COST', wholeNumber(1, 100_000_000), d.maxCost),
    maxPaths: read('GRAPHQL_MAX_PATHS', wholeNumber(1, 10_000_000), d.maxPaths),
    maxBodyBytes: read('GRAPHQL_MAX_BODY_BYTES', wholeNumber(1024, 32 * 1024 * 1024), d.maxBodyBytes),
    maxVariablesBytes: read(
      'GRAPHQL_MAX_VARIABLES_BYTES',
      wholeNumber(0, 32 * 1024 * 1024),
      d.maxVariablesBytes,
    ),
    maxListItems: read('GRAPHQL_MAX_LIST_ITEMS', wholeNumber(1, 100_000), d.maxListItems),
    maxIterations: read('GRAPHQL_MAX_ITERATIONS', wholeNumber(1, 100_000_000), d.maxIterations),
    introspection: read<boolean | undefined>('GRAPHQL_INTROSPECTION', parseBoolean, undefined),
  };
}
