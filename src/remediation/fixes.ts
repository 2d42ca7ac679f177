// Fixes generated for an attack path, each one a change to a repository that cuts (or weakens) a hop of
// the route, for `POST /remediation/pr`:
// - `upgrade-dependency`: a library the image of a workload on the route depends on has a CVE with a fixed
//   version; the image's repository (Image BUILT_FROM Repository, `repo_slug`) gets its manifest bumped
//   (package.json, requirements.txt).
// - `block-public-access`: the route ends at a public bucket; a Terraform file adds the S3 public access
//   block to the repository that defines it (the bucket's `repo_slug`).
// Fix ids are stable for a path as long as the graph says the same: `fx-<kind>-<n>`.
import type { TenantGraph } from '../graph/model.js';
import { routeNodes, type PathRecord } from '../paths/path-store.js';

export interface FileChange {
  path: string;
  /** the new content from the current one (undefined: the file does not exist); undefined: nothing to change */
  apply(current: string | undefined): string | undefined;
  /** files tried in order: the first that exists and changes is used */
  alternatives?: string[];
}

export interface Fix {
  id: string;
  kind: 'upgrade-dependency' | 'block-public-access';
  title: string;
  /** what the pull request body explains: the hop it cuts and why */
  explanation: string;
  repo: string;
  branch: string;
  changes: FileChange[];
}

export function fixesFor(record: PathRecord, graph: TenantGraph): Fix[] {
  const fixes: Fix[] = [];
  const nodes = routeNodes(record);
  const route = nodes.map((n) => n.name).join(' → ');
  for (const workload of nodes.filter((n) => n.label === 'Service' && graph.hasNode(n.id))) {
    graph.forEachOutEdge(workload.id, (_k, dep, _s, imageId, _sa, image) => {
      if (dep.type !== 'DEPENDS_ON' || image.label !== 'Image') return;
      const repo = repoOf(graph, imageId);
      if (!repo) return;
      graph.forEachOutEdge(imageId, (_k2, uses, _s2, libraryId, _la, library) => {
        if (uses.type !== 'DEPENDS_ON' || library.label !== 'Library') return;
        const upgrade = fixedVersionFor(graph, libraryId);
        const name = typeof library.props.package === 'string' ? library.props.package : undefined;
        const ecosystem = library.props.ecosystem;
        if (!upgrade || !name || (ecosystem !== 'npm' && ecosystem !== 'pypi')) return;
        fixes.push({
          id: `fx-upgrade-dependency-${fixes.length + 1}`,
          kind: 'upgrade-dependency',
          title: `Upgrade ${name} to ${upgrade.fixed} (${upgrade.cve})`,
          explanation:
            `${upgrade.cve} in ${name} ${library.props.version ?? ''} makes the hop into \`${workload.name}\` likelier ` +
            `on the attack path ${route} (score ${record.score.toFixed(3)}, ${record.priority}). ` +
            `Upgrading to ${upgrade.fixed} removes it from the image.`,
          repo,
          branch: `pathgate/upgrade-${slugify(name)}-${upgrade.fixed}`,
          changes: [
            ecosystem === 'npm'
              ? { path: 'package.json', apply: (c) => bumpPackageJson(c, name, upgrade.fixed) }
              : { path: 'requirements.txt', apply: (c) => bumpRequirements(c, name, upgrade.fixed) },
          ],
        });
      });
    });
  }
  const target = nodes.at(-1)!;
  if (target.label === 'Bucket' && graph.hasNode(target.id)) {
    const props = graph.getNodeAttribute(target.id, 'props');
    const repo = typeof props.repo_slug === 'string' ? props.repo_slug : undefined;
    if (repo && props.public_access === true) {
      const resource = slugify(target.name).replace(/-/g, '_');
      fixes.push({
        id: `fx-block-public-access-${fixes.length + 1}`,
        kind: 'block-public-access',
        title: `Block public access to ${target.name}`,
        explanation:
          `The bucket \`${target.name}\` is readable by anyone: the attack path ${route} is direct access ` +
          `(${record.priority}). An S3 public access block closes it; check nothing public relies on it.`,
        repo,
        branch: `pathgate/block-public-access-${slugify(target.name)}`,
        changes: [
          {
            path: `pathgate/${slugify(target.name)}-public-access-block.tf`,
            apply: (current) =>
              current ??
              [
                `# Added by pathgate: closes the direct-access attack path to ${target.name}.`,
                `resource "aws_s3_bucket_public_access_block" "${resource}" {`,
                `  bucket                  = "${target.name}"`,
                '  block_public_acls       = true',
                '  block_public_policy     = true',
                '  ignore_public_acls      = true',
                '  restrict_public_buckets = true',
                '}',
                '',
              ].join('\n'),
          },
        ],
      });
    }
  }
  return fixes;
}

function repoOf(graph: TenantGraph, imageId: string): string | undefined {
  let slug: string | undefined;
  graph.forEachOutEdge(imageId, (_k, attrs, _s, _t, _sa, repo) => {
    if (slug || attrs.type !== 'BUILT_FROM' || repo.label !== 'Repository') return;
    if (typeof repo.props.repo_slug === 'string') slug = repo.props.repo_slug;
  });
  return slug;
}

/** The most exploitable CVE of a library that has a fixed version. */
function fixedVersionFor(graph: TenantGraph, libraryId: string): { cve: string; fixed: string } | undefined {
  let best: { cve: string; fixed: string; score: number } | undefined;
  graph.forEachInEdge(libraryId, (_k, attrs, _s, _t, cve) => {
    if (attrs.type !== 'AFFECTS' || cve.label !== 'CVE') return;
    const raw = attrs.props?.fixed_version;
    const fixed = typeof raw === 'string' ? raw.split(',')[0].trim() : undefined;
    if (!fixed) return;
    const score = (cve.props.kev === true ? 100 : 0) + Number(cve.props.cvss_score ?? 0);
    if (!best || score > best.score) best = { cve: cve.name, fixed, score };
  });
  return best && { cve: best.cve, fixed: best.fixed };
}

export function bumpPackageJson(
  current: string | undefined,
  name: string,
  version: string,
): string | undefined {
  if (current === undefined) return undefined;
  const manifest = JSON.parse(current) as Record<string, Record<string, string> | undefined>;
  let changed = false;
  for (const field of ['dependencies', 'devDependencies', 'optionalDependencies']) {
    const deps = manifest[field];
    if (deps && typeof deps[name] === 'string' && !deps[name].endsWith(version)) {
      const prefix = /^[\^~]/.exec(deps[name])?.[0] ?? '';
      deps[name] = `${prefix}${version}`;
      changed = true;
    }
  }
  if (!changed) return undefined;
  const indent = /^[ \t]+/m.exec(current)?.[0] ?? '  ';
  return `${JSON.stringify(manifest, null, indent)}\n`;
}

export function bumpRequirements(
  current: string | undefined,
  name: string,
  version: string,
): string | undefined {
  if (current === undefined) return undefined;
  const pattern = new RegExp(
    `^(${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')})\\s*(==|>=|~=)\\s*[^\\s;#]+`,
    'im',
  );
  if (!pattern.test(current)) return undefined;
  const next = current.replace(pattern, `$1==${version}`);
  return next === current ? undefined : next;
}

function slugify(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9.]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60);
}
