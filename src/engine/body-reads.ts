// Large report bodies the ingest listener is reading. While one is, graph writes wait: the event loop then
// reads the socket at full speed (a turn reads at most 2 MiB, and each write slice took 10 ms of turns), so
// the body reaches its worker sooner, and the writes lose nothing, since they would have waited for that
// worker's chunks anyway. The wait is bounded: at most `maxHoldMs` from the moment the first of a run of
// bodies began, so a client trickling its body cannot hold the graph back.
export class BodyReads {
  private reading = 0;
  private holdEnds = 0;
  private waiters: (() => void)[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly maxHoldMs = 500,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** A body began (its declared length is large). */
  started(): void {
    if (this.reading++ === 0) this.holdEnds = this.now() + this.maxHoldMs;
  }

  /** A body that began was read (or its request ended without). */
  ended(): void {
    if (this.reading === 0) return;
    if (--this.reading === 0) this.release();
  }

  /** What the next graph write waits for: undefined when nothing holds it. */
  hold(): Promise<void> | undefined {
    if (this.reading === 0) return undefined;
    const left = this.holdEnds - this.now();
    if (left <= 0) return undefined;
    return new Promise<void>((resolve) => {
      this.waiters.push(resolve);
      this.timer ??= setTimeout(() => this.release(), left);
    });
  }

  private release(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve();
  }
}
