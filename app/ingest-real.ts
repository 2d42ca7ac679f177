// `pathgate ingestreal <dir>`: posts every recognised report under a folder to a running ingest listener
// and prints what each produced. Every file is read by its content (JSON, NDJSON, YAML), whatever its
// name. The Kubernetes files of the folder are one cluster's objects, as `kubectl apply -f <dir>` applies
// them: they are posted as one dump, so that what one file says is read with what another holds (a
// Service's selector and the Deployment in the next file, a binding and its aggregated role, a route and
// its Gateway). Exit 0 when every recognised report was accepted, 1 otherwise.
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { signedPostHeaders } from '../src/auth/ingest-signature.js';
import { decodeReportFile, isBinaryFile, readReport, recognizeReport } from '../src/ingest/recognize.js';
import { custodianReport, isCustodianMetadata } from './custodian-run.js';
import { notAReportByName, SkippedByName } from './not-reports.js';
import { sbomImage, type CdxDocument } from '../src/ingest/sources/cyclonedx.js';
import { isTrivyClusterReport } from '../src/ingest/sources/trivy-k8s.js';
import { repositoryFromUrl } from '../src/identity/repository-name.js';
import { readSpdx } from '../src/ingest/sources/spdx.js';
import { sbomScanImage } from '../src/ingest/sources/trivy/image-name.js';
import { isTrivyOperatorReport, looksLikeOperatorReports } from '../src/ingest/sources/trivy-operator.js';

/** Files larger than this are not reports the listener would take (its body limit is far lower). */
const MAX_REPORT_BYTES = 256 * 1024 * 1024;
/**
 * How large one Kubernetes dump posted may grow, in bytes of JSON: below the listener's 32 MiB body limit.
 * A folder holding more is posted as several dumps (the joins then hold within each).
 */
export const MAX_DUMP_BYTES = 24 * 1024 * 1024;

export interface IngestRealOptions {
  dir: string;
  url: string;
  /**
   * `repo` for code-scanner reports (and Trivy scans of a local path, and SBOMs of no image); default: the
   * folder's name.
   */
  repo?: string;
  /** `cluster` for Kubernetes dumps, Falco alerts and `trivy k8s` reports: their names are qualified by it. */
  cluster?: string;
  tenant?: string;
  /** When set, each request is signed (v2) with it, as a listener with INGEST_HMAC_SECRET(S) requires. */
  secret?: string;
  out: (line: string) => void;
}

export interface IngestRealSummary {
  accepted: number;
  rejected: number;
  skipped: number;
}

export async function* jsonFiles(dir: string): AsyncGenerator<string> {
  const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name));
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* jsonFiles(full);
    else if (entry.isFile() && entry.name.endsWith('.json')) yield full;
  }
}

/** Every regular file under a folder (hidden ones aside), in name order. */
export async function* reportFiles(dir: string): AsyncGenerator<string> {
  const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name));
  for (const entry of entries) {
    if (entry.name.startsWith('.')) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* reportFiles(full);
    else if (entry.isFile()) yield full;
  }
}

export async function ingestReal(options: IngestRealOptions): Promise<IngestRealSummary> {
  const summary: IngestRealSummary = { accepted: 0, rejected: 0, skipped: 0 };
  const root = path.resolve(options.dir);
  const repo = options.repo ?? path.basename(root);
  const dump = new ClusterDump();
  /** `report`: the parsed report, when the query depends on it (a Trivy scan's repository). */
  const post = async (source: string, report: unknown, body: string) => {
    const url = new URL(`/ingest/${source}`, options.url);
    if (source === 'semgrep' || source === 'sarif') url.searchParams.set('repo', repo);
    if (source === 'trivy' && needsRepo(report)) url.searchParams.set('repo', repo);
    // A `grype dir:` / `file:` scan names a local path: the folder's repository, as a `trivy fs` scan's.
    if (source === 'grype' && grypeNeedsRepo(report)) url.searchParams.set('repo', repo);
    if (source === 'supplychain' && sbomNeedsRepo(report)) url.searchParams.set('repo', repo);
    // A `trivy k8s` report and Trivy Operator's reports name the cluster's objects: qualified as the dump is.
    const names =
      source === 'k8s' ||
      source === 'falco' ||
      (source === 'trivy' && (isTrivyClusterReport(report) || looksLikeOperatorReports(report)));
    if (names && options.cluster !== undefined) url.searchParams.set('cluster', options.cluster);
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (options.tenant !== undefined) headers['x-tenant'] = options.tenant;
    if (options.secret !== undefined) Object.assign(headers, signedPostHeaders(options.secret, url, body));
    const response = await fetch(url, { method: 'POST', headers, body });
    const answer = (await response.json().catch(() => ({}))) as Record<string, unknown>;
    if (response.status === 202) {
      const warnings = Array.isArray(answer.warnings) ? `, ${answer.warnings.length} warning(s)` : '';
      return {
        ok: true,
        status: response.status,
        line: `${source} -> 202, ${answer.nodes} nodes, ${answer.edges} edges (batch ${answer.batchId}${warnings})`,
        // Said in full under the file's line: a count alone does not tell what was left unread, or why.
        warnings: Array.isArray(answer.warnings) ? answer.warnings.map(String) : [],
      };
    }
    return {
      ok: false,
      status: response.status,
      line: `${source} -> ${response.status} ${String(answer.detail ?? answer.title ?? '')}`,
    };
  };
  const postDump = async () => {
    const files = dump.take();
    if (!files.length) return;
    const names = files.map((f) => f.shown);
    // The files' JSON as read, spliced into a List rather than serialized again.
    const body = `{"apiVersion":"v1","kind":"List","items":[${files.map((f) => f.body).join(',')}]}`;
    const { ok, status, line } = await post('k8s', undefined, body);
    if (ok || status !== 400 || files.length === 1) {
      if (ok) summary.accepted += files.length;
      else summary.rejected += files.length;
      options.out(
        `${files.length === 1 ? names[0] : `${files.length} files (${names.join(', ')})`}: ${line}`,
      );
      return;
    }
    // One malformed file must not cost the others: each is posted alone and answered for itself (the joins
    // across files are lost for this run, and said so).
    options.out(`${files.length} Kubernetes files refused as one dump (${line}); posting each alone`);
    for (const file of files) {
      const alone = await post('k8s', undefined, file.body);
      if (alone.ok) summary.accepted++;
      else summary.rejected++;
      options.out(`${file.shown}: ${alone.line}`);
    }
  };
  const byName = new SkippedByName();
  for await (const file of reportFiles(root)) {
    const shown = path.relative(root, file) || path.basename(file);
    const kind = notAReportByName(file);
    if (kind) {
      summary.skipped++;
      byName.add(file, kind);
      continue;
    }
    let report: unknown;
    try {
      if ((await stat(file)).size > MAX_REPORT_BYTES) throw new Error('larger than any report');
      const bytes = await readFile(file);
      // Read as YAML, a picture or an archive only yields a parser's complaint about its first line.
      if (isBinaryFile(bytes)) throw new Error('a binary file, not a text report');
      report = readReport(decodeReportFile(bytes)).body;
    } catch (error) {
      summary.skipped++;
      options.out(`${shown}: skipped, ${(error as Error).message}`);
      continue;
    }
    // A Cloud Custodian run's output: the policy's resources.json is read with the metadata.json beside it.
    if (isCustodianMetadata(report)) {
      summary.skipped++;
      byName.add(file, 'Cloud Custodian run metadata (read with the resources.json beside it)');
      continue;
    }
    if (path.basename(file) === 'resources.json' && Array.isArray(report)) {
      const metadata = await readJson(path.join(path.dirname(file), 'metadata.json'));
      if (!isCustodianMetadata(metadata)) {
        summary.skipped++;
        options.out(
          `${shown}: skipped, a list of resources as \`custodian run\` writes resources.json, with no ` +
            'metadata.json beside it naming the policy, its resource type and the account',
        );
        continue;
      }
      report = custodianReport(report, metadata);
    }
    const source = recognizeReport(report);
    if (!source) {
      summary.skipped++;
      options.out(`${shown}: skipped, not a report any ingest source takes`);
      continue;
    }
    const json = JSON.stringify(report);
    if (source === 'k8s') {
      // Trivy Operator's reports listed with the cluster's objects (`kubectl get all,vulnerabilityreports
      // -A -o json`) are findings: posted to the trivy source, the objects to the dump.
      const mixed = splitOperatorReports(report);
      if (mixed) {
        const { ok, line } = await post('trivy', mixed.reports, JSON.stringify(mixed.reports));
        options.out(`${shown} (its ${mixed.reports.items.length} Trivy Operator reports): ${line}`);
        if (!ok) summary.rejected++;
        if (!mixed.objects.items.length) {
          if (ok) summary.accepted++;
          continue;
        }
        report = mixed.objects;
      }
      const body = mixed ? JSON.stringify(report) : json;
      const bytes = Buffer.byteLength(body);
      if (!dump.fits(bytes)) await postDump();
      dump.add({ shown, body }, bytes);
      continue;
    }
    const { ok, line, warnings } = await post(source, report, json);
    if (ok) summary.accepted++;
    else summary.rejected++;
    options.out(`${shown}: ${line}`);
    for (const warning of warnings ?? []) options.out(`  warning: ${warning}`);
  }
  await postDump();
  const skippedByName = byName.line();
  if (skippedByName) options.out(skippedByName);
  options.out(`${summary.accepted} accepted, ${summary.rejected} rejected, ${summary.skipped} skipped`);
  return summary;
}

/** A JSON file's document, or undefined when it is absent or not JSON. */
async function readJson(file: string): Promise<unknown> {
  try {
    return JSON.parse(decodeReportFile(await readFile(file)));
  } catch {
    return undefined;
  }
}

type List = { apiVersion: 'v1'; kind: 'List'; items: unknown[] };

/** A Kubernetes List holding both Trivy Operator reports and other objects, split; undefined otherwise. */
function splitOperatorReports(report: unknown): { reports: List; objects: List } | undefined {
  const items = (report as { items?: unknown }).items;
  if (!Array.isArray(items)) return undefined;
  const reports = items.filter(isTrivyOperatorReport);
  if (!reports.length) return undefined;
  return {
    reports: { apiVersion: 'v1', kind: 'List', items: reports },
    objects: { apiVersion: 'v1', kind: 'List', items: items.filter((i) => !isTrivyOperatorReport(i)) },
  };
}

/** The Kubernetes files read so far, to be posted as one dump. */
interface DumpFile {
  shown: string;
  /** The report as JSON */
  body: string;
}

class ClusterDump {
  private files: DumpFile[] = [];
  private bytes = 0;

  /** Whether a file of this many bytes of JSON still fits (an empty dump takes any: the listener judges it). */
  fits(bytes: number): boolean {
    return !this.files.length || this.bytes + bytes <= MAX_DUMP_BYTES;
  }

  add(file: DumpFile, bytes: number): void {
    this.files.push(file);
    this.bytes += bytes;
  }

  take(): DumpFile[] {
    const files = this.files;
    this.files = [];
    this.bytes = 0;
    return files;
  }
}

/** A CycloneDX SBOM of no image (an application's, a `trivy fs` one) is the repository's: ?repo= names it. */
function sbomNeedsRepo(report: unknown): boolean {
  const doc = report as CdxDocument;
  if (typeof (report as { spdxVersion?: unknown } | null)?.spdxVersion === 'string') {
    const spdx = readSpdx(report as Record<string, unknown>);
    return spdx.image === undefined && spdx.repository === undefined;
  }
  return (
    doc.bomFormat === 'CycloneDX' &&
    sbomImage(doc) === undefined &&
    repositoryFromUrl(doc.metadata?.component?.name) === undefined
  );
}

/**
 * A Trivy fs/repo scan of a local path names no repository: ingest needs ?repo= for it. So does a `trivy
 * sbom` scan of an SBOM that names no image: the folder's repository, as for an SBOM of no image.
 */
function grypeNeedsRepo(report: unknown): boolean {
  const type = (report as { source?: { type?: unknown } } | null)?.source?.type;
  return type === 'directory' || type === 'file';
}

function needsRepo(report: unknown): boolean {
  const r = report as { ArtifactType?: unknown; ArtifactName?: unknown; Metadata?: { RepoURL?: unknown } };
  if (r.ArtifactType === 'cyclonedx' || r.ArtifactType === 'spdx')
    return sbomScanImage(report as Parameters<typeof sbomScanImage>[0]) === undefined;
  if (r.ArtifactType !== 'filesystem' && r.ArtifactType !== 'repository') return false;
  return (
    repositoryFromUrl(typeof r.ArtifactName === 'string' ? r.ArtifactName : undefined) === undefined &&
    repositoryFromUrl(typeof r.Metadata?.RepoURL === 'string' ? r.Metadata.RepoURL : undefined) === undefined
  );
}
