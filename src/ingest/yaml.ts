// Multi-document YAML (what `kubectl get -o yaml` writes and what users keep in repositories) as one
// Kubernetes `List` of its documents, for the k8s source. Empty documents are skipped.
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
