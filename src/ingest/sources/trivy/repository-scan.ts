// A `trivy fs` / `trivy repo` report (or a `trivy sbom` report given `?repo=`) mapped onto the Repository it
// read, named from its URL or by `?repo=`: the libraries it DEPENDS_ON, their CVEs, its secrets and failed
// checks. Complete per repository.
import { ProblemError } from '../../../http/problems.js';
import { repositoryFromUrl } from '../../../identity/repository-name.js';
import { EnvelopeBuilder } from '../envelope-builder.js';
import type { IngestSource } from '../source.js';
import { addResultFindings } from './findings.js';
import type { TrivyReport } from './report-shape.js';

/** A `trivy fs` / `trivy repo` report: the Repository, its libraries and their CVEs, secrets, misconfigurations. */
export function normalizeRepository(
  report: TrivyReport,
  query: Record<string, string | undefined>,
  receivedAt: string,
): ReturnType<IngestSource['normalize']> {
  const name = nameRepository(report, query);
  const metadata = report.Metadata ?? {};
  const results = report.Results ?? [];
  const warnings: string[] = [];
  const out = new EnvelopeBuilder('trivy', 'finding', receivedAt);
  const repository = out.node('Repository', name, {
    code_scanner: 'trivy',
    artifact_type: report.ArtifactType,
    artifact_name: report.ArtifactName,
    repo_url: metadata.RepoURL,
    branch: metadata.Branch,
    commit_sha: metadata.Commit?.toLowerCase(),
    scanner_version: report.Trivy?.Version,
    scanned_at: report.CreatedAt,
    vulnerability_count: results.reduce((n, r) => n + (r.Vulnerabilities?.length ?? 0), 0),
  });
  const cves = new Set<string>();
  addResultFindings(out, repository, name, results, warnings, { found: (cve) => cves.add(cve) });
  return { envelopes: [out.build()], warnings, scope: `repo:${name}`, mentioned: [...cves] };
}

/**
 * The repository a code scan read: `?repo=` when given, else the report's URL (`ArtifactName` or
 * `Metadata.RepoURL`) written `host/owner/name`, the form build provenance uses. A local path names
 * nothing, so `?repo=` is required then.
 */
function nameRepository(report: TrivyReport, query: Record<string, string | undefined>): string {
  const given = query.repo?.trim();
  if (given) return given;
  const fromUrl = [report.ArtifactName, report.Metadata?.RepoURL]
    .map((candidate) => repositoryFromUrl(candidate))
    .find((r): r is string => r !== undefined);
  if (fromUrl) return fromUrl;
  throw new ProblemError(
    'invalid-query',
    `trivy ${report.ArtifactType} report of a local path (${report.ArtifactName}): name its repository with ?repo=<repository>`,
    {
      errors: [
        {
          pointer: '/query/repo',
          value: query.repo ?? null,
          detail: `required: /ArtifactName "${report.ArtifactName}" is a path, not a repository URL`,
        },
      ],
    },
  );
}
