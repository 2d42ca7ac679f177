// Exports on the API listener: GET /export/ndjson (one attack path per line, streamed), GET /export/oscal
// (NIST OSCAL 1.1.2 assessment results), GET /export/pubkey (the Ed25519 key that verifies them). Each
// export is signed (`X-Service-Signature`, src/export/signing.ts), limited to the caller's applications
// when its credential is bound to some, and written to the audit log (`export.ndjson`, `export.oscal`).
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
import { ProblemError } from '../../src/http/problems.js';
import type { PathRecord } from '../../src/paths/path-store.js';
import type { Auditor } from '../plugins/audit.js';
import { VERSION } from '../version.js';

export function registerExportRoutes(
  app: FastifyInstance,
  deps: { engine: Engine; signer: ExportSigner; dataDir: string; audit?: Auditor; now: () => number },
): void {
  const { engine, signer } = deps;
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

  /** Streams a spooled export out with its signature; the spool file goes once the answer is sent or abandoned. */
  const send = (reply: FastifyReply, spooled: Spooled, type: string, filename: string) => {
    const stream = createReadStream(spooled.file);
    stream.on('close', () => void spooled.remove());
    return reply
      .header('content-type', type)
      .header('content-length', spooled.bytes)
      .header('content-disposition', `attachment; filename="${filename}"`)
      .header(SIGNATURE_HEADER, signer.signDigest(spooled.sha256))
      .send(stream);
  };

  app.get<{ Querystring: { state?: string } }>('/export/ndjson', async (request, reply) => {
    const state = request.query.state ?? 'open';
    if (state !== 'open' && state !== 'all')
      throw new ProblemError('invalid-query', `state must be open or all, not ${JSON.stringify(state)}`, {
        errors: [{ pointer: '/query/state', value: state, detail: 'open or all' }],
      });
    const records = selection(request, state);
    const spooled = await spool(spoolDir, 'ndjson', ndjsonLines(records, line(request)));
    deps.audit?.export(
      request,
      'ndjson',
      records.map((r) => r.id),
    );
    return send(
      reply,
      spooled,
      'application/x-ndjson; charset=utf-8',
      `pathgate-${request.tenant}-paths.ndjson`,
    );
  });

  app.get('/export/oscal', async (request, reply) => {
    const records = selection(request, 'open');
    const lastPass = engine.tenant(request.tenant)?.lastPass?.at;
    const toPath = line(request);
    const spooled = await spool(
      spoolDir,
      'json',
      oscalChunks({
        tenant: request.tenant,
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
      reply,
      spooled,
      'application/json; charset=utf-8',
      `pathgate-${request.tenant}-assessment-results.json`,
    );
  });

  app.get('/export/pubkey', async () => ({
    algorithm: 'Ed25519',
    keyId: signer.keyId,
    publicKey: signer.publicKeyPem,
    header: 'X-Service-Signature',
    signs: 'pathgate-export/v1 sha256:<lowercase hex SHA-256 of the body>',
  }));
}

function clearSpool(dir: string): void {
  if (!existsSync(dir)) return;
  for (const name of readdirSync(dir))
    if (SPOOL_FILE.test(name)) rmSync(path.join(dir, name), { force: true });
}
