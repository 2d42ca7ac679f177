// Limits on export spooling (issue 31: 40 unread export requests held 336 MB of spool): one caller may
// have EXPORT_MAX_PER_CALLER exports spooled or being sent at once (429 past it), all spooled exports
// together at most EXPORT_SPOOL_MAX_BYTES (503 past it, the export's file removed), and a send that has not
// finished within EXPORT_SEND_TIMEOUT is cut off (routes/exports.ts) so its file goes.
import { ProblemError } from '../http/problems.js';

export interface SpoolLimitSettings {
  maxPerCaller: number;
  spoolMaxBytes: number;
  sendTimeoutMs: number;
}

/** One export's hold on the limits, from spooling until its answer is sent, cut off or abandoned. */
export interface SpoolSlot {
  /** Counts spooled bytes; throws the 503 problem when all spools together would pass the cap. */
  add(bytes: number): void;
  /** Gives the slot and its bytes back (idempotent). */
  release(): void;
}

export class SpoolLimits {
  private readonly perCaller = new Map<string, number>();
  private bytes = 0;

  constructor(readonly settings: SpoolLimitSettings) {}

  /** A slot for one more export of `caller`, or the 429 problem when it has its share in flight. */
  enter(caller: string): SpoolSlot {
    const held = this.perCaller.get(caller) ?? 0;
    if (held >= this.settings.maxPerCaller)
      throw new ProblemError(
        'too-many-requests',
        `this credential already has ${held} export(s) being prepared or sent (EXPORT_MAX_PER_CALLER=${this.settings.maxPerCaller}); read or close them first`,
        { retryAfter: 5 },
      );
    this.perCaller.set(caller, held + 1);
    let mine = 0;
    let released = false;
    return {
      add: (bytes) => {
        if (this.bytes + bytes > this.settings.spoolMaxBytes)
          throw new ProblemError(
            'unavailable',
            `exports being sent hold ${this.bytes} bytes of spool; this one would pass EXPORT_SPOOL_MAX_BYTES=${this.settings.spoolMaxBytes}`,
          );
        this.bytes += bytes;
        mine += bytes;
      },
      release: () => {
        if (released) return;
        released = true;
        this.bytes -= mine;
        const left = (this.perCaller.get(caller) ?? 1) - 1;
        if (left > 0) this.perCaller.set(caller, left);
        else this.perCaller.delete(caller);
      },
    };
  }

  /** Bytes spooled now (tests, metrics). */
  get spooledBytes(): number {
    return this.bytes;
  }
}
