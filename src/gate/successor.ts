// Successor images (docs/gate.md, docs/identity.md): a pull request builds a new image of a repository
// (`ghcr.io/acme/shop:<head sha>`) while the estate runs an older one (`ghcr.io/acme/shop:1.0`). The new
// tag never joins the running image by identity, so the gate evaluates it in place of the live images
// built from the same repository: every workload running one of them runs the pull request's image in
// the overlay. The repository an image is built from is known from the report's `slug`, from a build
// record (a live image of the same image repository BUILT_FROM a Repository), or from provenance in the
// report itself (its own BUILT_FROM edges).
import { parseImageRef } from '../identity/image-ref.js';
import type { Overlay } from './overlay.js';

export interface Succession {
  /** the pull request's image (an overlay node) */
  image: string;
  imageName: string;
  /** the live images it replaces */
  replaces: { id: string; name: string }[];
  /** the workloads that now run it */
  workloads: string[];
  /** how the repository was known: `slug`, `build record` or `provenance` */
  basis: string[];
}

/** Lays each new image of the report over the live images of its repository; returns what it replaced. */
export function substituteSuccessors(overlay: Overlay, slug: string | undefined): Succession[] {
  const live = overlay.base;
  const added: string[] = [];
  overlay.forEachAddedNode((id, attrs) => {
    if (attrs.label === 'Image') added.push(id);
  });
  if (!added.length) return [];

  // Repository nodes by slug, and the images built from each (live build records and provenance).
  const wantedSlug = slug?.toLowerCase();
  const bySlug = new Set<string>();
  const builtFrom = new Map<string, Set<string>>();
  live.forEachNode((id, attrs) => {
    if (wantedSlug && isRepositoryOfSlug(attrs, wantedSlug)) bySlug.add(id);
  });
  live.forEachEdge((_key, attrs, source, target, sourceAttrs, targetAttrs) => {
    if (attrs.type !== 'BUILT_FROM' || sourceAttrs.label !== 'Image' || targetAttrs.label !== 'Repository')
      return;
    let images = builtFrom.get(target);
    if (!images) builtFrom.set(target, (images = new Set()));
    images.add(source);
  });
  const imageRepository = (name: string) => parseImageRef(name)?.repository;

  const successions: Succession[] = [];
  for (const image of added) {
    const name = overlay.getNodeAttributes(image).name;
    const ownRepository = imageRepository(name);
    const repositories = new Map<string, Set<string>>();
    const note = (repository: string, basis: string) => {
      let bases = repositories.get(repository);
      if (!bases) repositories.set(repository, (bases = new Set()));
      bases.add(basis);
    };
    for (const id of bySlug) note(id, 'slug');
    // Provenance in the report: the new image says which repository it was built from.
    for (const e of overlay.ownEdges())
      if (e.from === image && e.attrs.type === 'BUILT_FROM' && live.hasNode(e.to)) note(e.to, 'provenance');
    // A build record: a live image of the same image repository was built from a Repository.
    if (ownRepository)
      for (const [repository, images] of builtFrom)
        for (const other of images)
          if (imageRepository(live.getNodeAttributes(other).name) === ownRepository)
            note(repository, 'build record');
    if (!repositories.size) continue;

    let predecessors = new Set<string>();
    for (const repository of repositories.keys())
      for (const other of builtFrom.get(repository) ?? []) if (other !== image) predecessors.add(other);
    // A repository that builds several images (a monorepo): the PR's image replaces those of its own name.
    const sameName = [...predecessors].filter(
      (id) => imageRepository(live.getNodeAttributes(id).name) === ownRepository,
    );
    if (sameName.length) predecessors = new Set(sameName);
    if (!predecessors.size) continue;

    const workloads = new Set<string>();
    for (const predecessor of predecessors) {
      const runs: string[] = [];
      live.forEachInEdge(predecessor, (key, attrs, source, _target, sourceAttrs) => {
        if (attrs.type === 'DEPENDS_ON' && sourceAttrs.label !== 'Image') {
          runs.push(key);
          workloads.add(source);
        }
      });
      for (const key of runs) overlay.retarget(key, image);
    }
    if (!workloads.size) continue;
    successions.push({
      image,
      imageName: name,
      replaces: [...predecessors].map((id) => ({ id, name: live.getNodeAttributes(id).name })),
      workloads: [...workloads],
      basis: [...new Set([...repositories.values()].flatMap((b) => [...b]))].sort(),
    });
  }
  return successions;
}

/**
 * Whether a node is the Repository a pull request's slug (`owner/name`, lowercased) names: its `repo_slug`,
 * or a name that is the slug or ends with it (`github.com/owner/name`, as build records and provenance write).
 */
export function isRepositoryOfSlug(
  attrs: { label: string; name: string; props: Record<string, unknown> },
  slug: string,
): boolean {
  if (attrs.label !== 'Repository') return false;
  const own = typeof attrs.props.repo_slug === 'string' ? attrs.props.repo_slug.toLowerCase() : '';
  const name = attrs.name.toLowerCase().replace(/\.git$/, '');
  return own === slug || name === slug || name.endsWith(`/${slug}`);
}
