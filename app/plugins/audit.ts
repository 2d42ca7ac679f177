// What the listeners write to the audit log (src/audit/audit-log.ts): every API request once answered,
// every refusal (`auth.deny`, naming the principal that was refused when it authenticated), lockouts
// (`auth.lockout.alert`), every accepted ingest request (`ingest.accepted`), every AI question
// (`ai.ask`), the attack paths a request was shown (`view.attack_paths`) and whose routes it read
// (`view.graph`), exports (`export.oscal`, `export.ndjson`, `export.graph`), and `exfil.alert` when one principal reads
// unusually many paths. View records are gathered per request and written once, when the answer is sent: a
// query naming the same field many times (aliases) makes one record, not one per alias.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ExfilWatch, type AuditLog, type ExportFormat } from '../../src/audit/audit-log.js';
import type { Principal } from '../../src/auth/principal.js';
import { admittedTenant } from './api-auth.js';

export interface IngestAudit {
  /** the tenant the report was routed to */
  tenant: string;
  source: string;
  /** `v1`/`v2` when signed, absent when ingest is open */
  signature?: string;
  batchId: string;
  nodes: number;
  edges: number;
}

/** An AI question (`POST /ai/ask`): never the question itself, which may quote anything, only its hash. */
export interface AiAudit {
  /** SHA-256 (hex) of the question as asked */
  questionSha256: string;
  pathId?: string;
  provider: string;
  model: string;
  /** `answered`, `unverified`, `failed` (the provider failed), `cancelled` (the client went away) */
  outcome: string;
  citations: string[];
  unresolved: string[];
  inputTokens: number;
  outputTokens: number;
}

export interface Auditor {
  deny(request: FastifyRequest, surface: 'api' | 'ingest', reason: string): void;
  lockout(request: FastifyRequest, surface: 'api' | 'ingest'): void;
  /** the paths a request was shown (written once per request, when it is answered) */
  view(request: FastifyRequest, pathIds: readonly string[]): void;
  /** the paths whose routes (nodes and hops of the graph) a request read */
  viewGraph(request: FastifyRequest, pathIds: readonly string[]): void;
  /**
   * an export (`export.oscal`, `export.ndjson`: the paths it carried; `export.graph`: the path asked for,
   * if any, and what the export held in `extra`), written at once
   */
  export(
    request: FastifyRequest,
    format: ExportFormat,
    pathIds: readonly string[],
    extra?: Record<string, unknown>,
  ): void;
  /** an AI question answered (or failed at the provider), written at once */
  ai(request: FastifyRequest, asked: AiAudit): void;
  /** an ingest request that was accepted (answered 202) */
  ingest(request: FastifyRequest, accepted: IngestAudit): void;
  /** records each answered API request, after the views it gathered */
  register(app: FastifyInstance): void;
}

interface Seen {
  paths: Set<string>;
  graph: Set<string>;
}

export function createAuditor(
  log: Pick<AuditLog, 'append'>,
  options: { exfilThreshold?: number; now: () => number },
): Auditor {
  const exfil = options.exfilThreshold !== undefined ? new ExfilWatch(options.exfilThreshold) : undefined;
  const seen = new WeakMap<FastifyRequest, Seen>();
  const principalOf = (request: FastifyRequest): Principal | undefined => request.principal ?? undefined;
  const who = (request: FastifyRequest) => principalOf(request)?.subject ?? 'unauthenticated';
  const base = (request: FastifyRequest) => ({
    request_id: request.id,
    method: request.method,
    path: request.url.split('?')[0],
    client: request.clientIp,
  });
  const gather = (request: FastifyRequest) => {
    let entry = seen.get(request);
    if (!entry) seen.set(request, (entry = { paths: new Set(), graph: new Set() }));
    return entry;
  };
  const watch = (subject: string, tenant: string | null, requestId: string, pathIds: Iterable<string>) => {
    if (!exfil?.read(subject, [...pathIds], options.now())) return;
    log.append('exfil.alert', {
      subject,
      tenant,
      fields: { request_id: requestId, threshold: options.exfilThreshold, window: '1h' },
    });
  };
  /** Writes what a request was shown, once. */
  const flush = (request: FastifyRequest) => {
    const entry = seen.get(request);
    if (!entry) return;
    seen.delete(request);
    const subject = who(request);
    const tenant = admittedTenant(request);
    if (entry.paths.size)
      log.append('view.attack_paths', {
        subject,
        tenant,
        fields: { request_id: request.id, path_ids: [...entry.paths] },
      });
    if (entry.graph.size)
      log.append('view.graph', {
        subject,
        tenant,
        fields: { request_id: request.id, path_ids: [...entry.graph] },
      });
    watch(subject, tenant, request.id, new Set([...entry.paths, ...entry.graph]));
  };
  return {
    deny(request, surface, reason) {
      const principal = principalOf(request);
      const asked = request.headers['x-tenant'];
      log.append('auth.deny', {
        subject: who(request),
        fields: {
          ...base(request),
          surface,
          reason,
          ...(principal && { role: principal.role }),
          // The tenant the refused request named (a tenant refusal's target), cut short: it is the client's.
          ...(typeof asked === 'string' && asked !== '' && { tenant_asked: asked.slice(0, 100) }),
        },
      });
    },
    lockout(request, surface) {
      log.append('auth.lockout.alert', { subject: 'unauthenticated', fields: { ...base(request), surface } });
    },
    view(request, pathIds) {
      const into = gather(request).paths;
      for (const id of pathIds) into.add(id);
    },
    viewGraph(request, pathIds) {
      const into = gather(request).graph;
      for (const id of pathIds) into.add(id);
    },
    export(request, format, pathIds, extra) {
      const subject = who(request);
      const tenant = admittedTenant(request);
      log.append(`export.${format}`, {
        subject,
        tenant,
        fields: { ...base(request), ...extra, path_ids: [...pathIds] },
      });
      watch(subject, tenant, request.id, pathIds);
    },
    ai(request, asked) {
      log.append('ai.ask', {
        subject: who(request),
        tenant: admittedTenant(request),
        fields: {
          ...base(request),
          question_sha256: asked.questionSha256,
          path_id: asked.pathId ?? null,
          provider: asked.provider,
          model: asked.model,
          outcome: asked.outcome,
          citations: asked.citations,
          unresolved: asked.unresolved,
          tokens: { input: asked.inputTokens, output: asked.outputTokens },
        },
      });
    },
    ingest(request, accepted) {
      log.append('ingest.accepted', {
        // Signed ingest speaks for the tenant whose secret signed it; open ingest for nobody in particular.
        subject: accepted.signature ? `hmac:${accepted.tenant}` : 'open',
        tenant: accepted.tenant,
        fields: {
          ...base(request),
          surface: 'ingest',
          source: accepted.source,
          signature: accepted.signature ?? null,
          batch_id: accepted.batchId,
          nodes: accepted.nodes,
          edges: accepted.edges,
        },
      });
    },
    register(app) {
      app.addHook('onResponse', async (request, reply) => {
        flush(request);
        log.append('request', {
          subject: who(request),
          tenant: admittedTenant(request),
          fields: { ...base(request), status: reply.statusCode },
        });
      });
    },
  };
}
