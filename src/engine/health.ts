// The engine's reduced modes (spec: `GET /healthz` answers 503 with a reason while the engine serves in a
// reduced mode). Each part that can fail while the process keeps serving reports here under its own name:
// the bus (`bus`: the broker connection lost, reconnecting), the journal (`journal`: a write refused, such
// as a full disk) and the graph store (`graph-store`: DB_DSN unreachable at start, the graph kept in memory).
// A part that recovers clears its condition; `/healthz`, GraphQL `status.reduced` and the
// `service_reduced_mode` gauge read the same list.

export type HealthPart = 'bus' | 'journal' | 'graph-store';

export interface ReducedCondition {
  part: HealthPart;
  /** Why, in words an operator acts on; never a secret (URLs are redacted by the caller). */
  reason: string;
  /** When the condition began (epoch ms). */
  since: number;
}

export class Health {
  private readonly conditions = new Map<HealthPart, ReducedCondition>();
  private readonly listeners = new Set<(part: HealthPart, reduced: boolean) => void>();

  constructor(private readonly now: () => number = Date.now) {}

  /** The part serves in a reduced mode for `reason`; a second report keeps the first `since`. */
  reduce(part: HealthPart, reason: string): void {
    const was = this.conditions.get(part);
    this.conditions.set(part, { part, reason, since: was?.since ?? this.now() });
    if (!was) for (const listener of this.listeners) listener(part, true);
  }

  /** The part is whole again. */
  restore(part: HealthPart): void {
    if (!this.conditions.delete(part)) return;
    for (const listener of this.listeners) listener(part, false);
  }

  reduced(): ReducedCondition[] {
    return [...this.conditions.values()].sort((a, b) => a.part.localeCompare(b.part));
  }

  get ok(): boolean {
    return this.conditions.size === 0;
  }

  /** One line for `/healthz`: `ok`, or `reduced: <part>: <reason>; …`. */
  line(): string {
    if (this.ok) return 'ok';
    return `reduced: ${this.reduced()
      .map((c) => `${c.part}: ${c.reason}`)
      .join('; ')}`;
  }

  onChange(listener: (part: HealthPart, reduced: boolean) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

export const HEALTH_PARTS: readonly HealthPart[] = ['bus', 'journal', 'graph-store'];
