// The GitHub Action (action.yml; bundled into dist/index.js by @vercel/ncc): posts the pull request's report
// to the server's /gate/impact with the PR's slug, number and head SHA from the event, then sets the outputs,
// writes a job summary and an error annotation per blocked route, and exits 0 clean, 1 blocked, 2 unknown
// (0 with allow-unknown), 3 when the gate could not be asked or the step is configured wrong (whatever
// allow-unknown says). Every output is set on every exit, 3 included (docs/action.md).
// A SARIF log is written only for an analysed answer (clean or blocked): an empty log uploaded on `unknown`
// or an error would close every open code-scanning alert, so the `sarif` output is empty then and the
// README's upload step (`if: steps.gate.outputs.sarif != ''`) skips the upload.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import * as core from '@actions/core';
import * as github from '@actions/github';
import {
  checkApiUrl,
  checkSource,
  exitCodeFor,
  GateRequestError,
  renderMarkdown,
  reportForGate,
  requestGate,
  toSarif,
  unjoinedLines,
  type GateAnswer,
} from '../gate-client.js';

/** The outputs action.yml declares, each set on every exit. */
interface Outputs {
  verdict: string;
  reason: string;
  opened: string;
  worsened: string;
  exposed: string;
  preexisting: string;
  unjoined: string;
  sarif: string;
  'exit-code': string;
}

function setOutputs(outputs: Outputs): void {
  for (const [name, value] of Object.entries(outputs)) core.setOutput(name, value);
}

/** The step could not ask the gate: verdict `error`, exit 3, every output set (counts empty: not known). */
function failed(message: string): number {
  setOutputs({
    verdict: 'error',
    reason: message,
    opened: '',
    worsened: '',
    exposed: '',
    preexisting: '',
    unjoined: '',
    sarif: '',
    'exit-code': '3',
  });
  core.setFailed(`pathgate: ${message}`);
  return 3;
}

async function run(): Promise<number> {
  let apiUrl: string;
  let token: string;
  let reportPath: string;
  let source: string;
  let attribution: string;
  let allowUnknown: boolean;
  let sarifInput: string;
  // Configuration first: a wrong input is exit 3 before anything is asked, whatever allow-unknown says.
  try {
    token = core.getInput('api-token');
    if (token) core.setSecret(token);
    apiUrl = core.getInput('api-url', { required: true });
    checkApiUrl(apiUrl);
    reportPath = core.getInput('report', { required: true });
    source = core.getInput('source');
    checkSource(source);
    attribution = core.getInput('attribution');
    if (attribution && attribution !== 'report' && attribution !== 'commit')
      throw new GateRequestError(
        `attribution ${JSON.stringify(attribution)} is not report or commit (or empty: the server's default)`,
      );
    allowUnknown = core.getBooleanInput('allow-unknown');
    sarifInput = core.getInput('sarif');
  } catch (error) {
    return failed(`configuration: ${(error as Error).message}`);
  }
  const { payload, repo } = github.context;
  const pull = payload.pull_request as { number?: number; head?: { sha?: string } } | undefined;
  const slug = (payload.repository?.full_name as string | undefined) ?? `${repo.owner}/${repo.repo}`;
  const sha = pull?.head?.sha ?? github.context.sha;
  if (!pull)
    core.warning('not a pull_request event: the gate runs on the pushed commit, without a PR number');

  let report: string;
  try {
    // Read as `pathgate gate` reads it: YAML manifests, NDJSON alerts and CycloneDX XML sent as JSON.
    report = reportForGate(await readFile(reportPath));
  } catch (error) {
    const e = error as NodeJS.ErrnoException;
    return failed(
      `configuration: the report ${JSON.stringify(reportPath)} cannot be read (${e.code ? `${e.code}: ` : ''}${e.code === 'ENOENT' ? 'no such file; did the scan step write it there?' : e.message})`,
    );
  }
  let answer: GateAnswer;
  try {
    answer = await requestGate({
      apiUrl,
      token: token || undefined,
      report,
      query: {
        source: source || undefined,
        slug,
        sha,
        pr: pull?.number !== undefined ? String(pull.number) : undefined,
        attribution: attribution || undefined,
      },
    });
  } catch (error) {
    if (!(error instanceof GateRequestError)) throw error;
    return failed(error.message);
  }

  const code = exitCodeFor(answer.verdict, allowUnknown);
  let sarifPath = '';
  if (sarifInput && answer.verdict !== 'unknown') {
    // For github/codeql-action/upload-sarif: one result per opened or worsened route, at the file behind it.
    // Only an analysed answer: a log with no result closes the open alerts, which only `clean` may do.
    const workspace = process.env.GITHUB_WORKSPACE || process.cwd();
    sarifPath = path.resolve(workspace, sarifInput);
    try {
      await writeFile(
        sarifPath,
        `${JSON.stringify(toSarif(answer, { root: workspace, reportPath }), null, 2)}\n`,
      );
    } catch (error) {
      return failed(
        `cannot write the SARIF log ${sarifPath}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      );
    }
  }
  setOutputs({
    verdict: answer.verdict,
    reason: answer.reason,
    opened: String(answer.opened.length),
    worsened: String(answer.worsened.length),
    exposed: String(answer.exposed?.length ?? 0),
    preexisting: String(answer.preexistingCount ?? answer.preexisting),
    unjoined: String(answer.unjoinedCount ?? answer.unjoined?.length ?? 0),
    sarif: sarifPath,
    'exit-code': String(code),
  });
  await core.summary.addRaw(renderMarkdown(answer)).write();
  for (const route of [...answer.opened, ...answer.worsened].filter((r) => r.critical)) {
    core.error(
      `${route.nodes.map((n) => n.name).join(' → ')} (score ${route.score.toFixed(3)}, ${route.priority}): ${route.fix}`,
      { title: 'pathgate: critical attack path' },
    );
  }
  const unjoined = unjoinedLines(answer);
  if (answer.verdict === 'unknown' && sarifInput)
    core.info('pathgate: no SARIF log written: an unknown verdict must not close open code-scanning alerts');
  const detail = unjoined.length ? `\n${unjoined.join('\n')}` : '';
  if (answer.verdict === 'blocked') core.setFailed(`pathgate: blocked: ${answer.reason}`);
  else if (answer.verdict === 'unknown' && !allowUnknown)
    core.setFailed(`pathgate: unknown: ${answer.reason}${detail}`);
  else if (answer.verdict === 'unknown')
    core.warning(`pathgate: unknown (allowed by allow-unknown): ${answer.reason}${detail}`);
  else core.info(`pathgate: ${answer.verdict}: ${answer.reason}`);
  return code;
}

run().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.exitCode = failed(`internal error: ${error instanceof Error ? error.message : String(error)}`);
  },
);
