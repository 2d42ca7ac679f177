// `pathgate ingestreal <dir>`: posts every recognised report under a folder to a running ingest listener
// and prints what each produced. Exit 0 when every recognised report was accepted, 1 otherwise.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { signV2 } from '../src/auth/ingest-signature.js';
import { recognizeReport } from '../src/ingest/recognize.js';

export interface IngestRealOptions {
  dir: string;
  url: string;
  /** `repo` for code-scanner reports; default: the folder's name. */
  repo?: string;
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

export async function ingestReal(options: IngestRealOptions): Promise<IngestRealSummary> {
  const summary: IngestRealSummary = { accepted: 0, rejected: 0, skipped: 0 };
  const root = path.resolve(options.dir);
  const repo = options.repo ?? path.basename(root);
  for await (const file of jsonFiles(root)) {
    const shown = path.relative(root, file) || path.basename(file);
    let report: unknown;
    try {
      report = JSON.parse(await readFile(file, 'utf8'));
    } catch (error) {
      summary.skipped++;
      options.out(`${shown}: skipped, not JSON (${(error as Error).message})`);
      continue;
    }
    const source = recognizeReport(report);
    if (!source) {
      summary.skipped++;
      options.out(`${shown}: skipped, not a report any ingest source takes`);
      continue;
    }
    const url = new URL(`/ingest/${source}`, options.url);
    if (source === 'semgrep') url.searchParams.set('repo', repo);
    const body = JSON.stringify(report);
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (options.tenant !== undefined) headers['x-tenant'] = options.tenant;
    if (options.secret !== undefined) {
      const timestamp = String(Math.floor(Date.now() / 1000));
      headers['x-service-timestamp'] = timestamp;
      headers['x-service-signature-v2'] = signV2(options.secret, {
        timestamp,
        method: 'POST',
        path: url.pathname,
        rawQuery: url.search.slice(1),
        body,
      });
    }
    const response = await fetch(url, { method: 'POST', headers, body });
    const answer = (await response.json().catch(() => ({}))) as Record<string, unknown>;
    if (response.status === 202) {
      summary.accepted++;
      const warnings = Array.isArray(answer.warnings) ? `, ${answer.warnings.length} warning(s)` : '';
      options.out(
        `${shown}: ${source} -> 202, ${answer.nodes} nodes, ${answer.edges} edges (batch ${answer.batchId}${warnings})`,
      );
    } else {
      summary.rejected++;
      options.out(`${shown}: ${source} -> ${response.status} ${String(answer.detail ?? answer.title ?? '')}`);
    }
  }
  options.out(`${summary.accepted} accepted, ${summary.rejected} rejected, ${summary.skipped} skipped`);
  return summary;
}
