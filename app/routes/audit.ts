// GET /audit (admin): the audit chain read back for the dashboard's Governance page, newest first, paged
// by sequence number, filtered by action, with the chain's verification. An admin bound to a tenant reads
// that tenant's records; an admin bound to none (the service's) also reads the records that name no tenant
// (refusals before a tenant was settled, lockouts, prunes). A credential bound to applications is refused:
// the log is not divided by application. docs/security.md.
import type { FastifyInstance } from 'fastify';
import { AUDIT_EVENTS, type AuditRecord } from '../../src/audit/audit-log.js';
import type { AuditReader } from '../../src/audit/audit-reader.js';
import { ProblemError } from '../../src/http/problems.js';

export const MAX_AUDIT_PAGE = 500;

interface AuditQuery {
  first?: string;
  after?: string;
  action?: string;
}

/** What a record is about, in a few words: the route a request reached, the paths read, the batch taken. */
export function auditTarget(record: AuditRecord): string | null {
  const f = record.fields;
  const ids = Array.isArray(f.path_ids) ? (f.path_ids as unknown[]).filter((x) => typeof x === 'string') : [];
  if (ids.length)
    return `${ids.length} path${ids.length === 1 ? '' : 's'}: ${ids.slice(0, 3).join(', ')}${ids.length > 3 ? ', …' : ''}`;
  if (typeof f.batch_id === 'string') return `${String(f.source ?? 'ingest')} batch ${f.batch_id}`;
  if (typeof f.method === 'string' && typeof f.path === 'string')
    return `${f.method} ${f.path}${typeof f.status === 'number' ? ` → ${f.status}` : ''}`;
  if (typeof f.through_seq === 'number') return `records through ${f.through_seq}`;
  return null;
}

function whole(name: string, text: string, min: number, max: number): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < min || value > max)
    throw new ProblemError(
      'invalid-query',
      `${name} must be a whole number ${min} to ${max}, got ${JSON.stringify(text.slice(0, 100))}`,
      {
        errors: [{ pointer: `/query/${name}`, detail: `${min} to ${max}` }],
      },
    );
  return value;
}

export function registerAuditRoute(app: FastifyInstance, deps: { reader?: AuditReader }): void {
  app.get<{ Querystring: AuditQuery }>('/audit', { config: { access: 'admin' } }, async (request) => {
    const reader = deps.reader;
    if (!reader)
      throw new ProblemError(
        'not-found',
        'the audit log is off: set AUDIT_LOG_PATH (or the PostgreSQL governance backend) to keep one',
      );
    if (request.principal.apps)
      throw new ProblemError(
        'forbidden',
        `the audit log is not divided by application; this credential is bound to ${request.principal.apps.join(', ')}`,
      );
    const q = request.query;
    const first = q.first === undefined ? 50 : whole('first', q.first, 1, MAX_AUDIT_PAGE);
    const after = q.after === undefined ? undefined : whole('after', q.after, 1, Number.MAX_SAFE_INTEGER);
    if (q.action !== undefined && !(AUDIT_EVENTS as readonly string[]).includes(q.action))
      throw new ProblemError(
        'invalid-query',
        `action must be one of ${AUDIT_EVENTS.join(', ')}; got ${JSON.stringify(q.action.slice(0, 100))}`,
        { errors: [{ pointer: '/query/action', detail: 'an audit event' }] },
      );
    const tenant = request.tenant;
    const service = request.principal.tenant === undefined;
    const [records, chain] = await Promise.all([reader.records(), reader.verify()]);
    const mine: AuditRecord[] = [];
    // Newest first: the chain is in sequence order.
    for (let i = records.length - 1; i >= 0; i--) {
      const r = records[i];
      if (r.tenant !== tenant && !(service && r.tenant === null)) continue;
      if (q.action !== undefined && r.event !== q.action) continue;
      mine.push(r);
    }
    const from = after === undefined ? 0 : mine.findIndex((r) => r.seq < after);
    const start = from < 0 ? mine.length : from;
    const page = mine.slice(start, start + first);
    // The whole chain's size is every tenant's activity: a tenant's admin learns only whether it holds.
    const { records: _records, ...verdict } = chain;
    return {
      backend: reader.backend,
      chain: service ? chain : verdict,
      totalCount: mine.length,
      entries: page.map((r) => ({
        seq: r.seq,
        at: r.ts,
        action: r.event,
        actor: r.subject,
        tenant: r.tenant,
        target: auditTarget(r),
        fields: r.fields,
      })),
      pageInfo: { hasNextPage: start + first < mine.length, endCursor: page.at(-1)?.seq ?? null },
    };
  });
}
