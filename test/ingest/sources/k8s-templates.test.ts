// Unrendered Helm (Go) templates given as manifests: Kubernetes Goat's own charts (fixtures/unseen/k8s/
// kubernetes-goat-helm, SOURCES.md). A template either fails to parse as YAML, said as a template to render,
// or parses into maps where names are due (`name: {{ .Values.name }}`): those objects and binding subjects
// are skipped and said, never drawn as `[object Object]`. Each with a rendered twin that is read.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readReport } from '../../../src/ingest/recognize.js';
import { createK8sSource } from '../../../src/ingest/sources/k8s.js';
import { yamlToList } from '../../../src/ingest/yaml.js';
import { normalize } from '../../helpers/normalize.js';

const k8s = createK8sSource();
const chart = (file: string) =>
  readFileSync(new URL(`../../../fixtures/unseen/k8s/kubernetes-goat-helm/${file}`, import.meta.url), 'utf8');

describe('unrendered templates', () => {
  it("metadata-db's Service template: its templated name skips it, and says why", () => {
    const out = normalize(k8s, readReport(chart('metadata-db-service.yaml')).body);
    expect(out.nodes).toEqual([]);
    expect(out.warnings.join()).toContain('1 object(s) and 0 binding subject(s) whose name');
    expect(out.warnings.join()).toContain('helm template');
    expect(JSON.stringify(out.envelopes)).not.toContain('[object Object]');
  });

  it('twin: the same Service rendered is read', () => {
    const rendered = chart('metadata-db-service.yaml').replace(/\{\{[^}]*\}\}/g, 'metadata-db');
    const out = normalize(k8s, yamlToList(rendered));
    expect(out.names('LoadBalancer')).toEqual(['default/service/metadata-db']);
    expect(out.warnings).toEqual([]);
  });

  it("pwnchart's binding of `all-your-base` to a templated account: the role is read, the subject skipped", () => {
    const body = yamlToList(
      `${chart('pwnchart-clusterrole.yaml')}\n---\n${chart('pwnchart-clusterrolebinding.yaml')}`,
    );
    const out = normalize(k8s, body);
    expect(out.edges).toEqual(['CAN_ESCALATE_TO clusterrole/all-your-base -> cluster-admin']);
    expect(out.warnings.join()).toContain('0 object(s) and 1 binding subject(s)');
    expect(out.names('ServiceAccount')).toEqual([]);
  });

  it('a template YAML cannot parse is said to be one; twin: a broken YAML file with no template is not', () => {
    expect(() => readReport(chart('metadata-db-deployment.yaml'))).toThrow(
      /not JSON, NDJSON or YAML .*a Helm or Go template, render it first \(`helm template`\)/,
    );
    expect(() => readReport('a: [1, 2\nb: {c: d')).toThrow(/not JSON, NDJSON or YAML/);
    expect(() => readReport('a: [1, 2\nb: {c: d')).not.toThrow(/template/);
  });
});
