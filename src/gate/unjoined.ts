// What an `unknown` gate answer read and could not join to the estate, and the step that would join it
// (issue 32: "an unknown names what the gate read ... and the step that would join it"). Each entry is one
// image, repository or other asset the report states that no live node is, with why (which identity rules
// were tried) and a hint naming the call that makes the next gate join it: a build record, a `slug`, a
// `?repo=`, the qualifiers a cloud or cluster report is named by.
import { parseImageRef } from '../identity/image-ref.js';
import type { Overlay } from './overlay.js';
import { isRepositoryOfSlug } from './successor.js';

export interface Unjoined {
  kind: 'image' | 'repository' | 'asset' | 'artifact';
  /** the node's label (Image, Repository, VirtualMachine, Service, ...) */
  label: string;
  name: string;
  /** why it joined nothing the estate holds */
  reason: string;
  /** the step that would join it */
  hint: string;
}

/** Labels the estate shares across artifacts (a library is in many images): they never join a report. */
const CONTENT_LABELS: ReadonlySet<string> = new Set(['Library', 'Package', 'CVE', 'Weakness']);
const CLOUD_LABELS: ReadonlySet<string> = new Set([
  'VirtualMachine',
  'SecurityGroup',
  'IAM_Role',
  'User',
  'Bucket',
  'Database',
  'LoadBalancer',
]);
/** At most this many entries: the first of each kind, images and repositories before other assets. */
const MAX_ENTRIES = 20;

export function unjoinedOf(
  overlay: Overlay,
  query: Record<string, string | undefined>,
  artifact: string | undefined,
): { unjoined: Unjoined[]; unjoinedCount: number } {
  const slug = query.slug?.trim().toLowerCase();
  let slugRepository: string | undefined;
  if (slug)
    overlay.base.forEachNode((_id, attrs) => {
      if (!slugRepository && isRepositoryOfSlug(attrs, slug)) slugRepository = attrs.name;
    });
  const entries: Unjoined[] = [];
  overlay.forEachAddedNode((_id, attrs) => {
    if (CONTENT_LABELS.has(attrs.label)) return;
    if (attrs.label === 'Image') entries.push(image(attrs.name, slug, slugRepository));
    else if (attrs.label === 'Repository') entries.push(repository(attrs.name, slug));
    else entries.push(asset(attrs.label, attrs.name, attrs.props, query));
  });
  // Only shared content (libraries, packages, CVEs) and nothing that holds it: name the artifact.
  if (!entries.length)
    entries.push({
      kind: 'artifact',
      label: 'Artifact',
      name: artifact ?? 'the report',
      reason:
        'the report states only libraries, packages or CVEs, and names no image, repository or asset the estate holds that contains them',
      hint: 'say what was scanned: ?image=<the image the estate runs> or ?repo=<the repository as the estate names it> (a scan of a checkout: the Action sends slug=<owner/repo>)',
    });
  const rank = { image: 0, repository: 1, asset: 2, artifact: 3 } as const;
  entries.sort((a, b) => rank[a.kind] - rank[b.kind] || a.name.localeCompare(b.name));
  return { unjoined: entries.slice(0, MAX_ENTRIES), unjoinedCount: entries.length };
}

function image(name: string, slug: string | undefined, slugRepository: string | undefined): Unjoined {
  const ref = parseImageRef(name);
  const repositoryOfImage = ref?.repository ?? name;
  const reason = [
    `no image the estate runs has its digest, tag or bare name (${repositoryOfImage})`,
    slug
      ? slugRepository
        ? `the repository of slug ${slug} (${slugRepository}) builds no image of ${repositoryOfImage} the estate runs`
        : `the estate holds no repository of slug ${slug}`
      : 'the call named no slug',
    'and no build record ties an image of this image repository to a repository the estate runs',
  ].join('; ');
  return {
    kind: 'image',
    label: 'Image',
    name,
    reason,
    hint: `record where the running image comes from: POST /ingest/build {"image": "<the image the estate runs>", "repository": "<its repository>"${slug ? `, "slug": "${slug}"` : ''}}, then gate again with slug=<owner/repo> (the Action sends it): the gate evaluates ${name} in place of that repository's running images`,
  };
}

function repository(name: string, slug: string | undefined): Unjoined {
  return {
    kind: 'repository',
    label: 'Repository',
    name,
    reason: `the estate holds no Repository named ${name}${slug ? ` or of slug ${slug}` : ''}, so nothing it builds is known to run`,
    hint: `name the repository as the estate does with ?repo=<name>, or record a build of it (POST /ingest/build {"image": "<image the estate runs>", "repository": "${name}"})`,
  };
}

function asset(
  label: string,
  name: string,
  props: Record<string, unknown>,
  query: Record<string, string | undefined>,
): Unjoined {
  let hint = `ingest the estate's ${label} first (the inventory this report's names must match), or send the report with the qualifiers the estate's names carry`;
  if (CLOUD_LABELS.has(label) && !query.account)
    hint = `qualify the report's names as the estate's are: ?account=<account id> (and ?region=), or ingest the account's inventory first`;
  else if (CLOUD_LABELS.has(label))
    hint = `the estate holds no ${label} of account ${query.account} named so: check ?account=${query.account}, or ingest that account's inventory first`;
  else if (props.namespace !== undefined || props.cluster !== undefined)
    hint = query.cluster
      ? `the estate holds no such object in cluster ${query.cluster}: check ?cluster=, or ingest that cluster (POST /ingest/k8s)`
      : `name the cluster the manifests run in with ?cluster=<name> (the Action's and CLI's -cluster)`;
  return {
    kind: 'asset',
    label,
    name,
    reason: `the estate holds no ${label} named ${name}, and the report relates it to nothing the estate holds`,
    hint,
  };
}
