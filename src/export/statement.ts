// What an export's signature states (issue 31): the export's context as well as its body's digest, so a
// signature holds for one export only. Version 2, one `key=value` line each, in this order:
//   pathgate-export/v2
//   tenant=<tenant>
//   kind=paths | assessment-results | graph
//   format=ndjson | oscal-json | graphology-json
//   scope=all | applications:<app>,<app>   (the caller's applications, sorted, each URI-encoded)
//   state=open | all | current             (which paths: open ones, or resolved ones too; a graph: as it is now)
//   time=<ISO 8601 of the export>
//   sha256=<lowercase hex SHA-256 of the body>
export const STATEMENT_VERSION = 'pathgate-export/v2';

export interface ExportContext {
  tenant: string;
  kind: 'paths' | 'assessment-results' | 'graph';
  format: 'ndjson' | 'oscal-json' | 'graphology-json';
  /** `all`, or `applications:<a>,<b>` for a credential bound to applications */
  scope: string;
  /** which paths (`open`, `all`); a graph export is of the graph as it is (`current`) */
  state: 'open' | 'all' | 'current';
  /** ISO 8601 */
  time: string;
}

export interface ExportStatement extends ExportContext {
  sha256: string;
}

/** What the verifier expects; a field left out is not checked. */
export type ExpectedContext = Partial<Pick<ExportContext, 'tenant' | 'kind' | 'format' | 'scope' | 'state'>>;

const FIELDS = ['tenant', 'kind', 'format', 'scope', 'state', 'time', 'sha256'] as const;

/** A credential's scope as the statement names it. */
export function scopeOf(apps: readonly string[] | undefined): string {
  return apps ? `applications:${[...apps].sort().map(encodeURIComponent).join(',')}` : 'all';
}

export function statementText(statement: ExportStatement): string {
  for (const field of FIELDS)
    if (/[\n\r=]/.test(statement[field]))
      throw new Error(`export statement: ${field} holds a line break or '='`);
  return [STATEMENT_VERSION, ...FIELDS.map((field) => `${field}=${statement[field]}`)].join('\n');
}

/** The statement, or why it is not one (version first: a newer format is named, not misread). */
export function parseStatement(text: string): ExportStatement | string {
  const [version, ...lines] = text.split('\n');
  if (version !== STATEMENT_VERSION)
    return `the signed statement is ${JSON.stringify(version.slice(0, 40))}, not ${STATEMENT_VERSION}`;
  const fields = new Map<string, string>();
  for (const line of lines) {
    const at = line.indexOf('=');
    if (at > 0) fields.set(line.slice(0, at), line.slice(at + 1));
  }
  const missing = FIELDS.filter((field) => !fields.has(field));
  if (missing.length) return `the signed statement lacks ${missing.join(', ')}`;
  return Object.fromEntries(FIELDS.map((field) => [field, fields.get(field)!])) as unknown as ExportStatement;
}

/** The first field whose value is not the expected one. */
export function checkExpected(
  statement: ExportStatement,
  expected: ExpectedContext,
): { field: string; reason: string } | undefined {
  for (const field of ['tenant', 'kind', 'format', 'scope', 'state'] as const) {
    const want = expected[field];
    if (want !== undefined && statement[field] !== want)
      return {
        field,
        reason: `${field}: the export is signed for ${field} ${JSON.stringify(statement[field])}, not ${JSON.stringify(want)}`,
      };
  }
  return undefined;
}

/**
 * What the service's own file name for an export says (`pathgate-<tenant>-paths.ndjson`,
 * `pathgate-<tenant>-assessment-results.json`, `pathgate-<tenant>-graph-<Label>-<16 hex>.json` or
 * `pathgate-<tenant>-graph-ap-<16 hex>.json`): checked too, so a file saved under another tenant's name is
 * refused even without -tenant.
 */
export function expectedFromFileName(name: string): ExpectedContext {
  const graph = /^pathgate-(.+)-graph-(?:[A-Za-z_]+|ap)-[0-9a-f]{16}\.json$/.exec(name);
  if (graph) return { tenant: graph[1], kind: 'graph', format: 'graphology-json' };
  const match = /^pathgate-(.+)-(paths\.ndjson|assessment-results\.json)$/.exec(name);
  if (!match) return {};
  return match[2] === 'paths.ndjson'
    ? { tenant: match[1], kind: 'paths', format: 'ndjson' }
    : { tenant: match[1], kind: 'assessment-results', format: 'oscal-json' };
}
