// Governance settings (GOVERNANCE_BACKEND and its paths, EXPORT_SIGNING_KEY, DRIFT_WEBHOOK_URL): read by
// loadSettings (settings.ts).
import type { KeyObject } from 'node:crypto';
import { parseSigningKey } from '../export/signing.js';
import { type Reader, parseUrl } from './parsers.js';
import { readSecret } from './auth-settings.js';
import type { Env } from './settings.js';

/** GOVERNANCE_BACKEND and the file backend's paths; signed exports; the drift webhook. */
export interface GovernanceSettings {
  /** file: under DATA_DIR (one replica); postgres: in DB_DSN, shared by the replicas (src/governance/pg-store.ts) */
  backend: 'file' | 'postgres';
  /** SUPPRESSIONS_PATH, VALIDATIONS_PATH, TICKETS_PATH, HISTORY_PATH: unset, under DATA_DIR/governance */
  paths: { suppressions?: string; validations?: string; tickets?: string; history?: string };
  /** EXPORT_SIGNING_KEY: unset, a key made and kept under DATA_DIR/keys */
  exportSigningKey?: KeyObject;
  /** DRIFT_WEBHOOK_URL: where posture drift (critical paths opened, resolved, suppressions lapsing) is sent */
  driftWebhookUrl?: string;
}

export function readGovernance(env: Env, problems: string[], read: Reader): GovernanceSettings {
  const backend = read<string>('GOVERNANCE_BACKEND', (t) => t.trim().toLowerCase(), 'file');
  if (backend !== 'file' && backend !== 'postgres')
    problems.push(`GOVERNANCE_BACKEND=${JSON.stringify(backend)} must be file or postgres`);
  const filePath = (t: string) => t.trim();
  let exportSigningKey: KeyObject | undefined;
  const keyText = readSecret(env, 'EXPORT_SIGNING_KEY', problems);
  if (keyText !== undefined) {
    try {
      exportSigningKey = parseSigningKey(keyText);
    } catch (error) {
      problems.push(`EXPORT_SIGNING_KEY ${(error as Error).message}`);
    }
  }
  return {
    backend: backend === 'postgres' ? 'postgres' : 'file',
    paths: {
      suppressions: read<string | undefined>('SUPPRESSIONS_PATH', filePath, undefined),
      validations: read<string | undefined>('VALIDATIONS_PATH', filePath, undefined),
      tickets: read<string | undefined>('TICKETS_PATH', filePath, undefined),
      history: read<string | undefined>('HISTORY_PATH', filePath, undefined),
    },
    exportSigningKey,
    driftWebhookUrl: read<string | undefined>('DRIFT_WEBHOOK_URL', parseUrl, undefined),
  };
}
