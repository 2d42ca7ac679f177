// The governance layer as the service composes it: one backend (GOVERNANCE_BACKEND: files, src/governance/
// store.ts, or PostgreSQL, src/governance/pg-store.ts) holding suppressions, validation verdicts, tickets
// and the posture history, and the key that signs exports. Built before the engine, which asks it which
// paths are suppressed.
import type { Settings } from '../config/settings.js';
import { createSigner, loadOrCreateSigningKey, type ExportSigner } from '../export/signing.js';
import type { SuppressionNote } from '../paths/path-store.js';
import { PostureHistory, type HistoryPoint } from './history.js';
import { createFileBackend, type GovernanceBackend } from './store.js';
import { SuppressionBook, type Suppression } from './suppressions.js';
import { TicketStore, type Ticket } from './tickets.js';
import { VerdictLedger, type Verdict } from './validations.js';

export interface Governance {
  backend: GovernanceBackend;
  tickets: TicketStore;
  suppressions: SuppressionBook;
  verdicts: VerdictLedger;
  history: PostureHistory;
  signer: ExportSigner;
  /** The suppression that holds for a path at `at`, if any (the engine's one critical definition asks). */
  suppression(tenant: string, pathId: string, at: number): SuppressionNote | undefined;
  /** Reads every store of these tenants now, so a damaged or undecryptable one stops the start. */
  preload(tenants: Iterable<string>): void;
}

/** `backend`: the postgres one, opened beforehand (it loads every record first); the file one otherwise. */
export function createGovernance(
  settings: Pick<Settings, 'dataDir' | 'governance'> & { audit: { key?: Buffer } },
  backend: GovernanceBackend = createFileBackend({
    dataDir: settings.dataDir,
    paths: settings.governance.paths,
    key: settings.audit.key,
  }),
): Governance {
  const suppressions = new SuppressionBook(backend.documents<Suppression>('suppressions'));
  const verdicts = new VerdictLedger(backend.documents<Verdict>('validations'));
  const tickets = new TicketStore(backend.documents<Ticket>('tickets'));
  const history = new PostureHistory(backend.documents<HistoryPoint>('history'));
  const signer = createSigner(loadOrCreateSigningKey(settings.governance.exportSigningKey, settings.dataDir));
  return {
    backend,
    tickets,
    suppressions,
    verdicts,
    history,
    signer,
    suppression(tenant, pathId, at) {
      const s = suppressions.active(tenant, pathId, at);
      return s && { reason: s.reason, owner: s.owner, expiresAt: s.expiresAt };
    },
    preload(tenants) {
      for (const tenant of tenants) {
        suppressions.preload(tenant);
        verdicts.list(tenant);
        tickets.list(tenant);
        history.list(tenant);
      }
    },
  };
}
