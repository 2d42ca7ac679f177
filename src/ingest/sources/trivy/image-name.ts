// The image a Trivy scan is of, named as the spec says (docs/identity.md): a registry scan by its reference,
// an archive by the reference it was saved under, else by its path; and the image a `trivy sbom` report
// names. nameImage and nonEmpty are shared with the grype source (re-exported by trivy.ts).
import { isImageId, parseImageRef, type ImageRef } from '../../../identity/image-ref.js';
import { reportProblem } from '../report-schema.js';
import type { TrivyMetadata, TrivyReport } from './report-shape.js';

export interface ImageName {
  name: string;
  ref?: ImageRef;
  digests: string[];
  /** Set when the image cannot be joined to anything (archive saved by image ID). */
  note?: string;
  scope?: string;
}

/**
 * The spec's naming of the scanned image; see docs/identity.md. Shared with the grype source, which passes
 * its `userInput` as ArtifactName so that both scanners name one image alike.
 */
export function nameImage(report: Pick<TrivyReport, 'ArtifactName' | 'Metadata' | 'Results'>): ImageName {
  const artifact = report.ArtifactName.trim();
  const metadata = report.Metadata ?? {};
  if (!artifact) {
    const target = report.Results?.find((r) => r.Target.trim())?.Target.replace(/\s+\(.*\)$/, '');
    throw reportProblem('trivy', [
      {
        pointer: '/ArtifactName',
        value: report.ArtifactName,
        detail:
          'empty: the report does not say which image was scanned' +
          (target ? ` (its first target is "${target}"; scan the image by that reference)` : ''),
      },
    ]);
  }
  const digests = [...new Set(nonEmpty(metadata.RepoDigests)?.flatMap(digestOf) ?? [])];
  if (!isArchive(artifact) && !isImageId(artifact)) {
    const ref = parseImageRef(artifact);
    if (!ref) {
      throw reportProblem('trivy', [
        {
          pointer: '/ArtifactName',
          value: report.ArtifactName,
          detail:
            'neither an image reference (registry/name:tag or name@sha256:...) nor an image archive path',
        },
      ]);
    }
    if (ref.digest && !digests.includes(ref.digest)) digests.push(ref.digest);
    return { name: ref.canonical, ref, digests, scope: `image:${ref.canonical}` };
  }
  // An archive (or an image given by ID): the reference it was saved under, if it has one.
  const tagged = [metadata.Reference, ...(nonEmpty(metadata.RepoTags) ?? [])]
    .filter((r): r is string => typeof r === 'string' && r.trim() !== '' && !isImageId(r))
    .map((r) => parseImageRef(r))
    .find((r): r is ImageRef => r !== undefined);
  if (tagged) {
    if (tagged.digest && !digests.includes(tagged.digest)) digests.push(tagged.digest);
    return { name: tagged.canonical, ref: tagged, digests, scope: `image:${tagged.canonical}` };
  }
  return {
    name: artifact,
    digests,
    note:
      `archive saved by image ID${metadata.ImageID ? ` (${metadata.ImageID})` : ''}: ` +
      'it carries no reference, so it keeps its path and joins no build, workload or attestation',
  };
}

function isArchive(artifact: string): boolean {
  return (
    /\.(?:tar|tar\.gz|tgz|tar\.zst|tar\.xz|tar\.bz2)$/i.test(artifact) ||
    artifact.startsWith('/') ||
    artifact.startsWith('./') ||
    artifact.startsWith('../')
  );
}

/** `alpine@sha256:abc` -> `sha256:abc` */
function digestOf(repoDigest: string): string[] {
  const digest = parseImageRef(repoDigest)?.digest;
  return digest ? [digest] : [];
}

export function nonEmpty(values: string[] | null | undefined): string[] | undefined {
  const kept = (values ?? []).filter((v) => typeof v === 'string' && v.trim() !== '');
  return kept.length ? kept : undefined;
}

/**
 * The image a `trivy sbom` report names: the reference Trivy carried over from the SBOM
 * (`Metadata.Reference`, `RepoTags`, `RepoDigests`), if any. An SBOM scan without one describes a
 * repository or needs `?image=` (`pathgate ingestreal` names the folder's repository then, as it does for an
 * SBOM of no image).
 */
export function sbomScanImage(report: { Metadata?: TrivyMetadata }): string | undefined {
  const metadata = report.Metadata ?? {};
  return [
    metadata.Reference,
    ...(nonEmpty(metadata.RepoTags) ?? []),
    ...(nonEmpty(metadata.RepoDigests) ?? []),
  ].find(
    (r): r is string =>
      typeof r === 'string' && r.trim() !== '' && !isImageId(r) && parseImageRef(r) !== undefined,
  );
}
