// `pathgate verify-export <file> <sig>`: checks an export (NDJSON or OSCAL, saved as received) against its
// detached `X-Service-Signature` (the header's value, or a file holding it) and the service's Ed25519
// public key: `-pubkey <file>` (the PEM, or the JSON GET /export/pubkey answers), or `-url <api>` to ask a
// running service (with $PATHGATE_API_TOKEN as the bearer when set), or, on the service's own host, the key
// the service signs with (EXPORT_SIGNING_KEY, or DATA_DIR/keys/export-ed25519.pem). The signature covers a
// statement of the export's context (src/export/statement.ts): it is printed, and checked against
// -tenant, -kind, -format, -scope and -state when given, and against the file's name when it is the one the
// service gave (`pathgate-<tenant>-paths.ndjson`). Exit 0 when the file is what was signed, for what is
// expected; 1 when it is not (naming the field); 2 when it cannot be checked.
import { createPublicKey } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { loadSettings, type Env } from '../src/config/settings.js';
import { parseSigningKey, verifyExport } from '../src/export/signing.js';
import { expectedFromFileName, type ExpectedContext, type ExportStatement } from '../src/export/statement.js';
import { describeError, parseOrExit, type CommandSpec } from './cli-flags.js';

/** verify-export's flags: its one parser and its help both come from this table (add flags here). */
export const VERIFY_EXPORT_COMMAND = {
  name: 'verify-export',
  summary: "check a saved export against its X-Service-Signature and the service's Ed25519 key",
  synopsis: '<file> <sig> [-pubkey FILE | -url URL]',
  description:
    "<sig> is the X-Service-Signature value, or a file holding it. The key: -pubkey (PEM, or GET /export/pubkey's JSON), -url (ask a running API; bearer $PATHGATE_API_TOKEN), else the local EXPORT_SIGNING_KEY or DATA_DIR/keys/export-ed25519.pem.",
  flags: {
    pubkey: {
      type: 'string',
      value: 'FILE',
      help: 'the public key: a PEM, or the JSON GET /export/pubkey answers',
    },
    url: { type: 'string', value: 'URL', url: true, help: 'a running API to ask for its key' },
    tenant: { type: 'string', value: 'T', help: 'the tenant the export must be signed for' },
    kind: {
      type: 'string',
      value: 'K',
      help: 'the kind of export it must be: paths, assessment-results or graph',
    },
    format: { type: 'string', value: 'F', help: 'its format: ndjson, oscal-json or graphology-json' },
    scope: { type: 'string', value: 'S', help: 'its scope: all, or applications:<a,b>' },
    state: { type: 'string', value: 'S', help: 'which paths it must carry: open or all (a graph: current)' },
  },
  positionals: { min: 2, max: 2, names: '<file> <sig>' },
  exits:
    '0 intact, 1 altered, signed by another key or signed for another export (tenant, kind, format, scope, state), 2 cannot be checked (unreadable file, no key)',
} as const satisfies CommandSpec;

interface Io {
  out: (text: string) => void;
  err: (text: string) => void;
  env: Env;
}

export async function verifyExportCommand(args: string[], io: Io): Promise<number> {
  const parsed = parseOrExit(VERIFY_EXPORT_COMMAND, args, io);
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  const [file, sig] = positionals;
  let body: Buffer;
  try {
    body = readFileSync(file);
  } catch (error) {
    io.err(
      `pathgate verify-export: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'})\n`,
    );
    return 2;
  }
  const header = existsSync(sig) ? readFileSync(sig, 'utf8').trim() : sig;
  let publicKeyPem: string;
  try {
    publicKeyPem = await publicKey(values, io.env);
  } catch (error) {
    io.err(`pathgate verify-export: ${describeError(error)}\n`);
    return 2;
  }
  // What the flags say, over what the service's own file name says.
  const expected: ExpectedContext = { ...expectedFromFileName(path.basename(file)) };
  for (const field of ['tenant', 'kind', 'format', 'scope', 'state'] as const)
    if (values[field] !== undefined) Object.assign(expected, { [field]: values[field] });
  const outcome = verifyExport(body, header, publicKeyPem, expected);
  if (outcome.statement) io.out(describeStatement(outcome.statement));
  if (outcome.ok) {
    io.out(`${file}: signature valid (Ed25519, key ${outcome.keyId}, ${body.length} bytes)\n`);
    return 0;
  }
  io.out(`${file}: NOT VALID: ${outcome.reason}\n`);
  return 1;
}

async function publicKey(values: { pubkey?: string; url?: string }, env: Env): Promise<string> {
  if (values.pubkey) {
    let text: string;
    try {
      text = readFileSync(values.pubkey, 'utf8');
    } catch (error) {
      throw new Error(`cannot read ${values.pubkey} (${(error as NodeJS.ErrnoException).code ?? 'error'})`, {
        cause: error,
      });
    }
    return text.trimStart().startsWith('{') ? (JSON.parse(text) as { publicKey: string }).publicKey : text;
  }
  if (values.url) {
    const url = new URL('/export/pubkey', values.url);
    const token = env.PATHGATE_API_TOKEN;
    const response = await fetch(url, {
      headers: token ? { authorization: `Bearer ${token}` } : {},
      signal: AbortSignal.timeout(10_000),
    }).catch((error: unknown) => {
      throw new Error(`cannot reach ${url.href}`, { cause: error });
    });
    if (!response.ok) throw new Error(`${url.href} answered ${response.status}`);
    return ((await response.json()) as { publicKey: string }).publicKey;
  }
  const settings = loadSettings(env);
  const configured = settings.governance.exportSigningKey;
  const kept = path.join(settings.dataDir, 'keys', 'export-ed25519.pem');
  const key = configured ?? (existsSync(kept) ? parseSigningKey(readFileSync(kept, 'utf8')) : undefined);
  if (!key)
    throw new Error(
      `no public key: pass -pubkey <file> or -url <api>, or run where EXPORT_SIGNING_KEY or ${kept} is`,
    );
  return createPublicKey(key).export({ type: 'spki', format: 'pem' }).toString();
}

function describeStatement(statement: ExportStatement): string {
  return (
    ['tenant', 'kind', 'format', 'scope', 'state', 'time']
      .map((field) => `  ${field.padEnd(7)} ${statement[field as keyof ExportStatement]}`)
      .join('\n') + '\n'
  );
}
