// Suppressions (spec "Suppression", triage): an admin accepts or dismisses one attack path, with a reason,
// an owner and a time to live. While active, the path is not critical (src/paths/path-store.ts
// `isCritical`): it leaves posture's count, the critical-path metric, the Critical Attack Path event and
// the gate. The path keeps its record, the graph and the risk numbers are unchanged. When `ttlDays` have
// passed the suppression is expired: the path counts again, and the entry stays on the board until it is
// deleted or renewed (a new POST for the same path replaces it).
import type { DocumentStore } from './store.js';

export const SUPPRESSION_REASONS = [
  'accept-risk',
  'false-positive',
  'mitigating-control',
  'duplicate',
] as const;
export type SuppressionReason = (typeof SUPPRESSION_REASONS)[number];

/** ttlDays when the request names none, and the longest allowed: a risk accepted once is looked at again. */
export const DEFAULT_TTL_DAYS = 30;
export const MAX_TTL_DAYS = 365;
const DAY_MS = 86_400_000;

export interface Suppression {
  pathId: string;
  reason: SuppressionReason;
  owner: string;
  note: string | null;
  ttlDays: number;
  createdAt: string;
  createdBy: string;
  /** createdAt + ttlDays: from this instant the suppression is expired */
  expiresAt: string;
  /** the route when it was suppressed, for the board */
  route: { start: string; target: string; score: number; priority: string };
}

export type SuppressionState = 'active' | 'expired';

export function suppressionState(s: Suppression, at: number): SuppressionState {
  return at < Date.parse(s.expiresAt) ? 'active' : 'expired';
}

export function expiryOf(createdAt: number, ttlDays: number): string {
  return new Date(createdAt + ttlDays * DAY_MS).toISOString();
}

/** The triage board of every tenant, kept through the governance backend. */
export class SuppressionBook {
  /** A tenant's board by path id, rebuilt when the backend's copy changed (a write, another replica's). */
  private readonly cache = new Map<string, { version: number; entries: Map<string, Suppression> }>();

  constructor(private readonly documents: DocumentStore<Suppression>) {}

  private of(tenant: string): Map<string, Suppression> {
    const version = this.documents.version(tenant);
    let held = this.cache.get(tenant);
    if (!held || held.version !== version) {
      held = { version, entries: new Map(this.documents.load(tenant).map((s) => [s.pathId, s])) };
      this.cache.set(tenant, held);
    }
    return held.entries;
  }

  /** Reads a tenant's board now (start-up), so a damaged store stops the start rather than a request. */
  preload(tenant: string): number {
    return this.of(tenant).size;
  }

  /** Brings the board up to date with the stored one (another replica's writes), before a read. */
  refresh(tenant: string): Promise<void> {
    return this.documents.refresh(tenant);
  }

  list(tenant: string): Suppression[] {
    return [...this.of(tenant).values()];
  }

  get(tenant: string, pathId: string): Suppression | undefined {
    return this.of(tenant).get(pathId);
  }

  /** The suppression that holds for this path at `at`, if any (an expired one does not). */
  active(tenant: string, pathId: string, at: number): Suppression | undefined {
    const entries = this.of(tenant);
    if (entries.size === 0) return undefined;
    const s = entries.get(pathId);
    return s && suppressionState(s, at) === 'active' ? s : undefined;
  }

  /** Stores (or replaces) the path's suppression; true when it replaced one. */
  async put(tenant: string, suppression: Suppression): Promise<boolean> {
    const { result } = await this.documents.mutate(tenant, (current) => {
      const replaced = current.some((s) => s.pathId === suppression.pathId);
      return {
        next: replaced
          ? current.map((s) => (s.pathId === suppression.pathId ? suppression : s))
          : [...current, suppression],
        result: replaced,
      };
    });
    return result;
  }

  /** Removes the path's suppression, as stored (another replica may have removed it first). */
  async remove(tenant: string, pathId: string): Promise<Suppression | undefined> {
    const { result } = await this.documents.mutate(tenant, (current) => {
      const gone = current.find((s) => s.pathId === pathId);
      return { next: gone ? current.filter((s) => s !== gone) : current, result: gone };
    });
    return result;
  }
}
