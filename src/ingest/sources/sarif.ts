// Source `sarif`: a code scanner's SARIF 2.1.0 log (CodeQL, `semgrep --sarif`, SpotBugs, Flawfinder,
// Gitleaks, ...) for the repository named by `?repo=` (required, as for semgrep). Read as the semgrep source
// reads its JSON, so both of one scan meet on the same nodes:
// - each result is a Weakness named `<repo>:<path>:<line>:<rule>` (a path under the directory the tool ran
//   in named from there) that AFFECTS the Repository, with its CWEs (tags, CodeQL's `external/cwe/cwe-089`,
//   `cwe` properties, CWE taxa, a MITRE CWE help page) and severity (`security-severity`, else the tool's own CRITICAL..LOW word, else the level, `warning` unsaid);
//   results of code-quality rules (tagged maintainability, correctness, ... and not security: an unused
//   variable) are counted, not drawn;
// - a secret scanner's results are Secret nodes named as Trivy names a repository's secrets, never holding
//   the matched text (Gitleaks writes it as `offender`);
// - a result that is suppressed (`accepted`), absent from the baseline, or not a failure (`pass`,
//   `notApplicable`, `informational`) is no finding; one that names no file is not placed and is said.
// A vulnerability scanner's SARIF (Trivy, Grype, OWASP dependency-check, Snyk Open Source) names no package a
// CVE sits in: it is refused by name, pointing at the JSON the trivy and grype sources read. Complete per
// repository and tool: the next log of one tool retracts what it no longer reports, never another tool's
// findings.
import { EnvelopeBuilder } from './envelope-builder.js';
import { reportProblem, reportSchema } from './report-schema.js';
import { cweId, scannedRepository } from './semgrep.js';
import type { IngestSource } from './source.js';

interface SarifLog {
  version: string;
  runs: SarifRun[];
}

interface SarifRule {
  id?: string;
  name?: string;
  shortDescription?: { text?: string };
  helpUri?: unknown;
  defaultConfiguration?: { level?: string };
  properties?: {
    tags?: unknown;
    'security-severity'?: unknown;
    precision?: unknown;
    cwe?: unknown;
    severity?: unknown;
    issue_severity?: unknown;
  };
  relationships?: { target?: { id?: unknown; toolComponent?: { name?: unknown } } }[];
}

interface SarifRun {
  tool: {
    driver: { name: string; version?: string; semanticVersion?: string; rules?: SarifRule[] };
    extensions?: { rules?: SarifRule[] }[];
  };
  invocations?: { workingDirectory?: { uri?: unknown } }[];
  originalUriBaseIds?: Record<string, { uri?: unknown } | undefined>;
  results?: SarifResult[] | null;
}

interface SarifResult {
  ruleId?: string;
  ruleIndex?: number;
  rule?: { id?: string; index?: number; toolComponent?: { index?: number } };
  kind?: string;
  level?: string;
  message?: { text?: string };
  baselineState?: string;
  suppressions?: { kind?: string; status?: string }[];
  locations?: {
    physicalLocation?: {
      artifactLocation?: { uri?: string };
      region?: { startLine?: number; endLine?: number };
    };
  }[];
  properties?: {
    'security-severity'?: unknown;
    tags?: unknown;
    cwe?: unknown;
    severity?: unknown;
    issue_severity?: unknown;
  };
}

/** Scanners whose SARIF lists vulnerable packages without naming them: their JSON is what is read. */
const VULNERABILITY_SCANNERS: Readonly<Record<string, string>> = {
  trivy: 'send `trivy ... --format json` to /ingest/trivy',
  grype: 'send `grype ... -o json` to /ingest/grype',
  'dependency-check': 'scan the project with Trivy or Grype and send their JSON',
  // `snyk test --sarif`: each result a dependency's vulnerability placed at the manifest's line 1.
  'snyk open source': 'scan the project with Trivy or Grype and send their JSON',
};

/** Secret scanners: their findings are credentials in the repository, Secret nodes. */
const SECRET_SCANNERS = new Set(['gitleaks', 'trufflehog', 'detect-secrets', 'ggshield']);

/** SARIF levels on the engine's severity scale (a `security-severity` score, when given, comes first). */
const LEVEL_SEVERITY: Readonly<Record<string, string>> = { error: 'HIGH', warning: 'MEDIUM', note: 'LOW' };

/**
 * A tool's own severity words in a result's or rule's properties (Contrast Scan's `severity`, ShiftLeft
 * scan's and Bandit's `issue_severity`) or tags (gosec): finer than the level, which folds CRITICAL and HIGH
 * (gosec: and MEDIUM) into `error`.
 */
const TOOL_SEVERITY: Readonly<Record<string, string>> = {
  CRITICAL: 'CRITICAL',
  HIGH: 'HIGH',
  MEDIUM: 'MEDIUM',
  LOW: 'LOW',
};

/** Result kinds that are no finding (SARIF §3.27.9): only `fail`, `open` and `review` ask for attention. */
const NOT_FINDINGS = new Set(['pass', 'notApplicable', 'informational']);

export function createSarifSource(): IngestSource {
  const check = reportSchema<SarifLog>('sarif', {
    type: 'object',
    required: ['version', 'runs'],
    properties: {
      version: { type: 'string', const: '2.1.0' },
      runs: {
        type: 'array',
        items: {
          type: 'object',
          required: ['tool'],
          properties: {
            tool: {
              type: 'object',
              required: ['driver'],
              properties: {
                driver: {
                  type: 'object',
                  required: ['name'],
                  properties: { name: { type: 'string', minLength: 1 }, rules: { type: 'array' } },
                },
                extensions: { type: 'array' },
              },
            },
            results: { type: ['array', 'null'], items: { type: 'object' } },
          },
        },
      },
    },
  });
  return {
    name: 'sarif',
    version: '2',
    description:
      "a code scanner's SARIF 2.1.0 log for ?repo=<repository>: Weakness (or Secret) AFFECTS Repository; complete per repo and tool.",
    snapshots: 'self',
    normalize({ body, query, receivedAt }) {
      const repo = scannedRepository(query, 'SARIF logs');
      const log = check(body);
      log.runs.forEach((run, i) => refuseVulnerabilityScan(run, i));
      const out = new EnvelopeBuilder('sarif', 'finding', receivedAt);
      const tools = [...new Set(log.runs.map((run) => run.tool.driver.name))].sort();
      const repository = out.node('Repository', repo, { sarif_tools: tools });
      const skipped = { quality: 0, suppressed: 0, unplaced: 0 };
      for (const run of log.runs) readRun(out, run, repo, repository, skipped);
      const warnings: string[] = [];
      if (skipped.quality)
        warnings.push(
          `sarif log: ${skipped.quality} result(s) of code-quality rules (tagged maintainability, correctness, style, ... and not security) not read`,
        );
      if (skipped.suppressed)
        warnings.push(`sarif log: ${skipped.suppressed} suppressed or fixed result(s) skipped`);
      if (skipped.unplaced)
        warnings.push(
          `sarif log: ${skipped.unplaced} result(s) naming no rule or no file of the repository (the repository as a whole, an image) not read`,
        );
      // A log of no run says nothing complete about any tool: partial.
      if (!tools.length) warnings.push('sarif log: no run, so no tool and no finding');
      const scope = tools.length ? `repo:${repo}:${tools.join('+')}` : undefined;
      return { envelopes: [out.build()], warnings, scope };
    },
  };
}

function refuseVulnerabilityScan(run: SarifRun, index: number): void {
  const tool = run.tool.driver.name;
  const hint = VULNERABILITY_SCANNERS[tool.toLowerCase()];
  if (hint === undefined) return;
  throw reportProblem('sarif', [
    {
      pointer: `/runs/${index}/tool/driver/name`,
      value: tool,
      detail: `a vulnerability scan: its SARIF names no package a CVE is in; ${hint}`,
    },
  ]);
}

function readRun(
  out: EnvelopeBuilder,
  run: SarifRun,
  repo: string,
  repository: string,
  skipped: { quality: number; suppressed: number; unplaced: number },
): void {
  const driver = run.tool.driver;
  const secrets = SECRET_SCANNERS.has(driver.name.toLowerCase());
  const rules = driver.rules ?? [];
  const byId = new Map<string, SarifRule>();
  const extensionRules = (run.tool.extensions ?? []).flatMap((e) => (Array.isArray(e?.rules) ? e.rules : []));
  for (const rule of [...rules, ...extensionRules])
    if (typeof rule?.id === 'string' && !byId.has(rule.id)) byId.set(rule.id, rule);
  const roots = sourceRoots(run);
  for (const result of run.results ?? []) {
    if (NOT_FINDINGS.has(result.kind ?? 'fail') || result.baselineState === 'absent' || suppressed(result)) {
      skipped.suppressed++;
      continue;
    }
    // By index into the driver's rules, or an extension's (CodeQL's query packs) when the result names one.
    const index = result.rule?.index ?? result.ruleIndex;
    const component = result.rule?.toolComponent?.index;
    const indexed = typeof component === 'number' ? run.tool.extensions?.[component]?.rules : rules;
    const rule =
      (typeof index === 'number' ? indexed?.[index] : undefined) ??
      byId.get(result.ruleId ?? result.rule?.id ?? '');
    const ruleId =
      text(result.ruleId) ??
      text(result.rule?.id) ??
      text(rule?.id) ??
      ruleOfMessage(byId, text(result.message?.text));
    const location = Array.isArray(result.locations) ? result.locations[0]?.physicalLocation : undefined;
    const file = underRoot(pathOf(location?.artifactLocation?.uri), roots);
    if (!ruleId || !file) {
      skipped.unplaced++;
      continue;
    }
    const line = Number.isInteger(location?.region?.startLine) ? location?.region?.startLine : undefined;
    const at = line !== undefined ? `:${line}` : '';
    if (secrets) {
      // Named as Trivy names a repository's secrets; the matched text (Gitleaks' `offender`) is never read.
      const id = out.node('Secret', `${repo}:${file}${at}:${ruleId}`, {
        rule_id: ruleId,
        title: text(rule?.shortDescription?.text) ?? text(rule?.name),
        path: file,
        line,
        scanner: driver.name,
      });
      out.edge('AFFECTS', id, repository);
      continue;
    }
    const score = securitySeverity(
      result.properties?.['security-severity'] ?? rule?.properties?.['security-severity'],
    );
    if (score === undefined && isQualityRule(rule, result)) {
      skipped.quality++;
      continue;
    }
    const cwe = cwesOf(rule, result);
    // SARIF §3.27.10: a result whose level neither it nor its rule states is a `warning`.
    const level = text(result.level) ?? text(rule?.defaultConfiguration?.level) ?? 'warning';
    const weakness = out.node('Weakness', `${repo}:${file}${at}:${ruleId}`, {
      rule_id: ruleId,
      cwe: cwe.length ? cwe : undefined,
      severity:
        score !== undefined ? scoreSeverity(score) : (toolSeverity(rule, result) ?? LEVEL_SEVERITY[level]),
      security_severity: score,
      scanner_severity: level,
      precision: typeof rule?.properties?.precision === 'string' ? rule.properties.precision : undefined,
      message: text(result.message?.text),
      path: file,
      line,
      end_line: Number.isInteger(location?.region?.endLine) ? location?.region?.endLine : undefined,
      location: `${file}${at}`,
      repo,
      scanner: driver.name,
      scanner_version: text(driver.semanticVersion) ?? text(driver.version),
    });
    out.edge('AFFECTS', weakness, repository);
  }
}

/** Suppressed in the source or by an external file, and not under review or rejected (SARIF §3.35). */
function suppressed(result: SarifResult): boolean {
  if (!Array.isArray(result.suppressions)) return false;
  return result.suppressions.some((s) => s?.status === undefined || s.status === 'accepted');
}

/** A non-empty string of the log, or undefined (a log may hold anything where a string is due). */
function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() ? value : undefined;
}

/** A repository path from an artifact URI: `file://` and `./` dropped, percent-escapes decoded. */
function pathOf(uri: string | undefined): string | undefined {
  if (typeof uri !== 'string' || !uri.trim()) return undefined;
  let path = uri.trim().replace(/^file:\/\//, '');
  try {
    path = decodeURIComponent(path);
  } catch {
    // kept as written
  }
  // `file:///C:/code/x.c` names `C:/code/x.c`.
  return path.replace(/^\/(?=[A-Za-z]:\/)/, '').replace(/^(\.\/)+/, '');
}

/**
 * Where a run's tool ran, as absolute paths: its invocations' working directories and its absolute
 * `originalUriBaseIds` (ShiftLeft scan writes `file:///home/<user>/<checkout>/dojo/forms.py`), longest first.
 */
function sourceRoots(run: SarifRun): string[] {
  const uris = [
    ...(Array.isArray(run.invocations) ? run.invocations.map((i) => i?.workingDirectory?.uri) : []),
    ...(run.originalUriBaseIds && typeof run.originalUriBaseIds === 'object'
      ? Object.values(run.originalUriBaseIds).map((base) => base?.uri)
      : []),
  ];
  const roots = uris
    .map((uri) => pathOf(text(uri))?.replace(/\/+$/, ''))
    .filter((root): root is string => !!root && (root.startsWith('/') || /^[A-Za-z]:\//.test(root)));
  return [...new Set(roots)].sort((a, b) => b.length - a.length);
}

/** A file under the directory the tool ran in, named from there as the repository (and Semgrep) name it. */
function underRoot(path: string | undefined, roots: string[]): string | undefined {
  const root = path ? roots.find((r) => path.startsWith(`${r}/`)) : undefined;
  return root && path ? path.slice(root.length + 1) : path;
}

const CWE_TAG = /^(?:external\/cwe\/)?cwe[-_: ]0*(\d+)/i;
/** A rule whose help is MITRE's page of one CWE is of that CWE (ShiftLeft scan's `helpUri`). */
const CWE_PAGE = /^https?:\/\/cwe\.mitre\.org\/data\/definitions\/(\d+)\.html$/i;

/**
 * The CWE ids a rule names: in its tags (`CWE-89: ...`, CodeQL's `external/cwe/cwe-089`, `cwe:89`), in a
 * `cwe` property (a tag, or a bare number as Contrast Scan writes it), as CWE taxa, or by its help page.
 */
function cwesOf(rule: SarifRule | undefined, result: SarifResult): string[] {
  const ids = new Set<string>();
  for (const tag of [
    ...strings(rule?.properties?.tags),
    ...strings(result.properties?.tags),
    ...cweProperty(rule?.properties?.cwe),
    ...cweProperty(result.properties?.cwe),
  ]) {
    const match = CWE_TAG.exec(tag.trim());
    if (match) ids.add(`CWE-${match[1]}`);
  }
  const page = CWE_PAGE.exec(text(rule?.helpUri)?.trim() ?? '');
  if (page) ids.add(`CWE-${page[1]}`);
  for (const relation of Array.isArray(rule?.relationships) ? rule.relationships : []) {
    const target = relation?.target;
    if (String(target?.toolComponent?.name ?? '').toUpperCase() !== 'CWE') continue;
    const id = cweId(String(target?.id ?? '').replace(/^(\d+)$/, 'CWE-$1'));
    if (/^CWE-\d+$/.test(id)) ids.add(id);
  }
  return [...ids].sort();
}

/**
 * Tags code scanners give their code-quality rules (CodeQL's and LGTM's, SpotBugs' categories): a rule tagged
 * only with these, and not `security`, finds no weakness an attacker uses, even when it names a CWE (CodeQL
 * tags an unused expression CWE-561).
 */
const QUALITY_TAGS = new Set([
  'maintainability',
  'reliability',
  'correctness',
  'readability',
  'useless-code',
  'efficiency',
  'performance',
  'style',
  'bad_practice',
  'i18n',
  'mt_correctness',
  'experimental',
  'complexity',
  'modularity',
  'convention',
  'language-features',
  'types',
  'documentation',
  'naming',
  'testability',
  'concurrency',
]);

/** Whether a result is of a code-quality rule: quality tags and no `security` tag. */
function isQualityRule(rule: SarifRule | undefined, result: SarifResult): boolean {
  const tags = [...strings(rule?.properties?.tags), ...strings(result.properties?.tags)].map((t) =>
    t.trim().toLowerCase(),
  );
  return !tags.includes('security') && tags.some((t) => QUALITY_TAGS.has(t));
}

/**
 * The rule of a result that names none by id or index, by the rule id its message begins with (Gitleaks 7:
 * `AWS Access Key secret detected` for the rule `AWS Access Key`); the longest such id.
 */
function ruleOfMessage(rules: Map<string, SarifRule>, message: string | undefined): string | undefined {
  if (!message) return undefined;
  let found: string | undefined;
  for (const id of rules.keys())
    if (message.startsWith(`${id} `) && (found === undefined || id.length > found.length)) found = id;
  return found;
}

/** A `cwe` property's ids as tags: `CWE-89`, or a bare number (`89`, `"89"`) naming a CWE. */
function cweProperty(value: unknown): string[] {
  const items = Array.isArray(value) ? value : [value];
  return items.flatMap((v) => {
    if (typeof v === 'number' && Number.isInteger(v) && v > 0) return [`CWE-${v}`];
    if (typeof v === 'string') return [/^\s*\d+\s*$/.test(v) ? `CWE-${v.trim()}` : v];
    return [];
  });
}

/**
 * The tool's own severity word for a result, from its properties or its rule's, else a tag that is one in
 * capitals (gosec tags each rule `["security", "MEDIUM"]` and writes MEDIUM as level `error`); undefined if
 * none.
 */
function toolSeverity(rule: SarifRule | undefined, result: SarifResult): string | undefined {
  for (const props of [result.properties, rule?.properties]) {
    for (const value of [props?.issue_severity, props?.severity]) {
      const word = text(value)?.trim().toUpperCase();
      if (word && TOOL_SEVERITY[word]) return TOOL_SEVERITY[word];
    }
  }
  const tag = [...strings(result.properties?.tags), ...strings(rule?.properties?.tags)].find((t) =>
    Object.hasOwn(TOOL_SEVERITY, t.trim()),
  );
  return tag ? TOOL_SEVERITY[tag.trim()] : undefined;
}

function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** CodeQL's `security-severity`: a CVSS-like score, 0 to 10, written as a string. */
function securitySeverity(value: unknown): number | undefined {
  const score = typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : NaN;
  return Number.isFinite(score) && score >= 0 && score <= 10 ? score : undefined;
}

/** GitHub code scanning's bands for a security-severity score. */
function scoreSeverity(score: number): string {
  if (score >= 9) return 'CRITICAL';
  if (score >= 7) return 'HIGH';
  if (score >= 4) return 'MEDIUM';
  return 'LOW';
}
