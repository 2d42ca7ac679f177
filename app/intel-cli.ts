// `pathgate intel <file> [-url URL]`: posts a threat-intel catalog (CISA KEV JSON or CSV, FIRST EPSS CSV)
// to a running ingest listener's POST /intel, which applies it to every CVE at once (THREATINTEL=on).
// Signs the request (v2) with $INGEST_HMAC_SECRET when set, as `ingestreal` does.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { signedPostHeaders } from '../src/auth/ingest-signature.js';
import { describeError, type CommandSpec } from './cli-flags.js';

export const INTEL_COMMAND = {
  name: 'intel',
  summary: 'load a threat-intel catalog (CISA KEV JSON or CSV, FIRST EPSS CSV) into a running service',
  synopsis: '<file> [-url URL]',
  description:
    'The service must run with THREATINTEL=on. The catalog is applied to every CVE now and kept for the next start. Signs the request (v2) with $INGEST_HMAC_SECRET when set.',
  flags: {
    url: {
      type: 'string',
      value: 'URL',
      url: true,
      default: 'http://127.0.0.1:8081',
      help: 'the ingest listener',
    },
  },
  positionals: { min: 1, max: 1, names: 'one <file>' },
  exits: '0 loaded, 1 refused or unreachable, 2 the file cannot be read',
} as const satisfies CommandSpec;

export async function intelCommand(options: {
  file: string;
  url: string;
  secret?: string;
  out: (line: string) => void;
  err: (line: string) => void;
}): Promise<number> {
  let body: string;
  try {
    body = await readFile(options.file, 'utf8');
  } catch (error) {
    options.err(`pathgate intel: cannot read ${options.file}: ${describeError(error)}`);
    return 2;
  }
  const url = new URL('/intel', options.url);
  const headers: Record<string, string> = {
    'content-type': body.trimStart().startsWith('{') ? 'application/json' : 'text/csv',
    'x-intel-source': path.basename(options.file),
  };
  if (options.secret !== undefined) Object.assign(headers, signedPostHeaders(options.secret, url, body));
  let response: Response;
  try {
    response = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(120_000) });
  } catch (error) {
    options.err(`pathgate intel: cannot reach ${url.href}: ${describeError(error)}`);
    return 1;
  }
  const answer = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  if (response.ok) {
    options.out(
      `${options.file}: ${answer.kind} catalog${answer.version ? ` ${answer.version}` : ''}, ${answer.entries} CVEs, ${answer.enriched} CVE nodes enriched`,
    );
    return 0;
  }
  options.err(`pathgate intel: ${response.status} ${String(answer.detail ?? answer.title ?? '')}`);
  return 1;
}
