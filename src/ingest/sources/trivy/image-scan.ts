// A container image scan mapped into an envelope: the image, named as the spec says, its libraries, the CVEs
// affecting them, its secrets and failed checks. A `trivy image` report, a `trivy sbom` report of an image
// and each image of a cluster's reports are mapped alike.
import type { EnvelopeBuilder } from '../envelope-builder.js';
import { addResultFindings } from './findings.js';
import { nameImage, nonEmpty, type ImageName } from './image-name.js';
import type { TrivyReport } from './report-shape.js';

/**
 * A container image scan into `out`: the image, named as the spec says, its libraries, the CVEs affecting
 * them, its secrets and failed checks. `pointers`: each result's JSON pointer (a cluster report's differ).
 * Returns the image's name and the CVEs it mentions.
 */
export function mapImage(
  out: EnvelopeBuilder,
  report: TrivyReport,
  warnings: string[],
  pointers?: string[],
): { image: ImageName; cves: string[] } {
  const image = nameImage(report);
  const metadata = report.Metadata ?? {};
  const results = report.Results ?? [];
  // A scan for secrets or misconfigurations alone (`--scanners secret`, an operator's ExposedSecretReport)
  // looked for no vulnerability: no count, so the image is not priced as scanned clean.
  const vulnerabilities =
    results.length > 0 && results.every((r) => r.Class === 'secret' || r.Class === 'config')
      ? undefined
      : results.reduce((n, r) => n + (r.Vulnerabilities?.length ?? 0), 0);
  const os = metadata.OS?.Family ? `${metadata.OS.Family} ${metadata.OS.Name ?? ''}`.trim() : undefined;
  const imageId = out.node('Image', image.name, {
    image_ref: image.ref?.raw ?? report.ArtifactName,
    registry: image.ref?.registry,
    repo_tags: nonEmpty(metadata.RepoTags),
    digests: image.digests.length ? image.digests : undefined,
    image_id: metadata.ImageID,
    name_note: image.note,
    os,
    os_eosl: metadata.OS?.EOSL,
    scanner: 'trivy',
    scanner_version: report.Trivy?.Version,
    scanned_at: report.CreatedAt,
    vulnerability_count: vulnerabilities,
  });
  // The packages each CVE was found in: one image, one CVE, possibly several packages.
  const packagesOf = new Map<string, Set<string>>();
  addResultFindings(out, imageId, image.name, results, warnings, {
    pointers,
    found: (cve, vulnerability) => {
      let packages = packagesOf.get(cve);
      if (!packages) packagesOf.set(cve, (packages = new Set()));
      if (vulnerability.PkgName) packages.add(vulnerability.PkgName);
    },
  });
  for (const [cve, packages] of packagesOf) {
    if (packages.size > 1) out.edge('AFFECTS', cve, imageId, { properties: { packages: [...packages] } });
  }
  return { image, cves: [...packagesOf.keys()] };
}
