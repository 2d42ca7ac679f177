// One tenant's part of REPO_ALLOWLIST (src/forge/tenant-repos.ts holds every tenant's): where the app may
// write for it (comments, statuses, branches, pull requests). Entries are exact `owner/repo` or `owner/*`,
// case-insensitive as GitHub's names are. An empty list allows no real write.

export class RepoAllowlist {
  private readonly repos = new Set<string>();
  private readonly owners = new Set<string>();

  constructor(entries: readonly string[]) {
    for (const entry of entries) {
      const [owner, repo] = entry.toLowerCase().split('/');
      if (repo === '*') this.owners.add(owner);
      else this.repos.add(`${owner}/${repo}`);
    }
  }

  /** Throws on an entry that is neither `owner/repo` nor `owner/*` (settings report it). */
  static parse(text: string): string[] {
    const entries = text
      .split(',')
      .map((e) => e.trim())
      .filter(Boolean);
    for (const entry of entries) {
      if (!/^[A-Za-z0-9][A-Za-z0-9-]{0,38}\/(?:\*|[A-Za-z0-9._-]{1,100})$/.test(entry))
        throw new Error(`entry ${JSON.stringify(entry)} is neither owner/repo nor owner/*`);
    }
    return entries;
  }

  allows(slug: string): boolean {
    const lower = slug.toLowerCase();
    return this.repos.has(lower) || this.owners.has(lower.split('/')[0]);
  }

  get empty(): boolean {
    return this.repos.size === 0 && this.owners.size === 0;
  }
}
