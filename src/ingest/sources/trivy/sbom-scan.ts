// A `trivy sbom` report mapped onto what the SBOM describes: `?repo=`'s repository, `?image=`'s image, or
// the image Trivy carried over from the SBOM; complete for that subject as an SBOM scan (scope `#sbom`).
import { ProblemError } from '../../../http/problems.js';
import { isImageId, parseImageRef } from '../../../identity/image-ref.js';
import { EnvelopeBuilder } from '../envelope-builder.js';
import type { IngestSource } from '../source.js';
import { sbomScanImage } from './image-name.js';
import { mapImage } from './image-scan.js';
import type { TrivyReport } from './report-shape.js';
import { normalizeRepository } from './repository-scan.js';

/**
 * A `trivy sbom` report: Trivy's findings on the packages an SBOM lists, about what the SBOM describes. Its
 * ArtifactName is the SBOM file's path and names nothing. `?repo=` makes it a code scan of that repository,
 * `?image=` a scan of that image; without either, the image reference Trivy carried over from the SBOM
 * (`Metadata.Reference`, `RepoTags`, `RepoDigests`) names the image, and a report with none is refused
 * (an image ID alone joins no workload). It is complete for its subject as a scan of an SBOM (the scope
 * ends `#sbom`): an image scan and a scan of the image's SBOM read different artifacts (the SBOM lists no
 * secret and runs no check), so neither retracts what the other found; the next scan of an SBOM of the
 * same subject retracts what it no longer lists.
 */
export function normalizeSbomScan(
  report: TrivyReport,
  query: Record<string, string | undefined>,
  receivedAt: string,
): ReturnType<IngestSource['normalize']> {
  if (query.repo?.trim()) {
    const output = normalizeRepository(report, query, receivedAt);
    return { ...output, scope: `${output.scope}#sbom` };
  }
  const metadata = report.Metadata ?? {};
  const given = query.image?.trim();
  if (given !== undefined && given !== '' && (isImageId(given) || !parseImageRef(given))) {
    throw new ProblemError('invalid-query', `?image=${JSON.stringify(given)} is not an image reference`, {
      errors: [
        {
          pointer: '/query/image',
          value: given,
          detail: 'an image reference (registry/name:tag or name@sha256:...) is required',
        },
      ],
    });
  }
  const reference = given || sbomScanImage(report);
  if (!reference) {
    throw new ProblemError(
      'invalid-query',
      `trivy ${report.ArtifactType} report of the SBOM ${JSON.stringify(report.ArtifactName)}: the SBOM names no ` +
        'image Trivy could carry over; name what it describes with ?image=<reference> or ?repo=<repository>',
      {
        errors: [
          {
            pointer: '/query/image',
            value: query.image ?? null,
            detail:
              `required (or ?repo=): /ArtifactName ${JSON.stringify(report.ArtifactName)} is the SBOM's path` +
              (metadata.ImageID ? `, and the image ID ${metadata.ImageID} alone joins no workload` : ''),
          },
        ],
      },
    );
  }
  const out = new EnvelopeBuilder('trivy', 'finding', receivedAt);
  const warnings: string[] = [];
  const { image, cves } = mapImage(out, { ...report, ArtifactName: reference }, warnings);
  const scope = image.scope === undefined ? undefined : `${image.scope}#sbom`;
  return { envelopes: [out.build()], warnings, scope, mentioned: cves };
}
