// What the `pathgate gate` CLI and the GitHub Action share: posting a report to a server's /gate/impact,
// the exit code of a verdict, and the verdict as text, Markdown (with a Mermaid diagram of each route) and
// SARIF 2.1.0. No server code here: the Action bundle stays small.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { decodeReportFile, readReport } from '../src/ingest/recognize.js';
import { mermaidLabel } from './github/markdown.js';
import { resourceSearches } from './locate-rules.js';
import { SOURCE_NAMES } from '../src/ingest/sources/names.js';
import { describeError } from './cli-flags.js';

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
  /**
   * what in the pull request the route comes from (Terraform addresses, Kubernetes objects, images, a
   * package, the code scanner's finding)
   */
  origin?: {
    terraform?: string[];
    kubernetes?: { kind?: string; name: string; namespace?: string }[];
    images?: string[];
    package?: string;
    code?: { path: string; line?: number; rule: string };
  };
}

export interface GateAnswer {
  verdict: Verdict;
  reason: string;
  analysed: boolean;
  attribution: string;
  opened: GateRoute[];
  worsened: GateRoute[];
  /** routes the change leaves as they were (a count; `preexistingCount` on servers since 0.2) */
  preexisting: number;
  preexistingCount?: number;
  /** on `unknown` for a report naming nothing the estate holds: what it read, why, and what would join it */
  unjoined?: GateUnjoined[];
  unjoinedCount?: number;
  improved?: {
    id: string;
    score: number | null;
    previousScore: number;
    closed: boolean;
    nodes: { id: string; name: string; label: string }[];
  }[];
  /** crown jewels the change exposes to the internet (each blocks), and those it no longer exposes */
  exposed?: GateExposure[];
  unexposed?: GateExposure[];
  errors?: { pointer: string; detail: string }[];
}

/** A crown jewel the change puts on (or takes off) the internet: the invariant it breaks and where. */
export interface GateExposure {
  id: string;
  invariant: string;
  severity: string;
  detail: string;
  node: { id: string; name: string; label: string };
  origin?: GateRoute['origin'];
}

export interface GateUnjoined {
  kind: string;
  label: string;
  name: string;
  reason: string;
  hint: string;
}

/** The gate could not be asked (exit 3): unreachable, refused, or configured wrong. */
export class GateRequestError extends Error {}

/** A `source` the gate reads, or a GateRequestError naming the value and listing those it reads. */
export function checkSource(source: string | undefined): void {
  if (source && !(SOURCE_NAMES as readonly string[]).includes(source))
    throw new GateRequestError(
      `source ${JSON.stringify(source)} is not one the gate reads; use one of ${SOURCE_NAMES.join(', ')}, or leave it empty to have the report recognised by its shape`,
    );
}

/** The API's base URL, or a GateRequestError naming the value. */
export function checkApiUrl(apiUrl: string): URL {
  let url: URL;
  try {
    url = new URL('/gate/impact', apiUrl);
  } catch {
    throw new GateRequestError(
      `api-url ${JSON.stringify(apiUrl)} is not a URL: expected http(s)://host[:port], for example https://pathgate.example.com`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new GateRequestError(
      `api-url ${JSON.stringify(apiUrl)} is not an http(s) URL (scheme ${url.protocol.replace(/:$/, '')})`,
    );
  return url;
}

/** What a failed fetch hides behind "fetch failed": the causes, innermost last (ECONNREFUSED, a TLS error). */
function causeOf(error: unknown): string {
  const parts: string[] = [];
  for (
    let e = error as { message?: string; code?: string; cause?: unknown } | undefined, depth = 0;
    e && depth < 4;
    depth++
  ) {
    const text = e.code && !e.message?.includes(e.code) ? `${e.code}: ${e.message}` : e.message;
    if (text && text !== 'fetch failed') parts.push(text);
    e = e.cause as typeof e;
  }
  return parts.join(': ') || String(error);
}

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
  const url = checkApiUrl(options.apiUrl);
  checkSource(options.query.source);
  const where = `${url.origin}${url.pathname}`;
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
    throw new GateRequestError(`cannot reach ${where}: ${describeError(error)}`, { cause: error });
  }
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    throw new GateRequestError(
      `${where} answered ${response.status}, then the answer broke off: ${causeOf(error)}`,
    );
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new GateRequestError(
      `${where} answered ${response.status} ${response.statusText} with something other than JSON (is api-url the pathgate API listener?): ${JSON.stringify(text.slice(0, 200))}`,
    );
  }
  if (response.status !== 200) {
    const problem = body as { detail?: string; title?: string };
    const hint =
      response.status === 401
        ? ' (the API token is missing or wrong: api-token, or PATHGATE_API_TOKEN for the CLI)'
        : response.status === 403
          ? ' (the token may not use the gate: a viewer or above is needed)'
          : '';
    throw new GateRequestError(
      `${where} answered ${response.status} ${response.statusText}: ${problem.detail ?? problem.title ?? text}${hint}`,
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
  for (const v of answer.exposed ?? []) lines.push(`! exposed: ${v.detail}`);
  for (const v of answer.unexposed ?? []) lines.push(`no longer exposed: ${v.node.label} ${v.node.name}`);
  for (const p of answer.improved ?? [])
    lines.push(
      `improved: ${p.nodes.map((n) => n.name).join(' → ')} (${p.closed ? `closed, was ${p.previousScore.toFixed(3)}` : `${p.previousScore.toFixed(3)} → ${p.score!.toFixed(3)}`})`,
    );
  lines.push(`preexisting routes: ${answer.preexistingCount ?? answer.preexisting}`);
  for (const e of answer.errors ?? []) lines.push(`  ${e.pointer}: ${e.detail}`);
  for (const line of unjoinedLines(answer)) lines.push(line);
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
    for (const [status, r] of rows.slice(0, MAX_DIAGRAMS))
      out.push(`**${status}: ${route(r)}**`, '', renderMermaid(r), '');
  }
  const exposed = answer.exposed ?? [];
  if (exposed.length) {
    out.push('Crown jewels this change exposes to the internet:', '');
    for (const v of exposed) out.push(`- ⛔ ${v.detail.replace(/\|/g, '\\|')}`);
    out.push('');
  }
  if (answer.unexposed?.length)
    out.push(
      `No longer exposed: ${answer.unexposed.map((v) => `${v.node.label} ${v.node.name}`).join('; ')}.`,
      '',
    );
  const improved = answer.improved ?? [];
  if (improved.length) {
    out.push(
      `Improved: ${improved
        .map(
          (p) =>
            `${p.nodes.map((n) => n.name).join(' → ')} (${p.closed ? 'closed' : `${p.previousScore.toFixed(3)} → ${p.score!.toFixed(3)}`})`,
        )
        .join('; ')}.`,
      '',
    );
  }
  const unjoined = unjoinedLines(answer);
  if (unjoined.length)
    out.push(
      'What the gate read and could not join to the estate:',
      '',
      ...unjoined.map((l) => `- ${l.trim().replace(/\|/g, '\\|')}`),
      '',
    );
  out.push(
    `Preexisting routes: ${answer.preexistingCount ?? answer.preexisting}. Attribution: ${answer.attribution}.`,
  );
  return `${out.join('\n')}\n`;
}

/** Each image, repository or asset an `unknown` answer read and could not join: why, and what would. */
export function unjoinedLines(answer: GateAnswer): string[] {
  const out: string[] = [];
  for (const u of answer.unjoined ?? []) {
    out.push(`  not joined: ${u.kind} ${u.name}: ${u.reason}`);
    out.push(`    to join it: ${u.hint}`);
  }
  const more = (answer.unjoinedCount ?? 0) - (answer.unjoined?.length ?? 0);
  if (more > 0) out.push(`  and ${more} more not joined`);
  return out;
}

/** GitHub renders a job summary or comment of at most 65,536 characters: diagrams for the worst routes. */
const MAX_DIAGRAMS = 10;

/** Mermaid's text inside `"…"`: as entities (app/github/markdown.ts), so no name can break the diagram. */
const mermaidText = mermaidLabel;

/**
 * A route as a Mermaid flowchart (GitHub renders ```mermaid blocks): one box per hop's node, each edge with
 * its type, probability and basis; the hops the change added or made likelier drawn thick and red, a start
 * the change exposed outlined red.
 */
export function renderMermaid(route: GateRoute): string {
  const index = new Map(route.nodes.map((n, i) => [n.id, i]));
  const lines = ['```mermaid', 'flowchart LR'];
  for (const [i, n] of route.nodes.entries())
    lines.push(`  n${i}["${mermaidText(n.name)}<br/><small>${mermaidText(n.label)}</small>"]`);
  const changed: number[] = [];
  for (const [k, step] of route.steps.entries()) {
    const why = route.why.find((w) => w.from === step.from && w.to === step.to && w.type === step.type);
    const label = `${step.type} ${step.probability.toFixed(2)}${why?.change === 'repriced' && why.previousProbability !== undefined ? ` (was ${why.previousProbability.toFixed(2)})` : ''}`;
    lines.push(`  n${index.get(step.from)} -->|"${mermaidText(label)}"| n${index.get(step.to)}`);
    if (why) changed.push(k);
  }
  for (const k of changed) lines.push(`  linkStyle ${k} stroke:#d73a49,stroke-width:4px`);
  if (route.why.some((w) => w.change === 'exposed'))
    lines.push('  classDef exposed stroke:#d73a49,stroke-width:3px', '  class n0 exposed');
  lines.push('```');
  return lines.join('\n');
}

// ---- SARIF 2.1.0 (GitHub code scanning: github/codeql-action/upload-sarif) ----------------------------

const SARIF_RULES = [
  {
    id: 'pathgate/attack-path-opened',
    name: 'AttackPathOpened',
    shortDescription: { text: 'The change opens an attack path' },
    fullDescription: {
      text: 'An attacker route from an internet-facing or credential-exposed start to a sensitive asset that the live estate does not have, with this change applied.',
    },
    helpUri: 'https://github.com/pathgate/pathgate/blob/main/docs/gate.md',
    help: {
      text: 'Open the route in pathgate; apply the suggested fix or cut one of the hops the change added.',
    },
  },
  {
    id: 'pathgate/attack-path-worsened',
    name: 'AttackPathWorsened',
    shortDescription: { text: 'The change makes an attack path likelier' },
    fullDescription: {
      text: 'A route the live estate already has, whose probability or priority this change raises (a hop repriced by new CVEs, an added hop, a start newly exposed).',
    },
    helpUri: 'https://github.com/pathgate/pathgate/blob/main/docs/gate.md',
    help: { text: 'Keep the previous version, or apply the suggested fix.' },
  },
  {
    id: 'pathgate/crown-jewel-exposed',
    name: 'CrownJewelExposed',
    shortDescription: { text: 'The change exposes a crown jewel to the internet' },
    fullDescription: {
      text: 'A sensitive asset (a crown jewel) that this change makes reachable from the internet itself: the invariant no-internet-exposed-sensitive-asset.',
    },
    helpUri: 'https://github.com/pathgate/pathgate/blob/main/docs/gate.md',
    help: {
      text: 'Keep the asset private (no public access, no public address), or take its sensitive data elsewhere.',
    },
  },
];

export interface SarifOptions {
  /** the checkout the files are looked up in (paths in the SARIF are relative to it) */
  root: string;
  /** the report given to the gate, for routes no file of the checkout explains */
  reportPath?: string;
  version?: string;
}

/** The routes the change opened or worsened as a SARIF 2.1.0 log, each located at the file that caused it. */
export function toSarif(answer: GateAnswer, options: SarifOptions): Record<string, unknown> {
  const files = new FileIndex(options.root);
  const rows = [...answer.opened.map((r) => [0, r] as const), ...answer.worsened.map((r) => [1, r] as const)];
  /** One result of rule `ruleIndex`, at the file that explains `subject`, fingerprinted by its id. */
  const result = (
    ruleIndex: number,
    subject: Pick<GateRoute, 'id' | 'origin'>,
    level: 'error' | 'warning',
    text: string,
    properties: Record<string, unknown>,
  ) => {
    const where = files.locate(subject, options.reportPath);
    return {
      ruleId: SARIF_RULES[ruleIndex].id,
      ruleIndex,
      level,
      message: { text },
      locations: [
        {
          physicalLocation: {
            artifactLocation: { uri: where.uri, uriBaseId: '%SRCROOT%' },
            region: { startLine: where.line },
          },
          message: { text: where.why },
        },
      ],
      partialFingerprints: { 'pathgate/path/v1': subject.id },
      properties: { pathId: subject.id, ...properties },
    };
  };
  const results = rows.map(([ruleIndex, r]) =>
    result(
      ruleIndex,
      r,
      r.critical ? 'error' : 'warning',
      `${r.critical ? 'Critical attack path' : 'Attack path'} ${ruleIndex === 0 ? 'opened' : 'made likelier'}: ${route(r)} (${r.priority}, score ${score(r)}). Fix: ${r.fix}`,
      {
        priority: r.priority,
        previousPriority: r.previousPriority,
        score: r.score,
        previousScore: r.previousScore,
        route: r.nodes.map((n) => n.name),
        'security-severity': r.critical ? '9.0' : r.priority === 'P2' ? '6.0' : '3.0',
      },
    ),
  );
  const exposureRule = SARIF_RULES.findIndex((r) => r.id === 'pathgate/crown-jewel-exposed');
  for (const v of answer.exposed ?? [])
    results.push(
      result(exposureRule, v, 'error', `Crown jewel exposed to the internet: ${v.detail}`, {
        priority: 'P1',
        previousPriority: null,
        score: 1,
        previousScore: null,
        route: [v.node.name],
        'security-severity': '9.0',
      }),
    );
  return {
    $schema: 'https://raw.githubusercontent.com/oasis-tcs/sarif-spec/master/Schemata/sarif-schema-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'pathgate',
            informationUri: 'https://github.com/pathgate/pathgate',
            ...(options.version && { semanticVersion: options.version }),
            rules: SARIF_RULES.map((rule) => ({
              ...rule,
              defaultConfiguration: { level: 'error' },
              properties: { tags: ['security', 'attack-path'], precision: 'high' },
            })),
          },
        },
        automationDetails: { id: 'pathgate/gate/' },
        originalUriBaseIds: {
          '%SRCROOT%': { uri: `file://${path.resolve(options.root).replace(/\/?$/, '/')}` },
        },
        results,
        properties: { verdict: answer.verdict, reason: answer.reason, preexisting: answer.preexisting },
      },
    ],
  };
}

const SKIP = new Set(['.git', 'node_modules', 'dist', '.terraform', 'vendor', 'coverage']);

/** The checkout's text files, read lazily, for pointing a route at the line that caused it. */
class FileIndex {
  private list?: string[];
  private readonly texts = new Map<string, string[]>();

  constructor(private readonly root: string) {}

  locate(r: Pick<GateRoute, 'origin'>, reportPath?: string): { uri: string; line: number; why: string } {
    const origin = r.origin ?? {};
    // A code weakness is where its scanner found it, when the checkout holds that file.
    if (origin.code && this.files().includes(path.normalize(origin.code.path)))
      return {
        uri: toUri(path.normalize(origin.code.path)),
        line: Math.max(1, origin.code.line ?? 1),
        why: `${origin.code.rule} was found here`,
      };
    for (const search of resourceSearches(origin)) {
      const found = this.find(search.pick, search.pattern);
      if (found) return { ...found, why: search.why };
    }
    const report = reportPath && path.relative(this.root, path.resolve(reportPath));
    if (report && !report.startsWith('..'))
      return { uri: toUri(report), line: 1, why: 'the report the gate read' };
    return { uri: 'Dockerfile', line: 1, why: 'no file of the checkout explains this route' };
  }

  private find(pick: (file: string) => boolean, pattern: RegExp): { uri: string; line: number } | undefined {
    for (const file of this.files().filter(pick)) {
      const lines = this.read(file);
      const at = lines.findIndex((l) => pattern.test(l));
      if (at >= 0) return { uri: toUri(file), line: at + 1 };
    }
    return undefined;
  }

  private files(): string[] {
    if (this.list) return this.list;
    const out: string[] = [];
    const walk = (dir: string, depth: number) => {
      if (depth > 8 || out.length > 20_000) return;
      let entries;
      try {
        entries = readdirSync(path.join(this.root, dir), { withFileTypes: true });
      } catch {
        return;
      }
      for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
        if (e.isDirectory()) {
          if (!SKIP.has(e.name)) walk(path.join(dir, e.name), depth + 1);
        } else if (e.isFile()) out.push(path.join(dir, e.name));
      }
    };
    walk('', 0);
    return (this.list = out);
  }

  private read(file: string): string[] {
    let lines = this.texts.get(file);
    if (!lines) {
      try {
        lines = readFileSync(path.join(this.root, file), 'utf8').split('\n');
      } catch {
        lines = [];
      }
      this.texts.set(file, lines);
    }
    return lines;
  }
}

const toUri = (file: string) => file.split(path.sep).map(encodeURIComponent).join('/');

/**
 * A report file's bytes as the gate takes them: Kubernetes manifests (multi-document YAML), NDJSON alerts and
 * CycloneDX XML as the JSON the sources read; what none of these reads is sent as it is, for the gate to name.
 */
export function reportForGate(bytes: Buffer): string {
  const text = decodeReportFile(bytes);
  try {
    const read = readReport(text);
    return read.format === 'json' ? text : JSON.stringify(read.body);
  } catch {
    return text; // not a report at all: left for the gate to name
  }
}
