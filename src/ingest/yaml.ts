// Bodies that are not one JSON document: multi-document YAML (what `kubectl get -o yaml` writes) as one
// Kubernetes `List` for the k8s source, and newline-delimited JSON (Falco's alert log) as an array.
import { parseAllDocuments } from 'yaml';
import { ProblemError } from '../http/problems.js';

export const YAML_CONTENT_TYPES = ['application/yaml', 'application/x-yaml', 'text/yaml', 'text/x-yaml'];

export function yamlToList(text: string): { apiVersion: 'v1'; kind: 'List'; items: unknown[] } {
  const items: unknown[] = [];
  for (const [index, document] of parseAllDocuments(text).entries()) {
    if (document.errors.length) {
      const error = document.errors[0];
      throw new ProblemError(
        'malformed-yaml',
        `request body is not valid YAML: document ${index + 1}: ${error.message}`,
      );
    }
    const value = document.toJS();
    if (value === null || value === undefined) continue;
    items.push(value);
  }
  return { apiVersion: 'v1', kind: 'List', items };
}

export const NDJSON_CONTENT_TYPES = ['application/x-ndjson', 'application/ndjson', 'application/jsonl'];

/** Newline-delimited JSON (Falco's alert log) as an array; a bad line is named by its number. */
export function ndjsonToArray(text: string): unknown[] {
  const out: unknown[] = [];
  for (const [index, line] of text.split('\n').entries()) {
    if (!line.trim()) continue;
    try {
      out.push(JSON.parse(line));
    } catch (error) {
      throw new ProblemError('malformed-json', `line ${index + 1} is not JSON: ${(error as Error).message}`);
    }
  }
  return out;
}
