// A `trivy k8s --format json` report, read for the trivy source (trivy.ts maps what this returns). Its shape
// is not an image scan's: a top-level `ClusterName` and one list of per-object entries, each `{Namespace,
// Kind, Name, Metadata?, Results, Error?}` (aquasecurity/trivy pkg/k8s/report): `Resources` (`--report all`,
// the default since 2023), `Findings` (`--report summary`, a workload's entries merged), or, before 2023,
// `Vulnerabilities` and `Misconfigurations`. An object's entry holds either the scan of one image its pods
// run (since Trivy 0.57 one entry per image, `Metadata` a list of that image's one metadata; before, the
// metadata itself; in 2022 none) or the checks of its own manifest (`Type: kubernetes`, `Target:
// <Kind>/<Name>`). This file splits a report into those two: image scans, named by the reference Trivy
// pulled (the manifest's `image`, which the OS result's Target repeats), and manifest findings, named by
// the object. What it cannot place (Kubernetes components' CVEs, an image it cannot name, a failed scan)
// is said in a warning.
import { isImageId, parseImageRef } from '../../identity/image-ref.js';
import type { TrivyMetadata, TrivyResult } from './trivy/report-shape.js';

/** Where a `trivy k8s` report lists its objects, in every version. */
export const CLUSTER_LISTS = ['Resources', 'Findings', 'Vulnerabilities', 'Misconfigurations'] as const;
const CLUSTER_KEYS = new Set<string>(['SchemaVersion', 'ClusterName', ...CLUSTER_LISTS]);

export interface TrivyClusterReport {
  ClusterName: string;
  SchemaVersion?: number;
  Resources?: TrivyK8sResource[] | null;
  Findings?: TrivyK8sResource[] | null;
  Vulnerabilities?: TrivyK8sResource[] | null;
  Misconfigurations?: TrivyK8sResource[] | null;
}

export interface TrivyK8sResource {
  Namespace?: string;
  Kind: string;
  Name: string;
  Metadata?: TrivyMetadata | TrivyMetadata[] | null;
  Results?: TrivyResult[] | null;
  Error?: string;
}

/** One image an object runs, with the results of its scan, as an image report would carry them. */
export interface ClusterImageScan {
  /** The reference Trivy scanned, as the manifest writes it. */
  ref: string;
  metadata?: TrivyMetadata;
  results: TrivyResult[];
  /** JSON pointers of the results, in the order of `results`. */
  pointers: string[];
}

/** The checks of one object's manifest. */
export interface ClusterObjectFindings {
  kind: string;
  /** Empty for a cluster-scoped object. */
  namespace: string;
  name: string;
  results: TrivyResult[];
  pointers: string[];
}

export interface ClusterReading {
  images: ClusterImageScan[];
  objects: ClusterObjectFindings[];
  warnings: string[];
}

/**
 * Objects whose entries hold Kubernetes' own components (kubelet, API server, the cluster's version)
 * matched against the Kubernetes vulnerability feed: no image, no object a dump describes.
 */
const COMPONENT_KINDS = new Set(['NodeComponents', 'ControlPlaneComponents', 'Cluster']);

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Whether a parsed report is a `trivy k8s` JSON report: `ClusterName`, and nothing but the lists above and
 * a schema version (an empty scan is `{"ClusterName": "..."}` alone). Recognition for `pathgate ingestreal`.
 */
export function isTrivyClusterReport(report: unknown): boolean {
  if (!isObject(report) || typeof report.ClusterName !== 'string') return false;
  return Object.entries(report).every(
    ([key, value]) =>
      CLUSTER_KEYS.has(key) &&
      (!(CLUSTER_LISTS as readonly string[]).includes(key) || value === null || Array.isArray(value)),
  );
}

/** Whether the trivy source should read a body as a cluster report (its schema then names what is wrong). */
export function looksLikeClusterReport(body: unknown): boolean {
  return isObject(body) && 'ClusterName' in body && !('ArtifactName' in body);
}

/** A report's image scans and manifest findings, each with its JSON pointers, and what could not be placed. */
export function readClusterReport(report: TrivyClusterReport): ClusterReading {
  const reading: ClusterReading = { images: [], objects: [], warnings: [] };
  const unplaced = new Unplaced();
  for (const list of CLUSTER_LISTS) {
    for (const [index, resource] of (report[list] ?? []).entries()) {
      const at = `/${list}/${index}`;
      const object = `${resource.Kind} ${resource.Namespace ? `${resource.Namespace}/` : ''}${resource.Name}`;
      if (resource.Error) unplaced.add('failed', `${object} (${resource.Error.slice(0, 200)})`);
      const results = resource.Results ?? [];
      if (COMPONENT_KINDS.has(resource.Kind)) {
        if (results.some((r) => r.Vulnerabilities?.length)) unplaced.add('components', object);
        continue;
      }
      const manifest: number[] = [];
      const image: number[] = [];
      for (const [i, result] of results.entries()) {
        // The 2022 lists say which is which; since, the manifest's own results are Type `kubernetes`.
        const ofManifest =
          list === 'Misconfigurations' ||
          (list !== 'Vulnerabilities' &&
            (result.Type === 'kubernetes' || result.Target === `${resource.Kind}/${resource.Name}`));
        (ofManifest ? manifest : image).push(i);
      }
      if (manifest.length)
        reading.objects.push({
          // Trivy's node collector reports a node's checks as a `NodeInfo` of the node's name.
          kind: resource.Kind === 'NodeInfo' ? 'Node' : resource.Kind,
          namespace: resource.Namespace ?? '',
          name: resource.Name,
          results: manifest.map((i) => results[i]),
          pointers: manifest.map((i) => `${at}/Results/${i}`),
        });
      if (image.length) splitImages(resource, at, image, reading, unplaced, object);
    }
  }
  reading.warnings.push(...unplaced.warnings());
  return reading;
}

/** The reference an OS result names: its Target is `<reference> (<os> <version>)`. */
function osTargetRef(result: TrivyResult): string | undefined {
  if (result.Class !== 'os-pkgs') return undefined;
  const ref = result.Target.replace(/ \(.*\)$/, '').trim();
  return ref || undefined;
}

/** The reference an image's metadata names: the one it was pulled by, else its first tag. */
function metadataRef(metadata: TrivyMetadata): string | undefined {
  const candidates = [metadata.Reference, ...(metadata.RepoTags ?? [])];
  return candidates.find((r): r is string => typeof r === 'string' && r.trim() !== '')?.trim();
}

/** An object's image results, grouped by the image each belongs to. */
function splitImages(
  resource: TrivyK8sResource,
  at: string,
  indexes: number[],
  reading: ClusterReading,
  unplaced: Unplaced,
  object: string,
): void {
  const results = resource.Results ?? [];
  const metadata = [resource.Metadata ?? []].flat().filter(isObject) as TrivyMetadata[];
  const fromTargets = [
    ...new Set(indexes.map((i) => osTargetRef(results[i])).filter((r) => r !== undefined)),
  ];
  const refs = fromTargets.length
    ? fromTargets
    : [...new Set(metadata.map(metadataRef).filter((r) => r !== undefined))];
  const scans = new Map<string, ClusterImageScan>();
  for (const ref of refs) {
    if (!parseImageRef(ref) || isImageId(ref)) {
      unplaced.add('unreadable', `${object} (${JSON.stringify(ref)})`);
      continue;
    }
    const own =
      metadata.length === 1 && refs.length === 1
        ? metadata[0]
        : metadata.find((m) => m.Reference === ref || m.RepoTags?.includes(ref));
    scans.set(ref, { ref, metadata: own, results: [], pointers: [] });
  }
  for (const i of indexes) {
    const result = results[i];
    // A result that names no image (a language package, a secret) is the object's one image's, if it has one.
    const ref = osTargetRef(result) ?? (refs.length === 1 ? refs[0] : undefined);
    const scan = ref === undefined ? undefined : scans.get(ref);
    if (scan) {
      scan.results.push(result);
      scan.pointers.push(`${at}/Results/${i}`);
    } else if (ref === undefined && (result.Vulnerabilities?.length || result.Secrets?.length))
      unplaced.add(refs.length ? 'ambiguous' : 'unnamed', `${object} (${at}/Results/${i})`);
  }
  reading.images.push(...scans.values());
}

const UNPLACED: Record<string, string> = {
  failed: 'Trivy could not scan',
  components: "Kubernetes components' CVEs (kubelet, control plane) are not mapped to any node",
  unreadable: 'images that are not image references, not mapped',
  unnamed: 'image results naming no image (no OS result, no metadata reference or tag), skipped',
  ambiguous: 'results of an object running several images that name none of them, skipped',
};

/** What could not be placed, by why, said once per why with the first few cases. */
class Unplaced {
  private readonly byWhy = new Map<string, string[]>();

  add(why: keyof typeof UNPLACED, what: string): void {
    const list = this.byWhy.get(why) ?? [];
    this.byWhy.set(why, list);
    list.push(what);
  }

  warnings(): string[] {
    return [...this.byWhy].map(([why, list]) => {
      const shown = list.slice(0, 5);
      if (list.length > 5) shown.push(`and ${list.length - 5} more`);
      return `trivy k8s report: ${UNPLACED[why]}: ${shown.join(', ')}`;
    });
  }
}
