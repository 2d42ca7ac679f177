// The `pathgate` command table: every subcommand with its flags (one table each, see cli-flags.ts) and
// what runs it. `pathgate <command> --help` is answered from the table for every entry, before the
// command runs, so `serve --help` never starts a server. Exit 64 for a command line a command cannot take.
import { stat } from 'node:fs/promises';
import { verifyAuditFile } from '../src/audit/verify.js';
import { AWSCOLLECT_COMMAND, awscollectCommand } from './awscollect-cli.js';
import { loadSettings } from '../src/config/settings.js';
import {
  commandHelp,
  describeError,
  EXIT_USAGE,
  parseOrExit,
  wantsHelp,
  type CommandSpec,
} from './cli-flags.js';
import { GATE_COMMAND, gateCommand } from './gate-cli.js';
import { GENLOAD_COMMAND, genloadCommand } from './genload-cli.js';
import { ingestReal } from './ingest-real.js';
import { INTEL_COMMAND, intelCommand } from './intel-cli.js';
import { MCP_COMMAND, mcpCommand } from './mcp/stdio.js';
import { runServer } from './run-server.js';
import { VERIFY_STORE_COMMAND, verifyStoreCommand } from './verify-store.js';
import { VERIFY_EXPORT_COMMAND, verifyExportCommand } from './verify-export.js';
import {
  GENVERDICTS_COMMAND,
  genverdictsCommand,
  IMPORTVERDICTS_COMMAND,
  importverdictsCommand,
} from './verdicts-cli.js';
import { VERSION } from './version.js';

export interface CliIo {
  out: (text: string) => void;
  err: (text: string) => void;
  env: NodeJS.ProcessEnv;
  isTTY: boolean;
}

export interface Command {
  spec: CommandSpec;
  /** The exit code of an error the command did not expect (gate: 3, never 1 = blocked). */
  failure: number;
  /** Resolves to the exit code, or -1 when the process keeps running (serve). */
  run(args: string[], io: CliIo): Promise<number>;
}

const SERVE = {
  name: 'serve',
  summary: 'run the service (ingest on INGEST_ADDR, API on API_ADDR); empty unless DEMO_DATA=true',
  synopsis: '',
  description:
    'Settings are environment variables (docs/configuration.md). The store in DATA_DIR is locked while it runs: a second process on the same DATA_DIR refuses, naming the holder.',
  flags: {},
  exits:
    '0 after SIGINT/SIGTERM, 1 when it cannot start (DATA_DIR in use, an address taken), 78 bad settings',
} as const satisfies CommandSpec;

const HEALTHZ = {
  name: 'healthz',
  summary: 'ask a running listener for /healthz',
  synopsis: '[-url URL]',
  flags: {
    url: { type: 'string', value: 'URL', url: true, default: 'http://127.0.0.1:8080', help: 'the listener' },
  },
  exits: '0 ok, 1 not ok or unreachable',
} as const satisfies CommandSpec;

const INGESTREAL = {
  name: 'ingestreal',
  summary: 'post every report under a folder to a running ingest listener, recognised by its content',
  synopsis: '<dir> [-url URL] [-repo REPO] [-cluster C] [-tenant T]',
  description:
    'JSON, NDJSON or YAML: trivy, grype, semgrep, SARIF, CycloneDX, provenance, build, cloud, k8s, falco, custodian output folders, event envelopes; prints what each produced. The folder\'s Kubernetes files are posted as one dump, as "kubectl apply -f <dir>" applies them. Signs each request (v2) with $INGEST_HMAC_SECRET when set.',
  flags: {
    url: {
      type: 'string',
      value: 'URL',
      url: true,
      default: 'http://127.0.0.1:8081',
      help: 'the ingest listener',
    },
    repo: {
      type: 'string',
      value: 'REPO',
      help: "the repository of code-scanner reports and of Trivy scans of a local path (default: the folder's name)",
    },
    cluster: {
      type: 'string',
      value: 'C',
      help: 'the cluster of Kubernetes dumps, Falco alerts and trivy k8s reports',
    },
    tenant: { type: 'string', value: 'T', help: 'the tenant (X-Tenant)' },
  },
  positionals: { min: 1, max: 1, names: 'one <dir>' },
  exits: '0 every recognised report accepted, 1 one was refused or the folder cannot be read',
} as const satisfies CommandSpec;

const VERIFY_AUDIT = {
  name: 'verify-audit',
  summary: "check the audit log's hash chain",
  synopsis: '<file> | -postgres',
  description:
    'Names the first broken record. Reads an encrypted log with $STORE_ENCRYPTION_KEY (or STORE_ENCRYPTION_KEY_FILE); -postgres checks the chain the replicas share in PostgreSQL ($DB_DSN).',
  flags: { postgres: { type: 'boolean', help: 'check the chain in PostgreSQL ($DB_DSN) instead of a file' } },
  positionals: { min: 0, max: 1, names: 'one <file>, or -postgres' },
  exits: '0 intact, 1 broken, 2 cannot be read',
} as const satisfies CommandSpec;

const VERSION_SPEC = {
  name: 'version',
  summary: 'print the version',
  synopsis: '',
  flags: {},
  exits: '0',
} as const satisfies CommandSpec;

const HELP_SPEC = {
  name: 'help',
  summary: "print the commands, or one command's flags",
  synopsis: '[command]',
  flags: {},
  positionals: { min: 0, max: 1, names: 'at most one command' },
  exits: '0',
} as const satisfies CommandSpec;

export const COMMANDS: readonly Command[] = [
  {
    spec: SERVE,
    failure: 1,
    async run(args, io) {
      const parsed = parseOrExit(SERVE, args, io);
      if (typeof parsed === 'number') return parsed;
      await runServer({ demoByDefault: false, version: VERSION });
      return -1; // keeps running
    },
  },
  {
    spec: HEALTHZ,
    failure: 1,
    async run(args, io) {
      const parsed = parseOrExit(HEALTHZ, args, io);
      if (typeof parsed === 'number') return parsed;
      const url = new URL('/healthz', parsed.values.url);
      try {
        const response = await fetch(url, { signal: AbortSignal.timeout(5000) });
        const text = (await response.text()).trim();
        io.out(`${url.href}: ${response.status} ${text}\n`);
        return response.ok ? 0 : 1;
      } catch (error) {
        io.err(`pathgate healthz: cannot reach ${url.href}: ${describeError(error)}\n`);
        return 1;
      }
    },
  },
  {
    spec: INGESTREAL,
    failure: 1,
    async run(args, io) {
      const parsed = parseOrExit(INGESTREAL, args, io);
      if (typeof parsed === 'number') return parsed;
      const { values, positionals } = parsed;
      const dir = positionals[0];
      const found = await stat(dir).catch((error: unknown) => error as Error);
      if (found instanceof Error || !found.isDirectory()) {
        io.err(
          `pathgate ingestreal: ${dir}: ${found instanceof Error ? describeError(found) : 'not a folder'}\n`,
        );
        return 1;
      }
      const summary = await ingestReal({
        dir,
        url: values.url,
        repo: values.repo,
        cluster: values.cluster,
        tenant: values.tenant,
        // The sending side of a signed listener: the secret comes from the environment, never a flag.
        secret: io.env.INGEST_HMAC_SECRET || undefined,
        out: (line) => io.out(`${line}\n`),
      });
      return summary.rejected ? 1 : 0;
    },
  },
  {
    spec: AWSCOLLECT_COMMAND,
    failure: 1,
    async run(args, io) {
      const parsed = parseOrExit(AWSCOLLECT_COMMAND, args, io);
      if (typeof parsed === 'number') return parsed;
      const { values } = parsed;
      return awscollectCommand({
        json: values.json,
        url: values.url,
        region: values.region,
        roles: values.role,
        tenant: values.tenant,
        env: io.env,
        out: (line) => io.out(`${line}\n`),
        err: (line) => io.err(`${line}\n`),
      });
    },
  },
  {
    spec: GATE_COMMAND,
    failure: 3,
    run: (args, io) => gateCommand(args, io),
  },
  {
    spec: INTEL_COMMAND,
    failure: 1,
    async run(args, io) {
      const parsed = parseOrExit(INTEL_COMMAND, args, io);
      if (typeof parsed === 'number') return parsed;
      return intelCommand({
        file: parsed.positionals[0],
        url: parsed.values.url,
        secret: io.env.INGEST_HMAC_SECRET || undefined,
        out: (line) => io.out(`${line}\n`),
        err: (line) => io.err(`${line}\n`),
      });
    },
  },
  { spec: GENLOAD_COMMAND, failure: 1, run: genloadCommand },
  { spec: GENVERDICTS_COMMAND, failure: 1, run: genverdictsCommand },
  { spec: IMPORTVERDICTS_COMMAND, failure: 3, run: importverdictsCommand },
  {
    // stdout is the protocol's: the command writes only to stderr.
    spec: MCP_COMMAND,
    failure: 1,
    run: (args, io) => mcpCommand(args, { err: io.err, env: io.env }),
  },
  {
    spec: VERIFY_AUDIT,
    failure: 2,
    async run(args, io) {
      const parsed = parseOrExit(VERIFY_AUDIT, args, io);
      if (typeof parsed === 'number') return parsed;
      const { values, positionals } = parsed;
      if (positionals.length !== (values.postgres ? 0 : 1)) {
        io.err(`pathgate verify-audit: give one <file>, or -postgres\n`);
        return EXIT_USAGE;
      }
      // The key is read as the service reads it: STORE_ENCRYPTION_KEY or its _FILE.
      const settings = loadSettings(io.env);
      // -postgres: the chain the replicas share in DB_DSN (src/db/audit-chain.ts).
      const verdict = values.postgres
        ? await (await import('./scale-out.js')).verifyPostgresAudit(settings)
        : verifyAuditFile(positionals[0], settings.audit.key);
      if (typeof verdict === 'string') {
        io.err(`pathgate verify-audit: ${verdict}\n`);
        return 2;
      }
      if (verdict.ok) {
        io.out(
          `audit log intact: ${verdict.records} records${verdict.prunedThrough !== undefined ? ` (pruned through record ${verdict.prunedThrough} by AUDIT_RETENTION)` : ''}\n`,
        );
        return 0;
      }
      io.out(
        `audit log broken at line ${verdict.line}${verdict.seq !== null ? ` (record ${verdict.seq})` : ''}: ${verdict.problem}; ${verdict.records} records before it are intact\n`,
      );
      return 1;
    },
  },
  {
    spec: VERIFY_STORE_COMMAND,
    failure: 1,
    run: (args, io) => verifyStoreCommand(args, io),
  },
  {
    spec: VERIFY_EXPORT_COMMAND,
    failure: 2,
    run: (args, io) => verifyExportCommand(args, io),
  },
  {
    spec: VERSION_SPEC,
    failure: 1,
    async run(args, io) {
      const parsed = parseOrExit(VERSION_SPEC, args, io);
      if (typeof parsed === 'number') return parsed;
      io.out(`${VERSION}\n`);
      return 0;
    },
  },
  {
    spec: HELP_SPEC,
    failure: 1,
    async run(args, io) {
      const parsed = parseOrExit(HELP_SPEC, args, io);
      if (typeof parsed === 'number') return parsed;
      const [name] = parsed.positionals;
      if (name === undefined) {
        io.out(usage());
        return 0;
      }
      const command = COMMANDS.find((c) => c.spec.name === name);
      if (!command) return unknownCommand(name, io);
      io.out(commandHelp(command.spec));
      return 0;
    },
  },
];

/** `pathgate help`: the command list, from the table. */
export function usage(): string {
  const width = Math.max(...COMMANDS.map((c) => c.spec.name.length)) + 2;
  return [
    `pathgate ${VERSION}: attack-path correlation service`,
    '',
    'Usage: pathgate <command> [flags]     (flags as -flag or --flag)',
    '       pathgate <command> --help      (its flags and exit codes)',
    '',
    'Commands:',
    ...COMMANDS.map((c) => `  ${c.spec.name.padEnd(width)}${c.spec.summary}`),
    '',
    `Exit ${EXIT_USAGE} for a command line a command cannot take (unknown flag, missing or malformed value).`,
    'Settings are environment variables: see docs/configuration.md.',
    '',
  ].join('\n');
}

function unknownCommand(name: string, io: CliIo): number {
  io.err(`pathgate: unknown command ${JSON.stringify(name)}\n\n${usage()}`);
  return EXIT_USAGE;
}

/** Runs one command line; resolves to its exit code (-1: keeps running). */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || wantsHelp([name])) {
    io.out(usage());
    return 0;
  }
  if (name === '-version' || name === '--version') return runCli(['version', ...rest], io);
  const command = COMMANDS.find((c) => c.spec.name === name);
  if (!command) return unknownCommand(name, io);
  if (wantsHelp(rest)) {
    io.out(commandHelp(command.spec));
    return 0;
  }
  try {
    return await command.run(rest, io);
  } catch (error) {
    io.err(`pathgate ${name}: ${describeError(error)}\n`);
    return command.failure;
  }
}
