// The `pathgate` command line. Flags may be written `-flag` or `--flag`.
import { parseArgs } from 'node:util';
import { verifyAuditFile } from '../src/audit/verify.js';
import { loadSettings } from '../src/config/settings.js';
import { normalizeFlags } from './cli-flags.js';
import { gateCommand, GATE_USAGE } from './gate-cli.js';
import { ingestReal } from './ingest-real.js';
import { intelCommand, INTEL_USAGE } from './intel-cli.js';
import { runServer } from './run-server.js';
import { verifyStoreCommand, VERIFY_STORE_USAGE } from './verify-store.js';
import { verifyExportCommand, VERIFY_EXPORT_USAGE } from './verify-export.js';
import { VERSION } from './version.js';

const USAGE = `pathgate ${VERSION}: attack-path correlation service

Usage: pathgate <command> [flags]

Commands:
  serve                 run the service (ingest on INGEST_ADDR, API on API_ADDR); empty unless DEMO_DATA=true
  healthz [-url URL]    ask a running listener for /healthz (default http://127.0.0.1:8080); exit 0 when ok
  ingestreal <dir> [-url URL] [-repo REPO] [-cluster C] [-tenant T]
                        post every report under <dir> that a source takes, recognised by its content (JSON,
                        NDJSON or YAML: trivy, semgrep, CycloneDX, provenance, build, cloud, k8s, falco,
                        event envelopes) to a running ingest listener (default http://127.0.0.1:8081)
                        and print what each produced; -repo names the repository of code-scanner reports
                        and of Trivy scans of a local path (default: the folder's name), -cluster the
                        cluster of Kubernetes dumps, Falco alerts and trivy k8s reports (the folder's
                        Kubernetes files are posted as one dump, as "kubectl apply -f <dir>" applies
                        them); signs each request (v2) with
                        $INGEST_HMAC_SECRET when set; exit 0 when every recognised report was accepted
${GATE_USAGE}
${INTEL_USAGE}
  verify-audit <file>   check the audit log's hash chain; names the first broken record (exit 1), reading
                        an encrypted log with $STORE_ENCRYPTION_KEY (or STORE_ENCRYPTION_KEY_FILE)
  verify-audit -postgres  the same for the chain the replicas share in PostgreSQL ($DB_DSN)
${VERIFY_STORE_USAGE}
${VERIFY_EXPORT_USAGE}
  version               print the version
  help                  print this help

Settings are environment variables: see docs/configuration.md.
`;

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'serve':
      await runServer({ demoByDefault: false, version: VERSION });
      return -1; // keeps running
    case 'healthz': {
      const { values } = parseArgs({
        args: normalizeFlags(rest),
        options: { url: { type: 'string', default: 'http://127.0.0.1:8080' } },
      });
      const url = new URL('/healthz', values.url);
      try {
        const response = await fetch(url, { signal: AbortSignal.timeout(5000) });
        const text = (await response.text()).trim();
        process.stdout.write(`${url.href}: ${response.status} ${text}\n`);
        return response.ok ? 0 : 1;
      } catch (error) {
        process.stderr.write(`pathgate healthz: ${url.href}: ${(error as Error).message}\n`);
        return 1;
      }
    }
    case 'ingestreal': {
      const { values, positionals } = parseArgs({
        args: normalizeFlags(rest),
        allowPositionals: true,
        options: {
          url: { type: 'string', default: 'http://127.0.0.1:8081' },
          repo: { type: 'string' },
          cluster: { type: 'string' },
          tenant: { type: 'string' },
        },
      });
      if (positionals.length !== 1) {
        process.stderr.write(
          `pathgate ingestreal: expected one folder, got ${positionals.length}\n\n${USAGE}`,
        );
        return 2;
      }
      const summary = await ingestReal({
        dir: positionals[0],
        url: values.url,
        repo: values.repo,
        cluster: values.cluster,
        tenant: values.tenant,
        // The sending side of a signed listener: the secret comes from the environment, never a flag.
        secret: process.env.INGEST_HMAC_SECRET || undefined,
        out: (line) => process.stdout.write(`${line}\n`),
      });
      return summary.rejected ? 1 : 0;
    }
    case 'intel': {
      const { values, positionals } = parseArgs({
        args: normalizeFlags(rest),
        allowPositionals: true,
        options: { url: { type: 'string', default: 'http://127.0.0.1:8081' } },
      });
      if (positionals.length !== 1) {
        process.stderr.write(`pathgate intel: expected one file\n\n${USAGE}`);
        return 2;
      }
      return intelCommand({
        file: positionals[0],
        url: values.url,
        secret: process.env.INGEST_HMAC_SECRET || undefined,
        out: (line) => process.stdout.write(`${line}\n`),
        err: (line) => process.stderr.write(`${line}\n`),
      });
    }
    case 'gate':
      return gateCommand(rest, {
        out: (text) => process.stdout.write(text),
        err: (text) => process.stderr.write(text),
        isTTY: process.stdout.isTTY === true,
      });
    case 'verify-audit': {
      const { positionals, values } = parseArgs({
        args: normalizeFlags(rest),
        allowPositionals: true,
        options: { postgres: { type: 'boolean' } },
      });
      if (positionals.length !== (values.postgres ? 0 : 1)) {
        process.stderr.write(`pathgate verify-audit: expected one file, or -postgres\n\n${USAGE}`);
        return 2;
      }
      // The key is read as the service reads it: STORE_ENCRYPTION_KEY or its _FILE.
      const settings = loadSettings(process.env);
      const { audit } = settings;
      // -postgres: the chain the replicas share in DB_DSN (src/db/audit-chain.ts).
      const verdict = values.postgres
        ? await (await import('./scale-out.js')).verifyPostgresAudit(settings)
        : verifyAuditFile(positionals[0], audit.key);
      if (typeof verdict === 'string') {
        process.stderr.write(`pathgate verify-audit: ${verdict}\n`);
        return 2;
      }
      if (verdict.ok) {
        process.stdout.write(
          `audit log intact: ${verdict.records} records${verdict.prunedThrough !== undefined ? ` (pruned through record ${verdict.prunedThrough} by AUDIT_RETENTION)` : ''}\n`,
        );
        return 0;
      }
      process.stdout.write(
        `audit log broken at line ${verdict.line}${verdict.seq !== null ? ` (record ${verdict.seq})` : ''}: ${verdict.problem}; ${verdict.records} records before it are intact\n`,
      );
      return 1;
    }
    case 'verify-store':
      return verifyStoreCommand(rest, {
        out: (text) => process.stdout.write(text),
        err: (text) => process.stderr.write(text),
        env: process.env,
        usage: USAGE,
      });
    case 'verify-export':
      return verifyExportCommand(rest, {
        out: (text) => process.stdout.write(text),
        err: (text) => process.stderr.write(text),
        env: process.env,
      });
    case 'version':
    case '-version':
    case '--version':
      process.stdout.write(`${VERSION}\n`);
      return 0;
    case undefined:
    case 'help':
    case '-h':
    case '-help':
    case '--help':
      process.stdout.write(USAGE);
      return 0;
    default:
      process.stderr.write(`pathgate: unknown command ${JSON.stringify(command)}\n\n${USAGE}`);
      return 2;
  }
}

/** process.exit drops what a pipe has not taken yet (`pathgate gate -json | jq`): exit once both are flushed. */
function exitWhenFlushed(code: number): void {
  let open = 2;
  const flushed = () => {
    if (--open === 0) process.exit(code);
  };
  process.stdout.write('', flushed);
  process.stderr.write('', flushed);
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) exitWhenFlushed(code);
  },
  (error: unknown) => {
    process.stderr.write(`pathgate: ${error instanceof Error ? error.message : String(error)}\n`);
    exitWhenFlushed(1);
  },
);
