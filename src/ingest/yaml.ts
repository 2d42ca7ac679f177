// Bodies that are not one JSON document: multi-document YAML (what `kubectl get -o yaml` writes) as one
// Kubernetes `List` for the k8s source, and newline-delimited JSON (Falco's alert log) as an array. Both
// pass the body guard (src/ingest/body-guard.ts). YAML is bounded before it is expanded: nesting is
// checked on the parser's tokens (the composer recurses), and aliases are capped (billion laughs). Over
// HTTP, YAML is parsed on a worker thread (yaml-pool.ts): the `yaml` package reads about 1 MiB a second.
import { Composer, CST, LineCounter, Parser, type Document, type YAMLError } from 'yaml';
import { ProblemError } from '../http/problems.js';
import { guardBody, MAX_BODY_DEPTH } from './body-guard.js';
import { parseJsonBody } from './json-body.js';

export const YAML_CONTENT_TYPES = ['application/yaml', 'application/x-yaml', 'text/yaml', 'text/x-yaml'];

/**
 * How many alias expansions a YAML document may make, weighed as the `yaml` package does (each alias
 * resolved counts by the aliases it contains). Kubernetes dumps use none; a billion-laughs document
 * needs millions.
 */
export const YAML_MAX_ALIAS_COUNT = 100;

export interface KubernetesList {
  apiVersion: 'v1';
  kind: 'List';
  items: unknown[];
}

/**
 * Parses multi-document YAML into one List, document by document (the parsed form of one document is
 * dropped before the next is read, which bounds memory). Throws `nesting-too-deep`, `too-many-aliases`,
 * `malformed-yaml` or the body guard's problem, each naming the document and where in it.
 */
export function yamlToList(text: string): KubernetesList {
  const lines = new LineCounter();
  const at = (offset: number) => {
    const { line, col } = lines.linePos(offset);
    return `line ${line}, column ${col}`;
  };
  const items: unknown[] = [];
  let checked = 0;
  let composed = 0;
  const take = (document: Document.Parsed) => {
    const where = `document ${++composed}`;
    if (document.errors.length) {
      const error: YAMLError = document.errors[0];
      throw new ProblemError(
        'malformed-yaml',
        `request body is not valid YAML: ${where}, ${at(error.pos[0])}: ${error.message}`,
      );
    }
    let value: unknown;
    try {
      value = document.toJS({ maxAliasCount: YAML_MAX_ALIAS_COUNT });
    } catch (error) {
      // The `yaml` package's refusal of a resource exhaustion attack; anything else is ours to log.
      if (!(error instanceof ReferenceError)) throw error;
      throw new ProblemError(
        'too-many-aliases',
        `${where}: its aliases expand beyond the limit of ${YAML_MAX_ALIAS_COUNT} (a billion-laughs document); write the values out instead of using anchors`,
        { maxAliasCount: YAML_MAX_ALIAS_COUNT },
      );
    }
    if (value === null || value === undefined) return;
    guardBody(value, { base: `/items/${items.length}`, where });
    items.push(value);
  };
  // Warnings (a flow map used as a key, as in a Helm template's `{{ value }}`) would go to the process's
  // stderr through process.emitWarning: beside the service's JSON log lines, and in ingestreal's output.
  // The value is read as the package reads it either way; only errors matter here.
  const composer = new Composer({ logLevel: 'error' });
  for (const token of new Parser(lines.addNewLine).parse(text)) {
    if (token.type === 'document') {
      checked++;
      const deep = tooDeep(token);
      if (deep !== undefined) {
        throw new ProblemError(
          'nesting-too-deep',
          `request body is too deeply nested YAML: document ${checked}, ${at(deep)}: mappings and sequences nest deeper than ${MAX_BODY_DEPTH} levels; flatten the report`,
          { maxDepth: MAX_BODY_DEPTH },
        );
      }
    }
    for (const document of composer.next(token)) take(document);
  }
  for (const document of composer.end()) take(document);
  return { apiVersion: 'v1', kind: 'List', items };
}

/** The offset of the first collection item nested deeper than MAX_BODY_DEPTH in a CST document. */
function tooDeep(document: CST.Document): number | undefined {
  let found: number | undefined;
  // The visit recurses once per level, and stops descending at the limit.
  CST.visit(document, (item, path) => {
    if (path.length <= MAX_BODY_DEPTH) return undefined;
    found = item.value?.offset ?? item.key?.offset ?? item.start[0]?.offset ?? document.offset;
    return CST.visit.BREAK;
  });
  return found;
}

export const NDJSON_CONTENT_TYPES = ['application/x-ndjson', 'application/ndjson', 'application/jsonl'];

/** Newline-delimited JSON (Falco's alert log) as an array; a bad line is named by its number. */
export function ndjsonToArray(text: string): unknown[] {
  const out: unknown[] = [];
  let offset = 0;
  for (const [index, line] of text.split('\n').entries()) {
    const start = offset;
    offset += line.length + 1;
    if (!line.trim()) continue;
    out.push(
      parseJsonBody(line, {
        base: `/${out.length}`,
        where: `line ${index + 1}`,
        startLine: index + 1,
        startOffset: start,
      }),
    );
  }
  return out;
}
