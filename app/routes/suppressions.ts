// Suppressions on the API listener (spec "Endpoints"): POST /suppressions (admin), GET /suppressions (the
// triage board, expired entries included, each with its state), DELETE /suppressions/{pathId} (admin).
// A credential bound to applications sees and suppresses only paths through its applications.
import type { FastifyInstance } from 'fastify';
import type { Engine } from '../../src/engine/engine.js';
import {
  DEFAULT_TTL_DAYS,
  expiryOf,
  MAX_TTL_DAYS,
  SUPPRESSION_REASONS,
  suppressionState,
  type Suppression,
  type SuppressionBook,
  type SuppressionReason,
} from '../../src/governance/suppressions.js';
import { ProblemError } from '../../src/http/problems.js';
import { reportSchema } from '../../src/ingest/sources/report-schema.js';
import { routeNodes } from '../../src/paths/path-store.js';
import { governed, PATH_ID_PATTERN, unknownPath, visiblePath } from './visible-path.js';

interface NewSuppression {
  pathId: string;
  reason: SuppressionReason;
  owner: string;
  note?: string;
  ttlDays?: number;
}

export function registerSuppressionRoutes(
  app: FastifyInstance,
  deps: { engine: Engine; suppressions: SuppressionBook; now: () => number },
): void {
  const { engine, suppressions } = deps;
  const check = reportSchema<NewSuppression>('suppression', {
    type: 'object',
    required: ['pathId', 'reason', 'owner'],
    additionalProperties: false,
    properties: {
      pathId: { type: 'string', pattern: PATH_ID_PATTERN },
      reason: { enum: [...SUPPRESSION_REASONS] },
      owner: { type: 'string', minLength: 1, maxLength: 200, pattern: '\\S' },
      note: { type: 'string', maxLength: 2000 },
      ttlDays: { type: 'integer', minimum: 1, maximum: MAX_TTL_DAYS },
    },
  });
  const view = (s: Suppression, at: number) => ({ ...s, state: suppressionState(s, at) });

  app.post('/suppressions', { config: { access: 'write' } }, async (request, reply) => {
    const body = check(request.body);
    const record = visiblePath(engine, request, body.pathId);
    if (!record) throw unknownPath(body.pathId);
    const at = deps.now();
    const ttlDays = body.ttlDays ?? DEFAULT_TTL_DAYS;
    const nodes = routeNodes(record);
    const suppression: Suppression = {
      pathId: record.id,
      reason: body.reason,
      owner: body.owner.trim(),
      note: body.note?.trim() || null,
      ttlDays,
      createdAt: new Date(at).toISOString(),
      createdBy: request.principal.subject,
      expiresAt: expiryOf(at, ttlDays),
      route: {
        start: nodes[0].name,
        target: nodes.at(-1)!.name,
        score: record.score,
        priority: record.priority,
      },
    };
    const replaced = await governed(suppressions.put(request.tenant, suppression));
    request.log.info(
      { pathId: record.id, reason: suppression.reason, owner: suppression.owner, ttlDays, replaced },
      'attack path suppressed',
    );
    return reply.code(replaced ? 200 : 201).send({ ...view(suppression, at), replaced });
  });

  app.get<{ Querystring: { state?: string } }>('/suppressions', async (request) => {
    const wanted = request.query.state ?? 'all';
    if (!['active', 'expired', 'all'].includes(wanted))
      throw new ProblemError(
        'invalid-query',
        `state must be active, expired or all, not ${JSON.stringify(wanted)}`,
        { errors: [{ pointer: '/query/state', value: wanted, detail: 'active, expired or all' }] },
      );
    // The board as stored: a suppression made on another replica a moment ago is on it.
    await governed(suppressions.refresh(request.tenant));
    const at = deps.now();
    const scoped = request.principal.apps !== undefined;
    return {
      suppressions: suppressions
        .list(request.tenant)
        .filter((s) => !scoped || visiblePath(engine, request, s.pathId) !== undefined)
        .map((s) => view(s, at))
        .filter((s) => wanted === 'all' || s.state === wanted)
        .sort((a, b) => (a.expiresAt < b.expiresAt ? -1 : a.expiresAt > b.expiresAt ? 1 : 0)),
    };
  });

  app.delete<{ Params: { pathId: string } }>(
    '/suppressions/:pathId',
    { config: { access: 'write' } },
    async (request) => {
      const { pathId } = request.params;
      await governed(suppressions.refresh(request.tenant));
      const held = suppressions.get(request.tenant, pathId);
      // A scoped caller may remove only what it may see; a path since resolved keeps its record, so it
      // is still checked against the caller's applications.
      if (!held || (request.principal.apps && !visiblePath(engine, request, pathId)))
        throw new ProblemError('not-found', `no suppression for ${pathId}`, {
          errors: [{ pointer: '/params/pathId', value: pathId, detail: 'not suppressed' }],
        });
      const removed = await governed(suppressions.remove(request.tenant, pathId));
      // Removed on another replica between the check and the write: as absent as it is now.
      if (!removed)
        throw new ProblemError('not-found', `no suppression for ${pathId}`, {
          errors: [{ pointer: '/params/pathId', value: pathId, detail: 'not suppressed' }],
        });
      request.log.info({ pathId }, 'attack path suppression removed');
      return { removed: view(removed, deps.now()) };
    },
  );
}
