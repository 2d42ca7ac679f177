// Each API step of a pull, named by its IAM action, so that a failure says which call failed (and never
// what credentials it used); and a paginator drained into one list.
export class PullStepError extends Error {
  constructor(
    readonly action: string,
    readonly code: string,
    detail: string,
  ) {
    super(`${action}: ${code}: ${detail}`);
  }
}

/** Access keys, session tokens and signatures are cut out of anything an error says. */
export function safeMessage(text: string): string {
  return text
    .replace(/\b(AKIA|ASIA)[A-Z0-9]{12,}\b/g, '<access key>')
    .replace(
      /(Signature|X-Amz-Signature|X-Amz-Security-Token|SessionToken|Credential)=[^\s&,]+/gi,
      '$1=<redacted>',
    )
    .slice(0, 500);
}

/** Runs one API step (the pull stops between steps, and between pages, once `signal` aborts). */
export async function step<T>(signal: AbortSignal, action: string, run: () => Promise<T>): Promise<T> {
  try {
    signal.throwIfAborted();
    return await run();
  } catch (error) {
    if (error instanceof PullStepError) throw error;
    const e = error as { name?: string; Code?: string; message?: string };
    throw new PullStepError(action, e.Code ?? e.name ?? 'Error', safeMessage(String(e.message ?? error)));
  }
}

export async function all<P, T>(
  signal: AbortSignal,
  pages: AsyncIterable<P>,
  list: (page: P) => T[] | undefined,
): Promise<T[]> {
  const out: T[] = [];
  for await (const page of pages) {
    out.push(...(list(page) ?? []));
    signal.throwIfAborted();
  }
  return out;
}

/** `run` over `items`, at most `limit` at once, the results in the items' order. */
export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  run: (item: T) => Promise<R>,
): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      out[index] = await run(items[index]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}
