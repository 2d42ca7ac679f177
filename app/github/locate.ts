// Where a pull request's routes come from, as `file:line` in its head commit: the searches of
// app/locate-rules.ts (the same the Action's SARIF runs over the checkout) over the commit's files, read
// through the forge. Bounded: at most MAX_FILES_READ files read per commit, and a commit's files are read
// once (the answers are kept per commit for the next update). Without read access, resources are named
// without a line.
import type { Forge, RepoRef } from '../../src/forge/forge.js';
import { resourceSearches, type RouteOriginLike } from '../locate-rules.js';

export interface Located {
  /** `aws_security_group_rule.x`, `Deployment/shop/checkout`, `the Dockerfile FROM`, a package, a rule */
  resource: string;
  path?: string;
  line?: number;
}

/** files read per commit at most */
const MAX_FILES_READ = 40;
/** commits whose look-ups are kept */
const COMMITS_KEPT = 64;

/** Looks resources up in one repository commit, reading each file once. */
export class CommitFiles {
  private list?: Promise<string[] | undefined>;
  private readonly texts = new Map<string, Promise<string[] | undefined>>();

  constructor(
    /** the forge of the latest update (an installation token expires; the look-ups stay) */
    public forge: Forge,
    private readonly repo: RepoRef,
    private readonly sha: string,
  ) {}

  /** Each resource of the origin, with the file and line that declares it when one does. */
  async locate(origin: RouteOriginLike | undefined): Promise<Located[]> {
    const out: Located[] = [];
    if (origin?.code)
      out.push({
        resource: origin.code.rule,
        path: origin.code.path,
        line: Math.max(1, origin.code.line ?? 1),
      });
    for (const search of resourceSearches(origin)) {
      const found = await this.find(search.pick, search.pattern);
      out.push({ resource: search.resource, ...found });
    }
    return out;
  }

  private async find(pick: (file: string) => boolean, pattern: RegExp) {
    const files = await this.files();
    for (const file of (files ?? []).filter(pick)) {
      const lines = await this.read(file);
      const at = lines?.findIndex((l) => pattern.test(l)) ?? -1;
      if (at >= 0) return { path: file, line: at + 1 };
    }
    return undefined;
  }

  private files(): Promise<string[] | undefined> {
    this.list ??= this.forge.listFiles
      ? this.forge.listFiles(this.repo, this.sha).catch(() => undefined)
      : Promise.resolve(undefined);
    return this.list;
  }

  private read(file: string): Promise<string[] | undefined> {
    let text = this.texts.get(file);
    if (!text) {
      text =
        this.texts.size >= MAX_FILES_READ
          ? Promise.resolve(undefined)
          : this.forge
              .getFile(this.repo, file, this.sha)
              .then((f) => f?.text.split('\n'))
              .catch(() => undefined);
      this.texts.set(file, text);
    }
    return text;
  }
}

/** The look-ups of the last commits, so an update of the same commit reads nothing again. */
export class CommitFilesCache {
  private readonly kept = new Map<string, CommitFiles>();

  for(forge: Forge, repo: RepoRef, sha: string): CommitFiles {
    const key = `${repo.owner}/${repo.repo}@${sha}`.toLowerCase();
    let files = this.kept.get(key);
    if (!files) {
      files = new CommitFiles(forge, repo, sha);
      this.kept.set(key, files);
      if (this.kept.size > COMMITS_KEPT) this.kept.delete(this.kept.keys().next().value!);
    }
    files.forge = forge;
    return files;
  }
}
