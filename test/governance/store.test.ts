// The file governance backend: per-tenant documents under DATA_DIR or at the *_PATH settings, sealed with
// STORE_ENCRYPTION_KEY, written atomically; a damaged or undecryptable store stops the start naming the
// file; GOVERNANCE_BACKEND=postgres needs DB_DSN (the backend itself: test/scale/governance-postgres.test.ts).
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createGovernance } from '../../src/governance/governance.js';
import { createFileBackend } from '../../src/governance/store.js';
import { loadSettings } from '../../src/config/settings.js';
import { startupRefusal } from '../helpers/settings.js';
import { tempDir } from '../helpers/service.js';

const KEY_HEX = '11'.repeat(32);

describe('file governance backend', () => {
  it('keeps one document per tenant under DATA_DIR/governance/<tenant>/<kind>.json', async () => {
    const dataDir = await tempDir();
    const docs = createFileBackend({ dataDir }).documents<{ a: number }>('suppressions');
    expect(docs.load('default')).toEqual([]);
    docs.save('default', [{ a: 1 }]);
    docs.save('acme', [{ a: 2 }]);
    expect(
      JSON.parse(readFileSync(path.join(dataDir, 'governance', 'default', 'suppressions.json'), 'utf8')),
    ).toEqual([{ a: 1 }]);
    expect(docs.load('acme')).toEqual([{ a: 2 }]);
    // No temporary file is left behind.
    expect(readdirSync(path.join(dataDir, 'governance', 'default'))).toEqual(['suppressions.json']);
  });

  it('SUPPRESSIONS_PATH names the default tenant’s file; another tenant’s sits beside it', async () => {
    const dir = await tempDir();
    const settings = loadSettings({
      DATA_DIR: dir,
      SUPPRESSIONS_PATH: path.join(dir, 'triage', 'board.json'),
      VALIDATIONS_PATH: path.join(dir, 'v.json'),
    });
    const backend = createFileBackend({ dataDir: dir, paths: settings.governance.paths });
    expect(backend.locate('suppressions', 'default')).toBe(path.join(dir, 'triage', 'board.json'));
    expect(backend.locate('suppressions', 'acme')).toBe(path.join(dir, 'triage', 'board.acme.json'));
    expect(backend.locate('validations', 'default')).toBe(path.join(dir, 'v.json'));
    expect(backend.locate('tickets', 'default')).toBe(
      path.join(dir, 'governance', 'default', 'tickets.json'),
    );
    backend.documents('suppressions').save('acme', [1]);
    expect(existsSync(path.join(dir, 'triage', 'board.acme.json'))).toBe(true);
  });

  it('STORE_ENCRYPTION_KEY seals every document (AES-256-GCM); another key cannot read it', async () => {
    const dataDir = await tempDir();
    const key = Buffer.from(KEY_HEX, 'hex');
    const docs = createFileBackend({ dataDir, key }).documents<{ owner: string }>('suppressions');
    docs.save('default', [{ owner: 'team-shop' }]);
    const raw = readFileSync(path.join(dataDir, 'governance', 'default', 'suppressions.json'), 'utf8');
    expect(raw.startsWith('enc1:')).toBe(true);
    expect(raw).not.toContain('team-shop');
    expect(docs.load('default')).toEqual([{ owner: 'team-shop' }]);
    const other = createFileBackend({ dataDir, key: Buffer.alloc(32, 2) }).documents('suppressions');
    expect(() => other.load('default')).toThrow(/could not be decrypted/);
    const none = createFileBackend({ dataDir }).documents('suppressions');
    expect(() => none.load('default')).toThrow(/encrypted and STORE_ENCRYPTION_KEY is not set/);
  });

  it('a damaged store stops the start naming the file (preload), rather than failing a request later', async () => {
    const dataDir = await tempDir();
    const file = path.join(dataDir, 'governance', 'default', 'validations.json');
    createFileBackend({ dataDir }).documents('validations').save('default', []);
    writeFileSync(file, '[{"id": "vd-1", ');
    const governance = createGovernance(loadSettings({ DATA_DIR: dataDir }));
    expect(() => governance.preload(['default'])).toThrow(
      new RegExp(`${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is not valid JSON`),
    );
  });

  it('GOVERNANCE_BACKEND=postgres needs DB_DSN; a typo is named', () => {
    expect(startupRefusal({ GOVERNANCE_BACKEND: 'postgres' })).toContain(
      'GOVERNANCE_BACKEND=postgres needs DB_DSN',
    );
    expect(
      loadSettings({ GOVERNANCE_BACKEND: 'postgres', DB_DSN: 'postgres://u@127.0.0.1:5432/db' }).governance
        .backend,
    ).toBe('postgres');
    expect(startupRefusal({ GOVERNANCE_BACKEND: 'sqlite' })).toContain(
      'GOVERNANCE_BACKEND="sqlite" must be file or postgres',
    );
    expect(startupRefusal({ GOVERNANCE_BACKEND: 'file' })).toBe('started');
  });

  it('EXPORT_SIGNING_KEY: a PEM or a 32-byte seed is taken; anything else stops the start, never echoing it', () => {
    expect(startupRefusal({ EXPORT_SIGNING_KEY: '22'.repeat(32) })).toBe('started');
    const refusal = startupRefusal({ EXPORT_SIGNING_KEY: 'not-a-key-secret-value' });
    expect(refusal).toContain('EXPORT_SIGNING_KEY is neither a PEM Ed25519 private key nor a 32-byte seed');
    expect(refusal).not.toContain('not-a-key-secret-value');
  });
});
