// The head commit of each open pull request the app has heard of, with the time GitHub gave for it
// (`pull_request.updated_at`), so that an older `opened` or `synchronize` (a replay, or a delivery that
// arrives late) never moves the head backwards (issue 31: a replayed `opened` reset the head, and a new
// critical route on the real head got no comment). Older commits do not touch comments.
export class PullRequestHeads {
  private readonly heads = new Map<string, { sha: string; at: number }>();

  /** Records `sha` as the head unless a newer event set another; true when it is the head now. */
  advance(key: string, sha: string, updatedAt: unknown): boolean {
    const at = typeof updatedAt === 'string' ? Date.parse(updatedAt) : NaN;
    const held = this.heads.get(key);
    if (held && held.sha !== sha && (Number.isNaN(at) || at < held.at)) return false;
    this.heads.set(key, { sha, at: Number.isNaN(at) ? (held?.at ?? 0) : Math.max(at, held?.at ?? 0) });
    return true;
  }

  get(key: string): string | undefined {
    return this.heads.get(key)?.sha;
  }

  delete(key: string): void {
    this.heads.delete(key);
  }
}
