// How a repository is named from the URL a tool gives for it (a `trivy repo` scan's, a BuildConfig's git
// source, an SBOM's component): `host/owner/name`, the form the code scanner's `repo` parameter and CI
// provenance use (docs/identity.md, "Repositories").

/** `https://github.com/o/r.git`, `git@github.com:o/r.git` -> `github.com/o/r`; undefined for anything else. */
export function repositoryFromUrl(value: string | undefined): string | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  const scp = /^[\w.-]+@([\w.-]+):([\w.-]+\/[\w./-]+?)(?:\.git)?\/?$/.exec(text);
  if (scp) return `${scp[1].toLowerCase()}/${scp[2]}`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  if (!['http:', 'https:', 'ssh:', 'git:'].includes(url.protocol) || !url.hostname) return undefined;
  const path = url.pathname.replace(/\.git\/?$/, '').replace(/^\/+|\/+$/g, '');
  if (!path.includes('/')) return undefined;
  return `${url.hostname.toLowerCase()}/${path}`;
}
