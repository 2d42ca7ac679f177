// Tickets on the API listener: POST /tickets (admin; one open ticket per path), GET /tickets (the work
// board), POST /tickets/{id}/close (admin). A credential bound to applications sees and writes only tickets
// of paths through them; a path it may not see is as unknown as one that does not exist.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { pathFilter } from '../../src/auth/scope.js';
import type { Engine } from '../../src/engine/engine.js';
import { dispatchTicket, type Ticket, type TicketStore } from '../../src/governance/tickets.js';
import { ProblemError } from '../../src/http/problems.js';
import { reportSchema } from '../../src/ingest/sources/report-schema.js';
import { routeNodes } from '../../src/paths/path-store.js';

interface NewTicket {
  pathId: string;
  owner: string;
}

export function registerTicketRoutes(
  app: FastifyInstance,
  deps: { engine: Engine; tickets: TicketStore; webhookUrl?: string; now: () => number },
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
    if (!deps.webhookUrl) return ticket;
    ticket.dispatch = await dispatchTicket(deps.webhookUrl, event, request.tenant, ticket, deps.now());
    if (ticket.dispatch?.error)
      request.log.warn({ ticket: ticket.id, error: ticket.dispatch.error }, 'ticket dispatch failed');
    store.update(request.tenant, ticket);
    return ticket;
  };

  app.post('/tickets', { config: { access: 'write' } }, async (request, reply) => {
    const body = check(request.body);
    const record = visiblePath(request, body.pathId);
    if (!record)
      throw new ProblemError('not-found', `no attack path ${body.pathId} in this tenant`, {
        errors: [{ pointer: '/pathId', value: body.pathId, detail: 'unknown path' }],
      });
    const open = store.openFor(request.tenant, body.pathId);
    if (open)
      throw new ProblemError('conflict', `path ${body.pathId} already has an open ticket, ${open.id}`, {
        ticket: open.id,
      });
    const nodes = routeNodes(record);
    const ticket = store.create(request.tenant, {
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
      const ticket = store.get(request.tenant, request.params.id);
      if (!ticket || (request.principal.apps && !visiblePath(request, ticket.pathId)))
        throw new ProblemError('not-found', `no ticket ${request.params.id}`);
      if (ticket.state === 'closed')
        throw new ProblemError('conflict', `ticket ${ticket.id} is already closed`, { ticket: ticket.id });
      ticket.state = 'closed';
      ticket.closedAt = new Date(deps.now()).toISOString();
      ticket.closedBy = request.principal.subject;
      store.update(request.tenant, ticket);
      return dispatch(request, 'ticket.closed', ticket);
    },
  );
}
