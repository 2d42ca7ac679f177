// Source `semgrep`: `semgrep --json` output for the repository named by `?repo=` (required; it must equal
// the build provenance's `repository`). Each finding is a Weakness node (rule id, CWE ids, OWASP tags,
// severity, path:line) that AFFECTS the Repository node. Old and new Semgrep shapes are read alike (cwe as
// a string, a list, or absent). A scan is complete for its repository: the next one retracts the
// findings it no longer reports; one that Semgrep itself says failed (an error-level error) is partial.
import { ProblemError } from '../../http/problems.js';
import { EnvelopeBuilder } from './envelope-builder.js';
import { reportSchema } from './report-schema.js';
import type { IngestSource } from './source.js';

interface SemgrepReport {
  version?: string;
  results: SemgrepResult[];
  errors?: { level?: string; type?: unknown; message?: string; path?: string }[];
}

interface SemgrepResult {
  check_id: string;
  path: string;
  start: { line: number; col?: number };
  end?: { line: number; col?: number };
  extra?: {
    message?: string;
    severity?: string;
    fingerprint?: string;
    is_ignored?: boolean;
    metadata?: {
      cwe?: string | string[];
      owasp?: string | string[];
      confidence?: string;
      likelihood?: string;
      impact?: string;
      category?: string;
      shortlink?: string;
      source?: string;
    };
  };
}

/** Semgrep's rule severities (ERROR/WARNING/INFO, and since 1.7x CRITICAL..LOW) on one scale. */
const SEVERITY: Readonly<Record<string, string>> = {
  CRITICAL: 'CRITICAL',
  ERROR: 'HIGH',
  HIGH: 'HIGH',
  WARNING: 'MEDIUM',
  MEDIUM: 'MEDIUM',
  INFO: 'LOW',
  LOW: 'LOW',
  INVENTORY: 'LOW',
  EXPERIMENT: 'LOW',
};

const TAGS = { type: ['string', 'array', 'null'], items: { type: 'string' } };
const POSITION = {
  type: 'object',
  required: ['line'],
  properties: { line: { type: 'integer', minimum: 0 }, col: { type: 'integer' } },
};

export function createSemgrepSource(): IngestSource {
  const check = reportSchema<SemgrepReport>('semgrep', {
    type: 'object',
    required: ['results'],
    properties: {
      version: { type: 'string' },
      errors: { type: 'array', items: { type: 'object' } },
      results: {
        type: 'array',
        items: {
          type: 'object',
          required: ['check_id', 'path', 'start'],
          properties: {
            check_id: { type: 'string', minLength: 1 },
            path: { type: 'string', minLength: 1 },
            start: POSITION,
            end: POSITION,
            extra: {
              type: 'object',
              properties: {
                message: { type: 'string' },
                severity: { type: 'string' },
                is_ignored: { type: 'boolean' },
                metadata: { type: 'object', properties: { cwe: TAGS, owasp: TAGS } },
              },
            },
          },
        },
      },
    },
  });
  return {
    name: 'semgrep',
    version: '1',
    description:
      'semgrep --json output for ?repo=<repository>: Weakness AFFECTS Repository; complete per repo.',
    snapshots: 'self',
    normalize({ body, query, receivedAt }) {
      const repo = scannedRepository(query, 'semgrep reports');
      const report = check(body);
      const warnings: string[] = [];
      const out = new EnvelopeBuilder('semgrep', 'finding', receivedAt);
      const repository = out.node('Repository', repo, {
        code_scanner: 'semgrep',
        scanner_version: report.version,
      });
      let ignored = 0;
      for (const result of report.results) {
        if (result.extra?.is_ignored === true) {
          ignored++;
          continue;
        }
        const metadata = result.extra?.metadata ?? {};
        const cweTitles = list(metadata.cwe);
        const rawSeverity = result.extra?.severity?.toUpperCase();
        const weakness = out.node(
          'Weakness',
          `${repo}:${result.path}:${result.start.line}:${result.check_id}`,
          {
            rule_id: result.check_id,
            cwe: cweTitles.length ? [...new Set(cweTitles.map(cweId))] : undefined,
            cwe_titles: cweTitles.length ? cweTitles : undefined,
            owasp: list(metadata.owasp).length ? list(metadata.owasp) : undefined,
            severity: rawSeverity ? (SEVERITY[rawSeverity] ?? rawSeverity) : undefined,
            scanner_severity: rawSeverity,
            confidence: metadata.confidence,
            likelihood: metadata.likelihood,
            impact: metadata.impact,
            category: metadata.category,
            message: result.extra?.message,
            url: metadata.shortlink ?? metadata.source,
            path: result.path,
            line: result.start.line,
            end_line: result.end?.line,
            location: `${result.path}:${result.start.line}`,
            repo,
          },
        );
        out.edge('AFFECTS', weakness, repository);
      }
      if (ignored)
        warnings.push(`semgrep report: ${ignored} finding(s) marked is_ignored (nosemgrep) skipped`);
      const failed = (report.errors ?? []).filter((e) => e.level === 'error');
      if (failed.length) {
        warnings.push(
          `semgrep report: ${failed.length} error-level error(s) (first: ${failed[0].message ?? JSON.stringify(failed[0].type)}); ` +
            'taken as a partial scan, so nothing it omits is retracted',
        );
      }
      return { envelopes: [out.build()], warnings, scope: failed.length ? undefined : `repo:${repo}` };
    },
  };
}

/** The repository a code scan read, from `?repo=` (required: the report itself does not say). */
export function scannedRepository(query: Record<string, string | undefined>, what: string): string {
  const repo = query.repo?.trim();
  if (repo) return repo;
  throw new ProblemError(
    'invalid-query',
    `${what} need ?repo=<repository>: the repository the code scan read`,
    {
      errors: [{ pointer: '/query/repo', value: query.repo ?? null, detail: 'required' }],
    },
  );
}

function list(value: string | string[] | null | undefined): string[] {
  if (value === undefined || value === null) return [];
  return (Array.isArray(value) ? value : [value]).map((v) => v.trim()).filter(Boolean);
}

/** `CWE-352: Cross-Site Request Forgery (CSRF)` -> `CWE-352` */
export function cweId(title: string): string {
  return /^CWE-\d+/i.exec(title)?.[0].toUpperCase() ?? title;
}
