// Exports through the service: the OSCAL 1.1.2 assessment results of the demo estate validate against
// NIST's published schema (ajv); the NDJSON export has one path a line; both are signed (Ed25519, detached,
// X-Service-Signature) and `pathgate verify-export` accepts them as sent and refuses a tampered copy; each
// export reaches the audit log; a credential bound to an application exports only that application's paths.
import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDemo } from '../../app/service.js';
import { verifyExportCommand } from '../../app/verify-export.js';
import { verifyExport } from '../../src/export/signing.js';
import { edge, envelope, node } from '../helpers/envelope.js';
import { makeService, tempDir, type TestService } from '../helpers/service.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const schema = JSON.parse(
  readFileSync(path.join(here, 'fixtures/oscal-1.1.2_assessment-results_schema.json'), 'utf8'),
);
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
// The schema's patterns use Unicode property escapes (\p{L}): they need the `u` flag.
const ajv = new Ajv({ strict: false, allErrors: false, unicodeRegExp: true });
addFormats(ajv);
const validateOscal = ajv.compile(schema);

const ADMIN = 'export-admin-token-0123456789';
const VIEWER = 'export-viewer-token-0123456789';
let service: TestService;
let auditFile: string;
let work: string;

beforeAll(async () => {
  work = await tempDir('pathgate-export-');
  auditFile = path.join(work, 'audit.log');
  service = await makeService({ API_TOKENS: `${ADMIN}:admin,${VIEWER}:viewer`, AUDIT_LOG_PATH: auditFile });
  await loadDemo(service);
  await service.settle();
});
afterAll(() => service.dispose());

async function get(url: string, token = VIEWER, app = service) {
  const r = await app.apiApp.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });
  return { status: r.statusCode, body: r.rawPayload, headers: r.headers };
}

function auditRecords(event: string): any[] {
  return readFileSync(auditFile, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .filter((r) => r.event === event);
}

const cli = fileURLToPath(new URL('../../app/cli.ts', import.meta.url));

/** The real `pathgate` command, as a child process. */
function pathgate(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', cli, ...args], { env }, (error, stdout) =>
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout }),
    );
  });
}

async function verifyCli(file: string, sig: string, pubkey: string) {
  const out: string[] = [];
  const code = await verifyExportCommand([file, sig, '-pubkey', pubkey], {
    out: (t) => out.push(t),
    err: (t) => out.push(t),
    env: {},
  });
  return { code, text: out.join('') };
}

describe('exports', () => {
  it('OSCAL 1.1.2 assessment results of the demo estate validate against the NIST schema', async () => {
    const open = service.engine.tenant('default')!.paths.open();
    expect(open.length).toBeGreaterThan(2);
    // One path suppressed (accepted risk): its risk is deviation-approved, its finding satisfied.
    const suppressedId = open.find((p) => p.priority === 'P1')!.id;
    const s = await service.apiApp.inject({
      method: 'POST',
      url: '/suppressions',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ pathId: suppressedId, reason: 'accept-risk', owner: 'secops' }),
    });
    expect(s.statusCode).toBe(201);
    const r = await get('/export/oscal');
    expect(r.status).toBe(200);
    const doc = JSON.parse(r.body.toString());
    const valid = validateOscal(doc);
    expect(validateOscal.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
    const ar = doc['assessment-results'];
    expect(ar.metadata['oscal-version']).toBe('1.1.2');
    const result = ar.results[0];
    expect(result.findings).toHaveLength(open.length);
    expect(result.observations).toHaveLength(open.length);
    expect(result.risks).toHaveLength(open.length);
    const idOf = (x: any) => x.props.find((p: any) => p.name === 'attack-path-id').value;
    expect(result.findings.map(idOf).sort()).toEqual(open.map((p) => p.id).sort());
    const finding = result.findings.find((f: any) => idOf(f) === suppressedId);
    expect(finding.target.status.state).toBe('satisfied');
    expect(result.risks.find((x: any) => idOf(x) === suppressedId).status).toBe('deviation-approved');
    const critical = open.filter((p) => p.priority === 'P1' && p.id !== suppressedId);
    expect(result.findings.filter((f: any) => f.target.status.state === 'not-satisfied')).toHaveLength(
      critical.length,
    );
    for (const f of result.findings) expect(f.title).toMatch(/^Attack path .+ → .+ \(P[123]\)$/);
    // Each finding points at its observation and risk in the same result.
    const observations = new Set(result.observations.map((o: any) => o.uuid));
    for (const f of result.findings)
      expect(observations.has(f['related-observations'][0]['observation-uuid'])).toBe(true);
  });

  it('a document breaking the schema is caught by the same validator (the check can fail)', async () => {
    const doc = JSON.parse((await get('/export/oscal')).body.toString());
    delete doc['assessment-results'].results[0]['reviewed-controls'];
    expect(validateOscal(doc)).toBe(false);
  });

  it('each export is signed; verify-export accepts it as sent and refuses a tampered copy', async () => {
    const key = await get('/export/pubkey');
    expect(key.status).toBe(200);
    const { publicKey, keyId, algorithm } = JSON.parse(key.body.toString());
    expect(algorithm).toBe('Ed25519');
    const pubFile = path.join(work, 'pubkey.json');
    writeFileSync(pubFile, key.body);
    for (const url of ['/export/oscal', '/export/ndjson']) {
      const r = await get(url);
      const sig = String(r.headers['x-service-signature']);
      expect(sig).toMatch(new RegExp(`^ed25519=[A-Za-z0-9+/=]+; keyid=${keyId}; statement=[A-Za-z0-9_-]+$`));
      expect(verifyExport(r.body, sig, publicKey)).toMatchObject({
        ok: true,
        keyId,
        statement: { tenant: 'default', scope: 'all', state: 'open' },
      });
      const file = path.join(work, `export${path.extname(url) || '.out'}`);
      writeFileSync(file, r.body);
      const sigFile = path.join(work, 'export.sig');
      writeFileSync(sigFile, sig);
      expect(await verifyCli(file, sigFile, pubFile)).toMatchObject({ code: 0 });
      const tampered = Buffer.from(r.body);
      const at = tampered.indexOf('"score":');
      tampered[at + 9] = tampered[at + 9] === 0x30 ? 0x31 : 0x30;
      writeFileSync(file, tampered);
      const refused = await verifyCli(file, sig, pubFile);
      expect(refused.code).toBe(1);
      expect(refused.text).toContain('NOT VALID');
    }
    // Another key's public half refuses a genuine export.
    const other = generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const otherFile = path.join(work, 'other.pem');
    writeFileSync(otherFile, other);
    const r = await get('/export/oscal');
    writeFileSync(path.join(work, 'genuine.json'), r.body);
    const wrongKey = await verifyCli(
      path.join(work, 'genuine.json'),
      String(r.headers['x-service-signature']),
      otherFile,
    );
    expect(wrongKey.code).toBe(1);
    expect(wrongKey.text).toContain('signed by key');
    expect((await verifyCli(path.join(work, 'missing.json'), 'ed25519=AAAA', pubFile)).code).toBe(2);
  });

  it('the pathgate CLI: verify-export with the key from a running API (-url), exit 0 intact and 1 tampered', async () => {
    // Listening until the service is disposed (afterAll); inject keeps working alongside.
    const url = await service.apiApp.listen({ host: '127.0.0.1', port: 0 });
    const r = await get('/export/ndjson');
    const file = path.join(work, 'cli.ndjson');
    writeFileSync(file, r.body);
    const sig = String(r.headers['x-service-signature']);
    const env = { ...process.env, PATHGATE_API_TOKEN: VIEWER };
    const intact = await pathgate(['verify-export', file, sig, '-url', url], env);
    expect(intact).toMatchObject({ code: 0 });
    expect(intact.stdout).toContain('signature valid');
    writeFileSync(file, Buffer.concat([r.body, Buffer.from('{"id":"ap-ffffffffffffffff"}\n')]));
    const tampered = await pathgate(['verify-export', file, sig, '-url', url], env);
    expect(tampered.code).toBe(1);
    expect(tampered.stdout).toContain('NOT VALID');
    const usage = await pathgate(['verify-export', file], env);
    expect(usage.code).toBe(64);
  });

  it('NDJSON: one open path a line, as the API records them; the spool file is gone afterwards', async () => {
    const r = await get('/export/ndjson');
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toContain('application/x-ndjson');
    const lines = r.body.toString().split('\n');
    expect(lines.at(-1)).toBe('');
    const rows = lines.slice(0, -1).map((l) => JSON.parse(l));
    const open = service.engine.tenant('default')!.paths.open();
    expect(rows.map((x) => x.id)).toEqual(open.map((p) => p.id));
    expect(rows[0]).toMatchObject({ state: 'open', score: open[0].score, priority: open[0].priority });
    expect(rows[0].nodes.length).toBeGreaterThan(0);
    expect(rows.filter((x) => x.suppression !== null)).toHaveLength(1);
    const all = await get('/export/ndjson?state=all');
    expect(all.body.toString().split('\n').length - 1).toBe(
      [...service.engine.tenant('default')!.paths.all()].length,
    );
    const bad = await get('/export/ndjson?state=closed');
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body.toString()).errors[0]).toMatchObject({
      pointer: '/query/state',
      value: 'closed',
    });
    const spool = path.join(service.dataDir, 'exports');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(existsSync(spool) ? readdirSync(spool) : []).toEqual([]);
  });

  it('every export is in the audit log, with the paths it carried', async () => {
    const open = service.engine
      .tenant('default')!
      .paths.open()
      .map((p) => p.id)
      .sort();
    const oscal = auditRecords('export.oscal');
    const ndjson = auditRecords('export.ndjson');
    expect(oscal.length).toBeGreaterThanOrEqual(3);
    expect(ndjson.length).toBeGreaterThanOrEqual(3);
    expect([...oscal[0].fields.path_ids].sort()).toEqual(open);
    expect(ndjson[0]).toMatchObject({
      subject: expect.stringMatching(/^token:/),
      fields: { path: '/export/ndjson' },
    });
  });

  it('spool files a killed process left are removed at start', async () => {
    const dir = await tempDir();
    const spool = path.join(dir, 'exports');
    mkdirSync(spool);
    writeFileSync(path.join(spool, 'export-0123456789abcdef.ndjson'), '{"id":"ap-1"}\n');
    writeFileSync(path.join(spool, 'keep.txt'), 'not ours');
    const restarted = await makeService({}, { dataDir: dir });
    try {
      expect(readdirSync(spool)).toEqual(['keep.txt']);
    } finally {
      await restarted.dispose();
    }
  });

  it('the signing key: one made per DATA_DIR unless EXPORT_SIGNING_KEY names it (then its key id)', async () => {
    const first = JSON.parse((await get('/export/pubkey')).body.toString()).keyId;
    const again = await makeService({ API_TOKENS: `${VIEWER}:viewer` }, { dataDir: await tempDir() });
    try {
      expect(JSON.parse((await get('/export/pubkey', VIEWER, again)).body.toString()).keyId).not.toBe(first);
    } finally {
      await again.dispose();
    }
    const keyFile = path.join(service.dataDir, 'keys', 'export-ed25519.pem');
    const configured = await makeService(
      { API_TOKENS: `${VIEWER}:viewer`, EXPORT_SIGNING_KEY: readFileSync(keyFile, 'utf8') },
      { dataDir: await tempDir() },
    );
    try {
      expect(JSON.parse((await get('/export/pubkey', VIEWER, configured)).body.toString()).keyId).toBe(first);
    } finally {
      await configured.dispose();
    }
  });
});

describe('exports are limited to an app-scoped credential’s applications', () => {
  let scoped: TestService;
  const SHOP = 'export-shop-viewer-token-012345';
  beforeAll(async () => {
    scoped = await makeService({ API_TOKENS: `${ADMIN}:admin,${SHOP}:viewer::2030-01-01:shop` });
    const lb = node('LoadBalancer', 'edge', { internet_exposed: true });
    const shop = node('Service', 'shop-web', { app: 'shop' });
    const billing = node('Service', 'billing-api', { app: 'billing' });
    const orders = node('Database', 'orders', { crown_jewel: true });
    const ledger = node('Database', 'ledger', { crown_jewel: true });
    await scoped.ingest(
      envelope(
        [lb, shop, billing, orders, ledger],
        [
          edge('ROUTES_TO', lb, shop, 0.9),
          edge('ROUTES_TO', lb, billing, 0.9),
          edge('CONNECTS_TO', shop, orders, 0.9),
          edge('CONNECTS_TO', billing, ledger, 0.9),
        ],
      ),
    );
    await scoped.settle();
  });
  afterAll(() => scoped.dispose());

  it('NDJSON and OSCAL carry only paths through the shop application', async () => {
    const all = (await get('/export/ndjson', ADMIN, scoped)).body.toString().trim().split('\n');
    expect(all).toHaveLength(2);
    const mine = (await get('/export/ndjson', SHOP, scoped)).body
      .toString()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(mine).toHaveLength(1);
    expect(mine[0].nodes.map((n: any) => n.name)).toEqual(['edge', 'shop-web', 'orders']);
    const oscal = JSON.parse((await get('/export/oscal', SHOP, scoped)).body.toString());
    expect(validateOscal(oscal)).toBe(true);
    expect(oscal['assessment-results'].results[0].findings.map((f: any) => f.title)).toEqual([
      'Attack path edge → orders (P1)',
    ]);
  });
});
