// Exports on the API listener: GET /export/ndjson (one attack path per line, streamed), GET /export/oscal
// (NIST OSCAL 1.1.2 assessment results), GET /export/pubkey (the Ed25519 key that verifies them). Each
// export is signed (`X-Service-Signature`, src/export/signing.ts), limited to the caller's applications
// when its credential is bound to some, and written to the audit log (`export.ndjson`, `export.oscal`).
import { createReadStream, existsSync, readdirSync, rmSync } from 'node:fs';
import { createHash } from 'node:crypto';
import path from 'node:path';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { pathFilter } from '../../src/auth/scope.js';
import type { Engine } from '../../src/engine/engine.js';
import { spoolNdjson } from '../../src/export/ndjson.js';
import { oscalAssessmentResults } from '../../src/export/oscal.js';
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

  app.get<{ Querystring: { state?: string } }>('/export/ndjson', async (request, reply) => {
    const state = request.query.state ?? 'open';
    if (state !== 'open' && state !== 'all')
      throw new ProblemError('invalid-query', `state must be open or all, not ${JSON.stringify(state)}`, {
        errors: [{ pointer: '/query/state', value: state, detail: 'open or all' }],
      });
    const spooled = await spoolNdjson(spoolDir, selection(request, state), line(request));
    deps.audit?.export(request, 'ndjson', spooled.pathIds);
    const stream = createReadStream(spooled.file);
    // The spool file goes once the answer is sent or abandoned.
    stream.on('close', () => void spooled.remove());
    return reply
      .header('content-type', 'application/x-ndjson; charset=utf-8')
      .header('content-length', spooled.bytes)
      .header('content-disposition', `attachment; filename="pathgate-${request.tenant}-paths.ndjson"`)
      .header(SIGNATURE_HEADER, signer.signDigest(spooled.sha256))
      .send(stream);
  });

  app.get('/export/oscal', async (request, reply) => {
    const records = selection(request, 'open');
    const tenant = engine.tenant(request.tenant);
    const lastPass = tenant?.lastPass?.at;
    const document = oscalAssessmentResults({
      tenant: request.tenant,
      version: VERSION,
      generatedAt: new Date(deps.now()).toISOString(),
      analysedAt: lastPass ? new Date(lastPass).toISOString() : null,
      paths: records.map(line(request)),
    });
    const body = Buffer.from(JSON.stringify(document, null, 1));
    deps.audit?.export(
      request,
      'oscal',
      records.map((r) => r.id),
    );
    return reply
      .header('content-type', 'application/json; charset=utf-8')
      .header(
        'content-disposition',
        `attachment; filename="pathgate-${request.tenant}-assessment-results.json"`,
      )
      .header(SIGNATURE_HEADER, signer.signDigest(createHash('sha256').update(body).digest('hex')))
      .send(body);
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
    if (/^export-[0-9a-f]{16}\.ndjson$/.test(name)) rmSync(path.join(dir, name), { force: true });
}
