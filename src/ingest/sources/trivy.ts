// Source `trivy`: a Trivy JSON report (SchemaVersion 2) of a container image. The image is named as the spec
// says (docs/identity.md): a registry scan by its reference, an archive scan by `Metadata.Reference` or its
// first tag, an archive saved by image ID by its path (with `name_note`, joining nothing). Each
// vulnerability is a CVE node that AFFECTS the image; language packages (jar, npm, pip, gobinary, ...) are
// Library nodes the image DEPENDS_ON, and their CVEs AFFECT them too. Secrets and failed misconfiguration
// checks Trivy found in the image become Secret and Misconfiguration nodes. A scan by reference is complete
// for its image: the next one retracts the CVEs and libraries it no longer lists. A `trivy fs` / `trivy repo`
// report (ArtifactType `filesystem`, `repository`) describes a Repository instead (DECISIONS "Code to
// cloud"): named from its URL (`github.com/<owner>/<repo>`) or, for a local path, from `?repo=`; it
// DEPENDS_ON its libraries, and its secrets and misconfigurations AFFECT it. Complete per repository. A
// `trivy k8s` report (a `ClusterName`, trivy-k8s.ts) holds image scans, mapped as above, and each object's
// manifest checks, which AFFECT the node the k8s source draws for the object (in `?cluster=`); partial.
// A `trivy sbom` report (ArtifactType `cyclonedx`, `spdx`) is a scan of what the SBOM describes: the image
// it names (or `?image=`), or `?repo=`'s repository; complete for that subject as an SBOM scan.
// A misconfiguration is named by its canonical check id, whichever Trivy version wrote it (check-id.ts).
import { MAX_REPORTED_ERRORS } from '../envelope.js';
import { EnvelopeBuilder } from './envelope-builder.js';
import { reportProblem, reportSchema } from './report-schema.js';
import type { IngestSource } from './source.js';
import { CLUSTER_LISTS, looksLikeClusterReport, type TrivyClusterReport } from './trivy-k8s.js';
import { looksLikeOperatorReports, readOperatorReports } from './trivy-operator.js';
import { mapClusterReading, normalizeCluster } from './trivy/cluster-scan.js';
import { mapImage } from './trivy/image-scan.js';
import { CLUSTER_RESOURCES, METADATA, RESULTS, type TrivyReport } from './trivy/report-shape.js';
import { normalizeRepository } from './trivy/repository-scan.js';
import { normalizeSbomScan } from './trivy/sbom-scan.js';

export { libraryRef } from './trivy/findings.js';
export { nameImage, nonEmpty, type ImageName } from './trivy/image-name.js';

/** The ArtifactType of a `trivy sbom` run, by the SBOM's format. */
const SBOM_FORMATS = new Set(['cyclonedx', 'spdx']);

export function createTrivySource(): IngestSource {
  const check = reportSchema<TrivyReport>('trivy', {
    type: 'object',
    required: ['SchemaVersion', 'ArtifactName'],
    properties: {
      SchemaVersion: { const: 2 },
      ArtifactName: { type: 'string' },
      ArtifactType: { type: 'string' },
      CreatedAt: { type: 'string' },
      Metadata: METADATA,
      Results: RESULTS,
    },
  });
  const checkCluster = reportSchema<TrivyClusterReport>('trivy', {
    type: 'object',
    required: ['ClusterName'],
    properties: {
      ClusterName: { type: 'string' },
      SchemaVersion: { type: 'number' },
      ...Object.fromEntries(CLUSTER_LISTS.map((list) => [list, CLUSTER_RESOURCES])),
    },
  });
  return {
    name: 'trivy',
    version: '2',
    description:
      "Trivy JSON (SchemaVersion 2): image scans (Image, CVE AFFECTS Image, Image DEPENDS_ON Library; complete per image), fs/repo scans (Repository DEPENDS_ON Library; complete per repository), `trivy sbom` scans (of the image or repository the SBOM describes) and `trivy k8s` reports (the images of a cluster's workloads, their manifests' misconfigurations; partial).",
    snapshots: 'self',
    normalize({ body, query, receivedAt }) {
      if (isLegacyTrivyReport(body)) {
        throw reportProblem('trivy', [
          {
            pointer: '/',
            detail:
              'a bare list of results with no SchemaVersion: the JSON of Trivy 0.19 or older, which names no ' +
              'scanned image or repository; rescan with Trivy 0.20 or later (`trivy image -f json`, SchemaVersion 2)',
          },
        ]);
      }
      if (looksLikeClusterReport(body)) return normalizeCluster(checkCluster(body), query, receivedAt);
      if (looksLikeOperatorReports(body)) {
        const reading = readOperatorReports(body);
        if (reading.errors.length) throw reportProblem('trivy', reading.errors.slice(0, MAX_REPORTED_ERRORS));
        return mapClusterReading(reading, query, receivedAt, 'Trivy Operator reports');
      }
      const report = check(body);
      if (report.ArtifactType === 'filesystem' || report.ArtifactType === 'repository')
        return normalizeRepository(report, query, receivedAt);
      if (report.ArtifactType !== undefined && SBOM_FORMATS.has(report.ArtifactType))
        return normalizeSbomScan(report, query, receivedAt);
      if (report.ArtifactType !== undefined && report.ArtifactType !== 'container_image') {
        throw reportProblem('trivy', [
          {
            pointer: '/ArtifactType',
            value: report.ArtifactType,
            detail:
              'not a scan pathgate reads: `trivy image` (container_image), `trivy fs` (filesystem), `trivy repo` (repository) or `trivy sbom` (cyclonedx, spdx)',
          },
        ]);
      }
      const out = new EnvelopeBuilder('trivy', 'finding', receivedAt);
      const warnings: string[] = [];
      const { image, cves } = mapImage(out, report, warnings);
      if (image.note) warnings.push(`trivy report: ${image.note}`);
      // CVE nodes are shared by every image they affect: a pull-request stamp belongs on the image only.
      return { envelopes: [out.build()], warnings, scope: image.scope, mentioned: cves };
    },
  };
}

/**
 * Trivy's JSON before SchemaVersion 2 (0.19 and older): a bare list of results (`Target`, `Type`,
 * `Vulnerabilities`). Recognised so that it is refused by name rather than skipped as no report at all.
 */
export function isLegacyTrivyReport(value: unknown): boolean {
  return (
    Array.isArray(value) &&
    value.length > 0 &&
    value.every(
      (item: unknown) =>
        typeof item === 'object' &&
        item !== null &&
        typeof (item as { Target?: unknown }).Target === 'string' &&
        ('Vulnerabilities' in item || 'Type' in item),
    )
  );
}
