// Tickets on the API listener: POST /tickets (admin; one open ticket per path), GET /tickets (the work
// board), POST /tickets/{id}/close (admin). A credential bound to applications sees and writes only tickets
// of paths through them; a path it may not see is as unknown as one that does not exist.
import type { OutboundWebhook } from '../../src/config/security-settings.js';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { pathFilter } from '../../src/auth/scope.js';
import type { Engine } from '../../src/engine/engine.js';
import { dispatchTicket, type Ticket, type TicketStore } from '../../src/governance/tickets.js';
import { ProblemError } from '../../src/http/problems.js';
import { reportSchema } from '../../src/ingest/sources/report-schema.js';
import { routeNodes } from '../../src/paths/path-store.js';
import { governed } from './visible-path.js';

interface NewTicket {
  pathId: string;
  owner: string;
}

export function registerTicketRoutes(
  app: FastifyInstance,
  deps: { engine: Engine; tickets: TicketStore; webhook?: OutboundWebhook; now: () => number },
): void {
  const store = deps.tickets;
  const check = reportSchema<NewTicket>('ticket', {
    type: 'object',
    required: ['pathId', 'owner'],
    additionalProperties: false,
    properties: {
      pathId: { type: 'string', pattern: '^ap-[0-9a-f]{16}$' },
      owner: { type: 'string', minLength: 1, maxLength: 200, pattern: '\\S' },
    },
  });
  /** The path, if this caller may see it. */
  const visiblePath = (request: FastifyRequest, pathId: string) => {
    const tenant = deps.engine.tenant(request.tenant);
    const record = tenant?.paths.get(pathId);
    if (!record || !pathFilter(request.principal, tenant?.graph)(record)) return undefined;
    return record;
  };
  const dispatch = async (
    request: FastifyRequest,
    event: 'ticket.opened' | 'ticket.closed',
    ticket: Ticket,
  ) => {
    // Each tenant's tickets go to its own URL only; a tenant without one sends nothing.
    const url = deps.webhook?.urls.get(request.tenant);
    if (!url) return ticket;
    const sent = await dispatchTicket(url, event, request.tenant, ticket, deps.now(), deps.webhook?.secret);
    if (sent?.error) request.log.warn({ ticket: ticket.id, error: sent.error }, 'ticket dispatch failed');
    const stored = await governed(
      store.change(request.tenant, ticket.id, (held) => ({ ...held, dispatch: sent })),
    );
    return typeof stored === 'object' ? stored : { ...ticket, dispatch: sent };
  };

  app.post('/tickets', { config: { access: 'write' } }, async (request, reply) => {
    const body = check(request.body);
    const record = visiblePath(request, body.pathId);
    if (!record)
      throw new ProblemError('not-found', `no attack path ${body.pathId} in this tenant`, {
        errors: [{ pointer: '/pathId', value: body.pathId, detail: 'unknown path' }],
      });
    const nodes = routeNodes(record);
    // One open ticket per path, checked against the stored tickets (another replica's included).
    const { ticket, created } = await governed(
      store.create(request.tenant, {
        pathId: body.pathId,
        owner: body.owner.trim(),
        route: {
          start: nodes[0].name,
          target: nodes.at(-1)!.name,
          score: record.score,
          priority: record.priority,
        },
        createdAt: new Date(deps.now()).toISOString(),
        createdBy: request.principal.subject,
      }),
    );
    if (!created)
      throw new ProblemError('conflict', `path ${body.pathId} already has an open ticket, ${ticket.id}`, {
        ticket: ticket.id,
      });
    return reply.code(201).send(await dispatch(request, 'ticket.opened', ticket));
  });

  app.get<{ Querystring: { state?: string } }>('/tickets', async (request) => {
    const state = request.query.state ?? 'all';
    if (!['open', 'closed', 'all'].includes(state))
      throw new ProblemError(
        'invalid-query',
        `state must be open, closed or all, not ${JSON.stringify(state)}`,
        {
          errors: [{ pointer: '/query/state', value: state, detail: 'open, closed or all' }],
        },
      );
    await governed(store.refresh(request.tenant));
    const scoped = request.principal.apps !== undefined;
    return {
      tickets: store
        .list(request.tenant)
        .filter((t) => state === 'all' || t.state === state)
        .filter((t) => !scoped || visiblePath(request, t.pathId) !== undefined),
    };
  });

  app.post<{ Params: { id: string } }>(
    '/tickets/:id/close',
    { config: { access: 'write' } },
    async (request) => {
      await governed(store.refresh(request.tenant));
      const held = store.get(request.tenant, request.params.id);
      if (!held || (request.principal.apps && !visiblePath(request, held.pathId)))
        throw new ProblemError('not-found', `no ticket ${request.params.id}`);
      // Closed as stored: two replicas closing one ticket at once close it once.
      const closed = await governed(
        store.change(request.tenant, held.id, (ticket) =>
          ticket.state === 'closed'
            ? 'closed'
            : {
                ...ticket,
                state: 'closed',
                closedAt: new Date(deps.now()).toISOString(),
                closedBy: request.principal.subject,
              },
        ),
      );
      if (typeof closed !== 'object')
        throw new ProblemError('conflict', `ticket ${held.id} is already closed`, { ticket: held.id });
      return dispatch(request, 'ticket.closed', closed);
    },
  );
}
