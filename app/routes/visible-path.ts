// What governance routes share: the path a caller may see. A credential bound to applications sees only
// paths through them; a path it may not see is as unknown as one that does not exist (404, not 403).
import type { FastifyRequest } from 'fastify';
import { pathFilter } from '../../src/auth/scope.js';
import type { Engine } from '../../src/engine/engine.js';
import { GovernanceUnavailable } from '../../src/governance/store.js';
import { ProblemError } from '../../src/http/problems.js';
import type { PathRecord } from '../../src/paths/path-store.js';

export function visiblePath(engine: Engine, request: FastifyRequest, pathId: string): PathRecord | undefined {
  const tenant = engine.tenant(request.tenant);
  const record = tenant?.paths.get(pathId);
  if (!record || !pathFilter(request.principal, tenant?.graph)(record)) return undefined;
  return record;
}

export function unknownPath(pathId: string, pointer = '/pathId'): ProblemError {
  return new ProblemError('not-found', `no attack path ${pathId} in this tenant`, {
    errors: [{ pointer, value: pathId, detail: 'unknown path' }],
  });
}

export const PATH_ID_PATTERN = '^ap-[0-9a-f]{16}$';

/**
 * A governance write or fresh read, with the store unreachable (GOVERNANCE_BACKEND=postgres and PostgreSQL
 * down) answered as 503 `unavailable` with Retry-After: the write was not made, and the client is told so.
 */
export async function governed<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof GovernanceUnavailable) throw new ProblemError('unavailable', error.message);
    throw error;
  }
}
