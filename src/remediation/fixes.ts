// Fixes generated for an attack path, each one a change to a repository that cuts (or weakens) a hop of
// the route, for `POST /remediation/pr`:
// - `upgrade-dependency`: a library the image of a workload on the route depends on has a CVE with a fixed
//   version; the image's repository (Image BUILT_FROM Repository, `repo_slug`) gets its manifest bumped
//   (package.json, requirements.txt).
// - `block-public-access`: the route ends at a public bucket; a Terraform file adds the S3 public access
//   block to the repository that defines it (the bucket's `repo_slug`).
// - `bump-base-image`: a distribution package of such an image (`Package`) has a CVE with a fixed
//   version: the Dockerfile rebuilds on the patched base (a digest pin on `FROM` dropped, so the rebuild
//   takes the tag's current base) and upgrades the package explicitly (apt, apk or dnf, by the image's OS).
// - `harden-workload`: the route escapes a Kubernetes workload's container (T1611): its manifest loses
//   `privileged`, `hostPID`, `hostNetwork`, `hostIPC` and gains a restrictive securityContext.
// - `deny-escalation`: the route escalates through an IAM role's primitives (CAN_ESCALATE_TO): a Terraform
//   file adds an explicit Deny of those actions to the role (the role's `repo_slug` names the repository).
// Fix ids are stable for a path as long as the graph says the same: `fx-<kind>-<n>`. Every value a fix
// writes (package names, versions, roles, buckets, paths, the repository) passes its grammar first
// (safe-values.ts); a fix with a value that does not is refused, keeps its id, and says why.
import { isMap, isSeq, parseAllDocuments, type Document, type YAMLMap } from 'yaml';
import type { TenantGraph } from '../graph/model.js';
import { routeNodes, type PathRecord } from '../paths/path-store.js';
import * as safe from './safe-values.js';

export interface FileChange {
  path: string;
  /** the new content from the current one (undefined: the file does not exist); undefined: nothing to change */
  apply(current: string | undefined): string | undefined;
  /** files tried in order: the first that exists and changes is used */
  alternatives?: string[];
}

export interface Fix {
  id: string;
  kind:
    'upgrade-dependency' | 'block-public-access' | 'bump-base-image' | 'harden-workload' | 'deny-escalation';
  title: string;
  /** what the pull request body explains, in Markdown (every value in it escaped): the hop it cuts and why */
  explanation: string;
  /** the hop it cuts, by node name (`from` unknown for a fix to what the workload runs) */
  cuts: { from?: string; into: string };
  repo: string;
  branch: string;
  changes: FileChange[];
}

/** A fix the route would have had, refused because a value it would write fails its grammar. */
export interface RefusedFix {
  id: string;
  kind: Fix['kind'];
  /** why, naming the value */
  reason: string;
  cuts: Fix['cuts'];
}

export function fixesFor(record: PathRecord, graph: TenantGraph): Fix[] {
  return planFixes(record, graph).fixes;
}

/** The fixes of a path, and those refused (with the reason) for a value no grammar accepts. */
export function planFixes(record: PathRecord, graph: TenantGraph): { fixes: Fix[]; refused: RefusedFix[] } {
  const fixes: Fix[] = [];
  const refused: RefusedFix[] = [];
  /** the next fix's id; a refused fix takes its number too, so the others' ids do not move */
  const nextId = (kind: Fix['kind']) => `fx-${kind}-${fixes.length + refused.length + 1}`;
  /** Adds the fix unless a check refused one of its values (or its repository). */
  const offer = (fix: Omit<Fix, 'id'>, refusal: safe.Refusal) => {
    const id = nextId(fix.kind);
    const reason = safe.firstRefusal(refusal, safe.repoSlug(fix.repo));
    if (reason) refused.push({ id, kind: fix.kind, reason, cuts: fix.cuts });
    else fixes.push({ id, ...fix });
  };
  const nodes = routeNodes(record);
  const code = safe.markdownCode;
  const text = safe.markdownText;
  const route = nodes.map((n) => code(n.name)).join(' → ');
  const scored = `(score ${record.score.toFixed(3)}, ${record.priority})`;
  for (const workload of nodes.filter((n) => n.label === 'Service' && graph.hasNode(n.id))) {
    graph.forEachOutEdge(workload.id, (_k, dep, _s, imageId, _sa, image) => {
      if (dep.type !== 'DEPENDS_ON' || image.label !== 'Image') return;
      const repo = repoOf(graph, imageId);
      if (!repo) return;
      const osPatches: { name: string; fixed: string; cve: string }[] = [];
      graph.forEachOutEdge(imageId, (_k2, uses, _s2, libraryId, _la, library) => {
        if (uses.type === 'DEPENDS_ON' && library.label === 'Package') {
          const patch = fixedVersionFor(graph, libraryId);
          const name =
            typeof library.props.package === 'string'
              ? library.props.package
              : library.name.split('/').pop()?.split('@')[0];
          if (patch && name) osPatches.push({ name, fixed: patch.fixed, cve: patch.cve });
          return;
        }
        if (uses.type !== 'DEPENDS_ON' || library.label !== 'Library') return;
        const upgrade = fixedVersionFor(graph, libraryId);
        const name = typeof library.props.package === 'string' ? library.props.package : undefined;
        const ecosystem = library.props.ecosystem;
        if (!upgrade || !name || (ecosystem !== 'npm' && ecosystem !== 'pypi')) return;
        const refusal =
          ecosystem === 'npm'
            ? safe.firstRefusal(safe.npmName(name), safe.npmVersion(upgrade.fixed))
            : safe.firstRefusal(safe.pypiName(name), safe.pypiVersion(upgrade.fixed));
        const current = typeof library.props.version === 'string' ? ` ${text(library.props.version)}` : '';
        offer(
          {
            kind: 'upgrade-dependency',
            title: `Upgrade ${name} to ${upgrade.fixed} (${upgrade.cve})`,
            explanation:
              `${text(upgrade.cve)} in ${code(name)}${current} makes the hop into ${code(workload.name)} likelier ` +
              `on the attack path ${route} ${scored}. Upgrading to ${code(upgrade.fixed)} removes it from the image.`,
            cuts: { into: workload.name },
            repo,
            branch: `pathgate/upgrade-${slugify(name)}-${slugify(upgrade.fixed)}`,
            changes: [
              ecosystem === 'npm'
                ? { path: 'package.json', apply: (c) => bumpPackageJson(c, name, upgrade.fixed) }
                : { path: 'requirements.txt', apply: (c) => bumpRequirements(c, name, upgrade.fixed) },
            ],
          },
          refusal,
        );
      });
      if (osPatches.length) {
        const os = typeof image.props.os === 'string' ? image.props.os.toLowerCase() : '';
        const worst = osPatches[0];
        // One package the distribution's grammar refuses refuses the whole rebuild: its names go into `RUN`.
        const family = safe.osFamily(os);
        const refusal = safe.firstRefusal(
          ...osPatches.flatMap((p) => [
            safe.osPackageName(family, p.name),
            safe.osPackageVersion(family, p.fixed),
          ]),
        );
        offer(
          {
            kind: 'bump-base-image',
            title: `Rebuild ${image.name} on a patched base (${osPatches
              .map((p) => p.cve)
              .slice(0, 3)
              .join(', ')})`,
            explanation:
              `The base image of ${code(image.name)} (${text(os || 'its distribution')}) carries ${osPatches.length} package CVE(s) with ` +
              `fixed versions (${text(worst.cve)} in ${code(worst.name)}, fixed in ${code(worst.fixed)}), which make the hop into ` +
              `${code(workload.name)} likelier on the attack path ${route} ${scored}. ` +
              'The Dockerfile rebuilds on the current base of its tag and upgrades those packages.',
            cuts: { into: workload.name },
            repo,
            branch: `pathgate/patch-base-${slugify(image.name)}`,
            changes: [{ path: 'Dockerfile', apply: (c) => bumpBaseImage(c, os, osPatches) }],
          },
          refusal,
        );
      }
    });
  }
  // A container escape from a Kubernetes workload on the route: harden its manifest.
  for (const [i, node] of nodes.entries()) {
    const next = nodes[i + 1];
    if (!next || node.label !== 'Service' || next.label !== 'VirtualMachine' || !next.name.includes('/node/'))
      continue;
    if (!graph.hasNode(node.id)) continue;
    const props = graph.getNodeAttribute(node.id, 'props');
    const repo = typeof props.repo_slug === 'string' ? props.repo_slug : imageRepoOfWorkload(graph, node.id);
    if (!repo) continue;
    const name = node.name.split('/').pop()!;
    const manifest = typeof props.manifest_path === 'string' ? props.manifest_path : undefined;
    const candidates = [
      ...(manifest ? [manifest] : []),
      `k8s/${name}.yaml`,
      `deploy/${name}.yaml`,
      `manifests/${name}.yaml`,
      `kubernetes/${name}.yaml`,
      'k8s/deployment.yaml',
      'deploy/deployment.yaml',
    ];
    offer(
      {
        kind: 'harden-workload',
        title: `Harden ${name}: no privileged container, restricted securityContext`,
        explanation:
          `${code(node.name)} can escape its container to ${code(next.name)} (T1611) on the attack path ${route} ` +
          `${scored}. Its manifest drops privileged mode and host namespaces ` +
          'and runs as non-root without privilege escalation and with every capability dropped.',
        cuts: { from: node.name, into: next.name },
        repo,
        branch: `pathgate/harden-${slugify(name)}`,
        changes: [
          { path: candidates[0], alternatives: candidates.slice(1), apply: (c) => hardenManifest(c, name) },
        ],
      },
      safe.firstRefusal(
        safe.kubernetesName(name),
        manifest === undefined ? undefined : safe.repoFilePath(manifest),
      ),
    );
  }
  // An IAM role's escalation primitives on the route: deny them to the role.
  for (const [i, node] of nodes.entries()) {
    const next = nodes[i + 1];
    if (!next || node.label !== 'IAM_Role' || !graph.hasNode(node.id) || !graph.hasNode(next.id)) continue;
    const props = graph.getNodeAttribute(node.id, 'props');
    const repo = typeof props.repo_slug === 'string' ? props.repo_slug : undefined;
    if (!repo) continue;
    const actions = new Set<string>();
    graph.forEachOutEdge(node.id, (_k, attrs, _s, to) => {
      if (attrs.type !== 'CAN_ESCALATE_TO' || to !== next.id) return;
      for (const primitive of [attrs.props?.primitives].flat())
        for (const action of String(primitive ?? '').match(/\b[a-z0-9-]+:[A-Za-z*]+\b/g) ?? [])
          actions.add(action);
    });
    if (!actions.size) continue;
    const role = node.name.split('/').pop()!;
    const resource = slugify(role).replace(/[-.]/g, '_');
    offer(
      {
        kind: 'deny-escalation',
        title: `Deny ${[...actions].sort().join(', ')} to ${role}`,
        explanation:
          `${code(role)} may escalate to ${code(next.name)} with ${[...actions].sort().map(code).join(', ')} on the attack path ${route} ` +
          `${scored}. An explicit Deny removes the grant whatever its ` +
          'allowing policies say; check that nothing the role runs needs those actions.',
        cuts: { from: node.name, into: next.name },
        repo,
        branch: `pathgate/deny-escalation-${slugify(role)}`,
        changes: [
          {
            path: `pathgate/${slugify(role)}-deny-escalation.tf`,
            apply: (current) =>
              current ??
              [
                `# Added by pathgate: removes ${role}'s escalation to ${safe.plainLine(next.name)}.`,
                `resource "aws_iam_role_policy" "pathgate_deny_escalation_${resource}" {`,
                `  name = "pathgate-deny-escalation"`,
                `  role = "${role}"`,
                '  policy = jsonencode({',
                '    Version = "2012-10-17"',
                '    Statement = [{',
                '      Effect   = "Deny"',
                `      Action   = [${[...actions]
                  .sort()
                  .map((a) => `"${a}"`)
                  .join(', ')}]`,
                '      Resource = "*"',
                '    }]',
                '  })',
                '}',
                '',
              ].join('\n'),
          },
        ],
      },
      safe.iamRoleName(role),
    );
  }
  const target = nodes.at(-1)!;
  if (target.label === 'Bucket' && graph.hasNode(target.id)) {
    const props = graph.getNodeAttribute(target.id, 'props');
    const repo = typeof props.repo_slug === 'string' ? props.repo_slug : undefined;
    if (repo && props.public_access === true) {
      // Bucket nodes are named `<account>/<bucket>` when the account is known: the resource takes the bucket.
      const bucket = target.name.split('/').pop()!;
      const resource = slugify(target.name).replace(/-/g, '_');
      offer(
        {
          kind: 'block-public-access',
          title: `Block public access to ${target.name}`,
          explanation:
            `The bucket ${code(target.name)} is readable by anyone: the attack path ${route} is direct access ` +
            `(${record.priority}). An S3 public access block closes it; check nothing public relies on it.`,
          cuts: { into: target.name },
          repo,
          branch: `pathgate/block-public-access-${slugify(target.name)}`,
          changes: [
            {
              path: `pathgate/${slugify(target.name)}-public-access-block.tf`,
              apply: (current) =>
                current ??
                [
                  `# Added by pathgate: closes the direct-access attack path to ${bucket}.`,
                  `resource "aws_s3_bucket_public_access_block" "${resource}" {`,
                  `  bucket                  = "${bucket}"`,
                  '  block_public_acls       = true',
                  '  block_public_policy     = true',
                  '  ignore_public_acls      = true',
                  '  restrict_public_buckets = true',
                  '}',
                  '',
                ].join('\n'),
            },
          ],
        },
        safe.bucketName(bucket),
      );
    }
  }
  return { fixes, refused };
}

/** The repository of the image a workload runs (Service DEPENDS_ON Image BUILT_FROM Repository). */
function imageRepoOfWorkload(graph: TenantGraph, workload: string): string | undefined {
  let slug: string | undefined;
  graph.forEachOutEdge(workload, (_k, attrs, _s, image, _sa, imageAttrs) => {
    if (!slug && attrs.type === 'DEPENDS_ON' && imageAttrs.label === 'Image') slug = repoOf(graph, image);
  });
  return slug;
}

/**
 * The Dockerfile rebuilt on its base's current patch level: a digest pin on the final `FROM` is dropped (the
 * tag's current base is taken) and the packages are upgraded right after it, with the distribution's tool.
 */
export function bumpBaseImage(
  current: string | undefined,
  os: string,
  packages: { name: string; fixed: string }[],
): string | undefined {
  if (current === undefined) return undefined;
  const lines = current.split('\n');
  const from = lines.reduce((last, line, i) => (/^\s*FROM\s/i.test(line) ? i : last), -1);
  if (from < 0) return undefined;
  const names = [...new Set(packages.map((p) => p.name))].sort();
  if (names.every((n) => lines.some((l) => /^\s*RUN\s/i.test(l) && l.includes(n) && /upgrade/.test(l))))
    return undefined;
  lines[from] = lines[from].replace(/^(\s*FROM\s+[^\s@]+)@sha256:[0-9a-f]{64}/i, '$1');
  const upgrade = /alpine/.test(os)
    ? `RUN apk upgrade --no-cache ${names.join(' ')}`
    : /(rhel|centos|fedora|rocky|alma|amazon|oracle|redhat)/.test(os)
      ? `RUN dnf upgrade -y ${names.join(' ')} && dnf clean all`
      : `RUN apt-get update && apt-get install -y --only-upgrade ${names.join(' ')} && rm -rf /var/lib/apt/lists/*`;
  lines.splice(
    from + 1,
    0,
    '# Added by pathgate: packages with fixed CVEs upgraded over the base image.',
    upgrade,
  );
  return lines.join('\n');
}

const HOST_NAMESPACES = ['hostPID', 'hostNetwork', 'hostIPC'];

/**
 * A workload's manifest hardened (comments and layout kept): in the documents that define `name` (a
 * Deployment, StatefulSet, DaemonSet, Job, CronJob or Pod), host namespaces go, and every container gets
 * privileged false, no privilege escalation, non-root, every capability dropped. Undefined when nothing
 * changes (already hardened, or the workload is not in the file).
 */
export function hardenManifest(current: string | undefined, name: string): string | undefined {
  if (current === undefined) return undefined;
  let changed = false;
  const docs = parseAllDocuments(current) as Document[];
  for (const doc of docs) {
    if (!isMap(doc.contents) || doc.getIn(['metadata', 'name']) !== name) continue;
    const kind = String(doc.get('kind') ?? '');
    const podPath =
      kind === 'Pod'
        ? ['spec']
        : kind === 'CronJob'
          ? ['spec', 'jobTemplate', 'spec', 'template', 'spec']
          : ['spec', 'template', 'spec'];
    const pod = doc.getIn(podPath);
    if (!isMap(pod)) continue;
    for (const key of HOST_NAMESPACES)
      if ((pod as YAMLMap).has(key)) {
        (pod as YAMLMap).delete(key);
        changed = true;
      }
    for (const list of ['initContainers', 'containers']) {
      const containers = (pod as YAMLMap).get(list);
      if (!isSeq(containers)) continue;
      for (const container of containers.items) {
        if (!isMap(container)) continue;
        const wanted: [string[], unknown][] = [
          [['securityContext', 'privileged'], false],
          [['securityContext', 'allowPrivilegeEscalation'], false],
          [['securityContext', 'runAsNonRoot'], true],
        ];
        for (const [at, value] of wanted)
          if (container.getIn(at) !== value) {
            container.setIn(at, value);
            changed = true;
          }
        const drop = container.getIn(['securityContext', 'capabilities', 'drop']);
        const dropped = isSeq(drop)
          ? drop.items.map((i) => String((i as { value?: unknown }).value ?? i))
          : [];
        if (!dropped.includes('ALL')) {
          container.setIn(['securityContext', 'capabilities', 'drop'], doc.createNode(['ALL']));
          changed = true;
        }
        if (container.getIn(['securityContext', 'capabilities', 'add']) !== undefined) {
          container.deleteIn(['securityContext', 'capabilities', 'add']);
          changed = true;
        }
      }
    }
  }
  if (!changed) return undefined;
  return docs.map((d) => d.toString()).join('');
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
