// The GitHub Action (action.yml; bundled into dist/index.js by @vercel/ncc): posts the pull request's report
// to the server's /gate/impact with the PR's slug, number and head SHA from the event, then sets the outputs,
// writes a job summary and an error annotation per blocked route, and exits 0 clean, 1 blocked, 2 unknown
// (0 with allow-unknown). A gate that cannot be asked fails the step (exit 3).
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import * as core from '@actions/core';
import * as github from '@actions/github';
import {
  exitCodeFor,
  GateRequestError,
  renderMarkdown,
  reportForGate,
  requestGate,
  toSarif,
  type GateAnswer,
} from '../gate-client.js';

async function run(): Promise<number> {
  const apiUrl = core.getInput('api-url', { required: true });
  const token = core.getInput('api-token');
  if (token) core.setSecret(token);
  const reportPath = core.getInput('report', { required: true });
  const source = core.getInput('source');
  const attribution = core.getInput('attribution');
  const allowUnknown = core.getBooleanInput('allow-unknown');
  const sarifInput = core.getInput('sarif');
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
    core.setFailed(`cannot read the report ${reportPath}: ${(error as NodeJS.ErrnoException).code ?? error}`);
    return 3;
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
    core.setFailed(`pathgate: ${error.message}`);
    return 3;
  }

  const code = exitCodeFor(answer.verdict, allowUnknown);
  core.setOutput('verdict', answer.verdict);
  core.setOutput('opened', String(answer.opened.length));
  core.setOutput('worsened', String(answer.worsened.length));
  core.setOutput('exposed', String(answer.exposed?.length ?? 0));
  core.setOutput('preexisting', String(answer.preexisting));
  core.setOutput('exit-code', String(code));
  await core.summary.addRaw(renderMarkdown(answer)).write();
  if (sarifInput) {
    // For github/codeql-action/upload-sarif: one result per opened or worsened route, at the file behind it.
    const workspace = process.env.GITHUB_WORKSPACE || process.cwd();
    const sarifPath = path.resolve(workspace, sarifInput);
    await writeFile(
      sarifPath,
      `${JSON.stringify(toSarif(answer, { root: workspace, reportPath }), null, 2)}\n`,
    );
    core.setOutput('sarif', sarifPath);
  }
  for (const route of [...answer.opened, ...answer.worsened].filter((r) => r.critical)) {
    core.error(
      `${route.nodes.map((n) => n.name).join(' → ')} (score ${route.score.toFixed(3)}, ${route.priority}): ${route.fix}`,
      { title: 'pathgate: critical attack path' },
    );
  }
  if (answer.verdict === 'blocked') core.setFailed(`pathgate: blocked: ${answer.reason}`);
  else if (answer.verdict === 'unknown' && !allowUnknown)
    core.setFailed(`pathgate: unknown: ${answer.reason}`);
  else core.info(`pathgate: ${answer.verdict}: ${answer.reason}`);
  return code;
}

run().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    core.setFailed(`pathgate: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 3;
  },
);
