// Exports on the API listener: GET /export/ndjson (one attack path per line, streamed), GET /export/oscal
// (NIST OSCAL 1.1.2 assessment results), GET /export/graph (a neighbourhood in graphology's format,
// graph-export.ts), GET /export/pubkey (the Ed25519 key that verifies them). Each export is signed
// (`X-Service-Signature`, src/export/signing.ts), limited to the caller's applications when its credential
// is bound to some, and written to the audit log (`export.ndjson`, `export.oscal`, `export.graph`).
import { createReadStream, existsSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { pathFilter } from '../../src/auth/scope.js';
import type { Engine } from '../../src/engine/engine.js';
import { ndjsonLines } from '../../src/export/ndjson.js';
import { oscalChunks } from '../../src/export/oscal.js';
import { spool, SPOOL_FILE, type Spooled } from '../../src/export/spool.js';
import { exportedPath } from '../../src/export/path-record.js';
import { SIGNATURE_HEADER, type ExportSigner } from '../../src/export/signing.js';
import { SpoolLimits, type SpoolLimitSettings, type SpoolSlot } from '../../src/export/spool-limits.js';
import { scopeOf, type ExportContext } from '../../src/export/statement.js';
import { ProblemError } from '../../src/http/problems.js';
import type { PathRecord } from '../../src/paths/path-store.js';
import type { Auditor } from '../plugins/audit.js';
import { VERSION } from '../version.js';
import { registerGraphExport } from './graph-export.js';

const FORMAT_OF: Record<ExportContext['kind'], ExportContext['format']> = {
  paths: 'ndjson',
  'assessment-results': 'oscal-json',
  graph: 'graphology-json',
};

export function registerExportRoutes(
  app: FastifyInstance,
  deps: {
    engine: Engine;
    signer: ExportSigner;
    dataDir: string;
    audit?: Auditor;
    now: () => number;
    limits: SpoolLimitSettings;
  },
): void {
  const { engine, signer } = deps;
  const limits = new SpoolLimits(deps.limits);
  /** One caller: its credential within its tenant. */
  const callerOf = (request: FastifyRequest) => `${request.tenant}|${request.principal.subject}`;
  const contextOf = (
    request: FastifyRequest,
    kind: ExportContext['kind'],
    state: ExportContext['state'],
  ): ExportContext => ({
    tenant: request.tenant,
    kind,
    format: FORMAT_OF[kind],
    scope: scopeOf(request.principal.apps),
    state,
    time: new Date(deps.now()).toISOString(),
  });
  const spoolDir = path.join(deps.dataDir, 'exports');
  // Spool files a killed process left behind are never answers any more.
  clearSpool(spoolDir);
  /** The caller's paths: open ones (or all, resolved included), within its applications. */
  const selection = (request: FastifyRequest, state: string): PathRecord[] => {
    const tenant = engine.tenant(request.tenant);
    if (!tenant) return [];
    const list = state === 'all' ? [...tenant.paths.all()] : tenant.paths.open();
    const visible = pathFilter(request.principal, tenant.graph);
    return request.principal.apps ? list.filter(visible) : [...list];
  };
  const line = (request: FastifyRequest) => (record: PathRecord) =>
    exportedPath(
      record,
      engine.isCritical(request.tenant, record),
      engine.suppressionOf(request.tenant, record.id),
    );

  /**
   * Streams a spooled export out with its signature (over its context and digest). The spool file and the
   * caller's slot go once the answer is sent, abandoned by the client, or cut off after EXPORT_SEND_TIMEOUT.
   */
  const send = (
    request: FastifyRequest,
    reply: FastifyReply,
    spooled: Spooled,
    slot: SpoolSlot,
    context: ExportContext,
    type: string,
    filename: string,
  ) => {
    const stream = createReadStream(spooled.file);
    const timer = setTimeout(() => {
      request.log.warn(
        { tenant: context.tenant, kind: context.kind, bytes: spooled.bytes },
        'export not read within EXPORT_SEND_TIMEOUT: cut off, spool file removed',
      );
      stream.destroy();
      reply.raw.destroy();
    }, deps.limits.sendTimeoutMs);
    timer.unref();
    const done = () => {
      clearTimeout(timer);
      slot.release();
      void spooled.remove();
    };
    stream.on('close', done);
    // A client gone before the end: the file is closed (and removed) now, not when the socket times out.
    reply.raw.on('close', () => {
      if (!stream.destroyed) stream.destroy();
    });
    return reply
      .header('content-type', type)
      .header('content-length', spooled.bytes)
      .header('content-disposition', `attachment; filename="${filename}"`)
      .header(SIGNATURE_HEADER, signer.signExport(context, spooled.sha256))
      .send(stream);
  };

  /** Spools an export within the caller's share and the spool cap; the slot is the caller's until sent. */
  const spoolFor = async (request: FastifyRequest, ext: 'ndjson' | 'json', chunks: Iterable<string>) => {
    const slot = limits.enter(callerOf(request));
    try {
      return { slot, spooled: await spool(spoolDir, ext, chunks, (bytes) => slot.add(bytes)) };
    } catch (error) {
      slot.release();
      throw error;
    }
  };

  app.get<{ Querystring: { state?: string } }>('/export/ndjson', async (request, reply) => {
    const state = request.query.state ?? 'open';
    if (state !== 'open' && state !== 'all')
      throw new ProblemError('invalid-query', `state must be open or all, not ${JSON.stringify(state)}`, {
        errors: [{ pointer: '/query/state', value: state, detail: 'open or all' }],
      });
    const records = selection(request, state);
    const { slot, spooled } = await spoolFor(request, 'ndjson', ndjsonLines(records, line(request)));
    deps.audit?.export(
      request,
      'ndjson',
      records.map((r) => r.id),
    );
    return send(
      request,
      reply,
      spooled,
      slot,
      contextOf(request, 'paths', state),
      'application/x-ndjson; charset=utf-8',
      `pathgate-${request.tenant}-paths.ndjson`,
    );
  });

  app.get('/export/oscal', async (request, reply) => {
    const records = selection(request, 'open');
    const lastPass = engine.tenant(request.tenant)?.lastPass?.at;
    const toPath = line(request);
    const { slot, spooled } = await spoolFor(
      request,
      'json',
      oscalChunks({
        tenant: request.tenant,
        applications: request.principal.apps,
        version: VERSION,
        generatedAt: new Date(deps.now()).toISOString(),
        analysedAt: lastPass ? new Date(lastPass).toISOString() : null,
        // Built afresh on each pass, one path at a time: never all held at once.
        paths: function* () {
          for (const record of records) yield toPath(record);
        },
      }),
    );
    deps.audit?.export(
      request,
      'oscal',
      records.map((r) => r.id),
    );
    return send(
      request,
      reply,
      spooled,
      slot,
      contextOf(request, 'assessment-results', 'open'),
      'application/json; charset=utf-8',
      `pathgate-${request.tenant}-assessment-results.json`,
    );
  });

  // The neighbourhood of a node or a path's route in graphology's format (graph-export.ts).
  registerGraphExport(app, {
    engine,
    audit: deps.audit,
    now: deps.now,
    export: async (request, reply, chunks, kind, state, filename) => {
      const { slot, spooled } = await spoolFor(request, 'json', chunks);
      return send(
        request,
        reply,
        spooled,
        slot,
        contextOf(request, kind, state),
        'application/json; charset=utf-8',
        filename,
      );
    },
  });

  app.get('/export/pubkey', async () => ({
    algorithm: 'Ed25519',
    keyId: signer.keyId,
    publicKey: signer.publicKeyPem,
    header: 'X-Service-Signature',
    signs:
      'pathgate-export/v2: tenant, kind, format, scope, state, time and sha256 (of the body), one key=value a line; the header carries it as statement=<base64url>',
  }));
}

function clearSpool(dir: string): void {
  if (!existsSync(dir)) return;
  for (const name of readdirSync(dir))
    if (SPOOL_FILE.test(name)) rmSync(path.join(dir, name), { force: true });
}
