// `pathgate gate`: a pull request's report through the merge gate, on a running server (-api, token from
// PATHGATE_API_TOKEN) or with no server at all (-local <dir>: the estate built in process from a folder of
// reports). Exit 0 clean, 1 blocked, 2 unknown (0 with -allow-unknown), 3 when the gate could not be asked.
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { loadSettings } from '../src/config/settings.js';
import { DEFAULT_TENANT } from '../src/engine/tenant.js';
import { UnreadableReport } from '../src/gate/evaluate.js';
import { ProblemError } from '../src/http/problems.js';
import { decodeReportFile, recognizeReport } from '../src/ingest/recognize.js';
import { describeError, EXIT_USAGE, parseOrExit, type CommandSpec } from './cli-flags.js';
import {
  exitCodeFor,
  GateRequestError,
  renderText,
  reportForGate,
  requestGate,
  toSarif,
  type GateAnswer,
} from './gate-client.js';
import { jsonFiles } from './ingest-real.js';
import { buildService } from './service.js';
import { VERSION } from './version.js';

export const GATE_COMMAND = {
  name: 'gate',
  summary: "ask the merge gate what a pull request's report changes",
  synopsis: '-report <file> [-api URL | -local DIR] [flags]',
  description:
    'On a running server (-api, default http://127.0.0.1:8080; bearer token from $PATHGATE_API_TOKEN) or in process against the reports in a folder (-local DIR, no server). Prints a table on a terminal, JSON otherwise.',
  flags: {
    report: {
      type: 'string',
      value: 'FILE',
      help: "the pull request's report (a scan, SBOM, plan, manifest)",
    },
    source: {
      type: 'string',
      value: 'S',
      help: "the report's source (trivy, semgrep, terraform, k8s, ...); recognised by content when absent",
    },
    slug: { type: 'string', value: 'OWNER/REPO', help: 'the repository the pull request is on' },
    sha: { type: 'string', value: 'SHA', help: "the pull request's head commit" },
    pr: { type: 'string', value: 'N', help: 'the pull request number' },
    attribution: {
      type: 'string',
      value: 'A',
      choices: ['report', 'commit'],
      help: "what the gate evaluates: the report given, or every report stamped with the commit (server's PR_ATTRIBUTION when absent; report with -local)",
    },
    api: { type: 'string', value: 'URL', url: true, help: 'the API to ask (default http://127.0.0.1:8080)' },
    local: { type: 'string', value: 'DIR', help: 'build the estate in process from the reports in DIR' },
    tenant: { type: 'string', value: 'T', help: 'the tenant (X-Tenant)' },
    account: {
      type: 'string',
      value: 'ID',
      help: "a cloud report's account (a Terraform plan's names are qualified by it)",
    },
    region: { type: 'string', value: 'R', help: "a cloud report's region" },
    cluster: { type: 'string', value: 'C', help: 'the cluster Kubernetes manifests (YAML or JSON) run in' },
    repo: { type: 'string', value: 'REPO', help: 'the repository of a code scan' },
    sarif: { type: 'string', value: 'FILE', help: 'also write the routes as SARIF 2.1.0 to FILE' },
    json: { type: 'boolean', help: 'print the answer as indented JSON' },
    'allow-unknown': { type: 'boolean', help: 'exit 0 on unknown' },
  },
  exits:
    '0 clean, 1 blocked, 2 unknown (0 with -allow-unknown), 3 when the gate could not be asked (unreadable report or folder, unreachable server, refused token)',
} as const satisfies CommandSpec;

export async function gateCommand(
  args: string[],
  io: { out: (text: string) => void; err: (text: string) => void; isTTY: boolean },
): Promise<number> {
  const parsed = parseOrExit(GATE_COMMAND, args, io);
  if (typeof parsed === 'number') return parsed;
  const { values } = parsed;
  if (values.api && values.local) {
    io.err('pathgate gate: -api and -local exclude each other\n');
    return EXIT_USAGE;
  }
  if (values.local && !(await stat(values.local).catch(() => undefined))?.isDirectory()) {
    io.err(`pathgate gate: -local ${values.local}: no such folder\n`);
    return 3;
  }
  let report = '';
  if (values.report) {
    try {
      report = reportForGate(await readFile(values.report));
    } catch (error) {
      io.err(
        `pathgate gate: cannot read ${values.report}: ${(error as NodeJS.ErrnoException).code ?? error}\n`,
      );
      return 3;
    }
  } else if (values.attribution !== 'commit' && !values.sha) {
    io.err('pathgate gate: give -report <file> (or -sha with -attribution commit)\n');
    return 3;
  }
  const query = {
    source: values.source,
    slug: values.slug,
    sha: values.sha,
    pr: values.pr,
    attribution: values.attribution,
    account: values.account,
    region: values.region,
    cluster: values.cluster,
    repo: values.repo,
  };
  let answer: GateAnswer;
  try {
    answer = values.local
      ? await gateLocally(values.local, report, query, values.tenant)
      : await requestGate({
          apiUrl: values.api ?? 'http://127.0.0.1:8080',
          token: process.env.PATHGATE_API_TOKEN || undefined,
          report,
          query,
          tenant: values.tenant,
        });
  } catch (error) {
    if (!(error instanceof GateRequestError) && !(error instanceof ProblemError)) throw error;
    io.err(`pathgate gate: ${describeError(error)}\n`);
    return 3;
  }
  // No log on `unknown`: one with no result, uploaded, would close every open alert (docs/action.md).
  if (values.sarif && answer.verdict === 'unknown')
    io.err(`pathgate gate: no SARIF log written to ${values.sarif}: the verdict is unknown\n`);
  else if (values.sarif) {
    try {
      const root = process.env.GITHUB_WORKSPACE || process.cwd();
      const sarif = toSarif(answer, { root, reportPath: values.report, version: VERSION });
      await writeFile(values.sarif, `${JSON.stringify(sarif, null, 2)}\n`);
    } catch (error) {
      io.err(
        `pathgate gate: cannot write ${values.sarif}: ${(error as NodeJS.ErrnoException).code ?? error}\n`,
      );
      return 3;
    }
  }
  io.out(
    values.json || !io.isTTY ? `${JSON.stringify(answer, null, values.json ? 2 : 0)}\n` : renderText(answer),
  );
  return exitCodeFor(answer.verdict, values['allow-unknown']);
}

/** -local: the estate from a folder of reports, in a throwaway service, then the gate on it. */
async function gateLocally(
  dir: string,
  report: string,
  query: Record<string, string | undefined>,
  tenant = DEFAULT_TENANT,
): Promise<GateAnswer> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'pathgate-gate-'));
  const env = { ...process.env, DATA_DIR: dataDir, DEMO_DATA: 'false', API_TOKENS: '', OIDC_JWKS_URL: '' };
  const service = await buildService({ settings: loadSettings(env), logger: pino({ level: 'silent' }) });
  try {
    const root = path.resolve(dir);
    for await (const file of jsonFiles(root)) {
      let body: unknown;
      try {
        body = JSON.parse(decodeReportFile(await readFile(file)));
      } catch {
        continue;
      }
      const source = recognizeReport(body);
      if (!source) continue;
      try {
        await service.engine.ingest({
          tenant,
          source,
          body,
          query: source === 'semgrep' ? { repo: query.repo ?? path.basename(root) } : {},
        });
      } catch (error) {
        throw new GateRequestError(`${path.relative(root, file)}: ${(error as Error).message}`);
      }
    }
    await service.engine.drain();
    await service.engine.analyzeAll();
    let body: unknown = {};
    if (report.trim()) {
      try {
        body = JSON.parse(report);
      } catch (error) {
        // As the server answers it: a report the gate cannot read is `unknown` (exit 2), not a failure.
        body = new UnreadableReport(`not JSON (${(error as Error).message})`);
      }
    }
    return (await service.engine.gateImpact({
      tenant,
      body,
      query,
      attribution: 'report',
    })) as unknown as GateAnswer;
  } finally {
    await service.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}
