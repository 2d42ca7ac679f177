// Per-client token buckets (rate limits) and the failed-auth lockout, on an injected clock. The client
// table is capped: beyond it, new clients share one overflow bucket, so a flood of addresses cannot grow
// memory without bound (and is limited together).

export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly overflow = { tokens: 0, at: 0 };
  private readonly burst: number;

  constructor(
    private readonly ratePerSecond: number,
    private readonly maxClients = 10_000,
    /** the bucket's size; twice the rate per second unless given (a per-minute rate needs its own) */
    burst = ratePerSecond * 2,
  ) {
    this.burst = burst;
    this.overflow.tokens = this.burst;
  }

  /** Takes one token for `client`; returns 0 when allowed, else the seconds until one is available. */
  take(client: string, nowMs: number): number {
    let bucket = this.buckets.get(client);
    if (!bucket) {
      if (this.buckets.size >= this.maxClients) this.sweep(nowMs);
      if (this.buckets.size >= this.maxClients) bucket = this.overflow;
      else this.buckets.set(client, (bucket = { tokens: this.burst, at: nowMs }));
    }
    bucket.tokens = Math.min(this.burst, bucket.tokens + ((nowMs - bucket.at) / 1000) * this.ratePerSecond);
    bucket.at = nowMs;
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / this.ratePerSecond));
  }

  get clients(): number {
    return this.buckets.size;
  }

  /** Forgets clients whose bucket has refilled: they are indistinguishable from new ones. */
  private sweep(nowMs: number): void {
    for (const [client, bucket] of this.buckets) {
      if (bucket.tokens + ((nowMs - bucket.at) / 1000) * this.ratePerSecond >= this.burst)
        this.buckets.delete(client);
    }
  }
}

export interface LockoutOptions {
  /** failures within the window that lock a client out (AUTH_LOCKOUT_THRESHOLD) */
  threshold: number;
  windowMs: number;
  lockMs: number;
  maxClients?: number;
}

/**
 * Failed authentications per client, and the clients locked out. Both tables are capped (`maxClients`,
 * default 10,000): a flood of addresses cannot grow memory without bound. At the cap, expired lockouts go
 * first, then the oldest entry.
 */
export class Lockout {
  private readonly failures = new Map<string, number[]>();
  private readonly locked = new Map<string, number>();

  constructor(private readonly options: LockoutOptions) {}

  private get maxClients(): number {
    return this.options.maxClients ?? 10_000;
  }

  /** Clients with recent failures plus clients locked out (what the two tables hold). */
  get size(): { failing: number; locked: number } {
    return { failing: this.failures.size, locked: this.locked.size };
  }

  /** Seconds left of a client's lockout, 0 when it is not locked out. */
  lockedFor(client: string, nowMs: number): number {
    const until = this.locked.get(client);
    if (until === undefined) return 0;
    if (nowMs >= until) {
      this.locked.delete(client);
      return 0;
    }
    return Math.ceil((until - nowMs) / 1000);
  }

  /** Records a failed authentication; true when this failure locks the client out. */
  fail(client: string, nowMs: number): boolean {
    const since = nowMs - this.options.windowMs;
    const recent = (this.failures.get(client) ?? []).filter((t) => t > since);
    recent.push(nowMs);
    if (recent.length >= this.options.threshold) {
      this.failures.delete(client);
      this.locked.delete(client);
      if (this.locked.size >= this.maxClients) this.evictLocked(nowMs);
      this.locked.set(client, nowMs + this.options.lockMs);
      return true;
    }
    if (!this.failures.has(client) && this.failures.size >= this.maxClients) this.forgetOldest();
    this.failures.set(client, recent);
    return false;
  }

  private forgetOldest(): void {
    const oldest = this.failures.keys().next().value;
    if (oldest !== undefined) this.failures.delete(oldest);
  }

  /** Makes room in the locked table: every expired lockout, or else the oldest one. */
  private evictLocked(nowMs: number): void {
    for (const [client, until] of this.locked) if (nowMs >= until) this.locked.delete(client);
    if (this.locked.size < this.maxClients) return;
    const oldest = this.locked.keys().next().value;
    if (oldest !== undefined) this.locked.delete(oldest);
  }
}
