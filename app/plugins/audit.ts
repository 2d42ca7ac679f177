// What the listeners write to the audit log (src/audit/audit-log.ts): every API request once answered,
// every refusal (`auth.deny`), lockouts (`auth.lockout.alert`), the attack paths a principal was shown
// (`view.attack_paths`, with their ids) and `exfil.alert` when one principal reads unusually many.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ExfilWatch, type AuditLog } from '../../src/audit/audit-log.js';
import type { Principal } from '../../src/auth/principal.js';

export interface Auditor {
  deny(request: FastifyRequest, surface: 'api' | 'ingest', reason: string): void;
  lockout(request: FastifyRequest, surface: 'api' | 'ingest'): void;
  view(principal: Principal, tenant: string, requestId: string, pathIds: readonly string[]): void;
  /** records each answered API request */
  register(app: FastifyInstance): void;
}

export function createAuditor(
  log: AuditLog,
  options: { exfilThreshold?: number; now: () => number },
): Auditor {
  const exfil = options.exfilThreshold !== undefined ? new ExfilWatch(options.exfilThreshold) : undefined;
  const who = (request: FastifyRequest) => request.principal?.subject ?? 'unauthenticated';
  const base = (request: FastifyRequest) => ({
    request_id: request.id,
    method: request.method,
    path: request.url.split('?')[0],
    client: request.clientIp,
  });
  return {
    deny(request, surface, reason) {
      log.append('auth.deny', { subject: who(request), fields: { ...base(request), surface, reason } });
    },
    lockout(request, surface) {
      log.append('auth.lockout.alert', { subject: 'unauthenticated', fields: { ...base(request), surface } });
    },
    view(principal, tenant, requestId, pathIds) {
      if (!pathIds.length) return;
      log.append('view.attack_paths', {
        subject: principal.subject,
        tenant,
        fields: { request_id: requestId, path_ids: [...pathIds] },
      });
      if (exfil?.read(principal.subject, pathIds, options.now())) {
        log.append('exfil.alert', {
          subject: principal.subject,
          tenant,
          fields: { request_id: requestId, threshold: options.exfilThreshold, window: '1h' },
        });
      }
    },
    register(app) {
      app.addHook('onResponse', async (request, reply) => {
        log.append('request', {
          subject: who(request),
          tenant: request.principal ? request.tenant : null,
          fields: { ...base(request), status: reply.statusCode },
        });
      });
    },
  };
}
