// Updates of one pull request run one at a time and in order (two reconciles that both read the comments
// before either writes would both create the same comment). Pull requests do not wait for each other. A
// request for work already waiting for the same pull request and commit is the same work: it is not
// queued twice, so a burst of verdicts for one commit costs one update once the running one ends.
import type { Log } from '../log/logger.js';

export class PullRequestQueue {
  private readonly tails = new Map<string, Promise<void>>();
  /** `<pr key>|<coalescing key>` of work queued and not yet started */
  private readonly waiting = new Set<string>();

  constructor(private readonly log?: Log) {}

  /** Queues work for a pull request and returns at once. Errors are the work's own to handle; logged here. */
  enqueue(pr: string, coalesce: string | undefined, work: () => Promise<void>): void {
    const slot = coalesce === undefined ? undefined : `${pr}|${coalesce}`;
    if (slot !== undefined) {
      if (this.waiting.has(slot)) return;
      this.waiting.add(slot);
    }
    void this.chain(pr, async () => {
      if (slot !== undefined) this.waiting.delete(slot);
      await work();
    }).catch((error: unknown) => this.log?.error({ err: error, pr }, 'a pull request update failed'));
  }

  /** Runs work in the pull request's turn and waits for it. */
  run<T>(pr: string, work: () => Promise<T>): Promise<T> {
    return this.chain(pr, work);
  }

  /** Resolves when nothing is queued or running. */
  async idle(): Promise<void> {
    while (this.tails.size) await Promise.allSettled([...this.tails.values()]);
  }

  private chain<T>(pr: string, work: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(pr) ?? Promise.resolve();
    const next = previous.then(work, work);
    const tail = next.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(pr, tail);
    void tail.then(() => {
      if (this.tails.get(pr) === tail) this.tails.delete(pr);
    });
    return next;
  }
}
