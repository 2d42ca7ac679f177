// What the `pathgate gate` CLI and the GitHub Action share: posting a report to a server's /gate/impact,
// the exit code of a verdict, and the verdict as text. No server code here: the Action bundle stays small.

export type Verdict = 'clean' | 'blocked' | 'unknown';

export interface GateStep {
  from: string;
  to: string;
  type: string;
  probability: number;
  weightBasis: string;
}

export interface GateRoute {
  id: string;
  score: number;
  previousScore: number | null;
  priority: string;
  previousPriority: string | null;
  critical: boolean;
  nodes: { id: string; name: string; label: string }[];
  steps: GateStep[];
  why: (GateStep & { change: 'added' | 'repriced' | 'exposed'; previousProbability?: number })[];
  fix: string;
}

export interface GateAnswer {
  verdict: Verdict;
  reason: string;
  analysed: boolean;
  attribution: string;
  opened: GateRoute[];
  worsened: GateRoute[];
  preexisting: number;
  errors?: { pointer: string; detail: string }[];
}

export class GateRequestError extends Error {}

/** Exit codes: 0 clean, 1 blocked, 2 unknown (0 with allowUnknown). */
export function exitCodeFor(verdict: Verdict, allowUnknown: boolean): number {
  if (verdict === 'blocked') return 1;
  if (verdict === 'unknown') return allowUnknown ? 0 : 2;
  return 0;
}

export interface RemoteGate {
  apiUrl: string;
  token?: string;
  /** the report as read from its file */
  report: string;
  query: Record<string, string | undefined>;
  tenant?: string;
}

export async function requestGate(options: RemoteGate): Promise<GateAnswer> {
  const url = new URL('/gate/impact', options.apiUrl);
  for (const [key, value] of Object.entries(options.query)) if (value) url.searchParams.set(key, value);
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(options.token && { authorization: `Bearer ${options.token}` }),
        ...(options.tenant && { 'x-tenant': options.tenant }),
      },
      body: options.report.trim() ? options.report : '{}',
      signal: AbortSignal.timeout(120_000),
    });
  } catch (error) {
    throw new GateRequestError(`cannot reach ${url.origin}: ${(error as Error).message}`);
  }
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new GateRequestError(`${url.origin} answered ${response.status} with something other than JSON`);
  }
  if (response.status !== 200) {
    const problem = body as { detail?: string; title?: string };
    throw new GateRequestError(
      `${url.origin} answered ${response.status}: ${problem.detail ?? problem.title ?? text}`,
    );
  }
  return body as GateAnswer;
}

const route = (r: GateRoute) => r.nodes.map((n) => n.name).join(' → ');
const score = (r: GateRoute) =>
  r.previousScore === null ? r.score.toFixed(3) : `${r.previousScore.toFixed(3)} → ${r.score.toFixed(3)}`;

/** The verdict as a terminal reads it. */
export function renderText(answer: GateAnswer): string {
  const lines = [`verdict: ${answer.verdict.toUpperCase()} (${answer.attribution}) ${answer.reason}`];
  const rows = [
    ...answer.opened.map((r) => ['opened', r]),
    ...answer.worsened.map((r) => ['worsened', r]),
  ] as [string, GateRoute][];
  if (rows.length) {
    const table = [
      ['', 'status', 'priority', 'score', 'route'],
      ...rows.map(([status, r]) => [r.critical ? '!' : '', status, r.priority, score(r), route(r)]),
    ];
    const widths = table[0].map((_, c) => Math.max(...table.map((row) => row[c].length)));
    for (const row of table)
      lines.push(
        row
          .map((cell, c) => cell.padEnd(widths[c]))
          .join('  ')
          .trimEnd(),
      );
    for (const [, r] of rows) {
      for (const w of r.why)
        lines.push(
          `  ${route(r)}: ${w.type} ${w.change}${w.previousProbability !== undefined ? ` ${w.previousProbability.toFixed(3)} →` : ''} ${w.probability.toFixed(3)} (${w.weightBasis})`,
        );
      lines.push(`  fix: ${r.fix}`);
    }
  }
  lines.push(`preexisting routes: ${answer.preexisting}`);
  for (const e of answer.errors ?? []) lines.push(`  ${e.pointer}: ${e.detail}`);
  return `${lines.join('\n')}\n`;
}

/** Markdown for a job summary or a PR comment. */
export function renderMarkdown(answer: GateAnswer): string {
  const icon = answer.verdict === 'blocked' ? '⛔' : answer.verdict === 'clean' ? '✅' : '❔';
  const out = [`### ${icon} pathgate: ${answer.verdict}`, '', answer.reason, ''];
  const rows = [
    ...answer.opened.map((r) => ['opened', r] as const),
    ...answer.worsened.map((r) => ['worsened', r] as const),
  ];
  if (rows.length) {
    out.push('| | status | priority | score | route | fix |', '| --- | --- | --- | --- | --- | --- |');
    for (const [status, r] of rows)
      out.push(
        `| ${r.critical ? '⛔' : ''} | ${status} | ${r.priority} | ${score(r)} | ${route(r)} | ${r.fix.replace(/\|/g, '\\|')} |`,
      );
    out.push('');
  }
  out.push(`Preexisting routes: ${answer.preexisting}. Attribution: ${answer.attribution}.`);
  return `${out.join('\n')}\n`;
}
