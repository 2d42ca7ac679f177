// Which source a report on disk belongs to, by its shape (pathgate ingestreal, gate -local, the gate).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { decodeReportFile, isBinaryFile, readReport, recognizeReport } from '../../src/ingest/recognize.js';
import { readReal, REAL } from '../helpers/normalize.js';

it('recognises every kind of report by its shape', () => {
  expect(recognizeReport(readReal('trivy/alpine-310-registry.json'))).toBe('trivy');
  // `trivy k8s --format json`, each shape Trivy has written; a clean scan is `ClusterName` alone.
  expect(recognizeReport({ ClusterName: 'kind-kind', Resources: [] })).toBe('trivy');
  expect(recognizeReport({ ClusterName: 'kind-kind', Findings: null })).toBe('trivy');
  expect(recognizeReport({ ClusterName: 'eks', Vulnerabilities: [], Misconfigurations: [] })).toBe('trivy');
  expect(recognizeReport({ ClusterName: 'docker-desktop' })).toBe('trivy');
  expect(recognizeReport({ ClusterName: 'eks', clusters: [] })).toBeUndefined();
  expect(recognizeReport(readReal('semgrep/defectdojo-issue_8435.json'))).toBe('semgrep');
  expect(recognizeReport(readReal('sbom/trivy-centos-7.cdx.json'))).toBe('supplychain');
  expect(
    recognizeReport(readReal('sbom/provenance/slsa-github-generator-container-v2.1.0.dsse-envelope.json')),
  ).toBe('supplychain');
  expect(recognizeReport({ image: 'a:1', repository: 'github.com/a/b' })).toBe('build');
  expect(recognizeReport({ provider: 'aws', account_id: '111122223333', policies: [] })).toBe('custodian');
  expect(recognizeReport({ provider: 'okta', users: [] })).toBe('sso');
  expect(recognizeReport({ source: 'macie', records: [] })).toBe('dataclass');
  expect(recognizeReport({ security_groups: [], instances: [] })).toBe('cloudnet');
  expect(recognizeReport({ SecurityGroups: [] })).toBe('cloudnet');
  // `aws ec2 describe-instances` / `describe-network-interfaces` as printed: instances cloudnet reads.
  expect(recognizeReport({ Reservations: [] })).toBe('cloudnet');
  expect(recognizeReport({ NetworkInterfaces: [] })).toBe('cloudnet');
  // An SPDX SBOM goes to the supply-chain source, which refuses it by name; Cloud Build provenance is read.
  expect(recognizeReport({ spdxVersion: 'SPDX-2.3', packages: [] })).toBe('supplychain');
  expect(recognizeReport({ image_summary: {}, provenance_summary: { provenance: [] } })).toBe('supplychain');
  // Twins: subnets alone are no instance; a provenance summary without its list is nothing.
  expect(recognizeReport({ Subnets: [] })).toBeUndefined();
  expect(recognizeReport({ provenance_summary: {} })).toBeUndefined();
  expect(recognizeReport({ source: 's', kind: 'asset', observed_at: 'x', nodes: [], edges: [] })).toBe(
    'events',
  );
  expect(recognizeReport({ hello: 'world' })).toBeUndefined();
  expect(recognizeReport([])).toBeUndefined();
});

it('recognises Kubernetes dumps and Falco alerts, and reads YAML and NDJSON by content', () => {
  const text = (relative: string) => readFileSync(path.join(REAL, relative), 'utf8');
  expect(recognizeReport(readReal('k8s/popeye-combined-list.json'))).toBe('k8s');
  expect(recognizeReport(readReal('k8s/kubehound-test-cluster/nodes.json'))).toBe('k8s');
  const yaml = readReport(text('k8s/kubehound-attacks/CE_NSENTER.yaml'));
  expect(yaml.format).toBe('yaml');
  expect(recognizeReport(yaml.body)).toBe('k8s');
  const ndjson = readReport(text('falco/falco-website-syscall-alerts.ndjson'));
  expect(ndjson.format).toBe('ndjson');
  expect(recognizeReport(ndjson.body)).toBe('falco');
  expect(recognizeReport((ndjson.body as unknown[])[0])).toBe('falco');
  // Twins: YAML that is not a Kubernetes object, an array that is not alerts, a broken file.
  expect(recognizeReport(readReport('hello: world\n').body)).toBeUndefined();
  expect(recognizeReport([{ rule: 'x' }])).toBeUndefined();
  expect(recognizeReport({ kind: 'Pod', metadata: {} })).toBeUndefined();
  expect(() => readReport('{ nope')).toThrow(/not JSON, NDJSON or YAML/);
});

it('reads a report file written as UTF-16 (Windows PowerShell `>`) or with a UTF-8 byte-order mark', () => {
  const plan = '{"format_version":"0.2","planned_values":{"root_module":{}},"resource_changes":[]}';
  const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(plan, 'utf16le')]);
  const be = Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(plan, 'utf16le').swap16()]);
  const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(plan)]);
  for (const bytes of [le, be, bom]) {
    expect(decodeReportFile(bytes)).toBe(plan);
    expect(recognizeReport(readReport(decodeReportFile(bytes)).body)).toBe('terraform');
  }
  // Twin: plain UTF-8 is read as it is; UTF-16 read as UTF-8 is no report any source takes.
  expect(decodeReportFile(Buffer.from(plan))).toBe(plan);
  expect(recognizeReport(readReport(le.toString('utf8')).body)).toBeUndefined();
});

it('tells a binary file from a text report, UTF-16 with its byte-order mark included', () => {
  // The first bytes of a PNG (kubernetes/examples keeps a screenshot beside its manifests).
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d]);
  expect(isBinaryFile(png)).toBe(true);
  // Twins: UTF-16 holds NULs and is text; so is plain YAML, and a NUL past the sniffed start.
  expect(isBinaryFile(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('{}', 'utf16le')]))).toBe(false);
  expect(isBinaryFile(Buffer.from('kind: List\n'))).toBe(false);
  expect(isBinaryFile(Buffer.concat([Buffer.alloc(8000, 0x20), Buffer.from([0])]))).toBe(false);
});

it('recognises a Terraform state (terraform show -json of no plan) as it does a plan', () => {
  expect(recognizeReport({ format_version: '1.0', values: { root_module: { resources: [] } } })).toBe(
    'terraform',
  );
  expect(recognizeReport({ format_version: '0.1', values: { outputs: {}, root_module: {} } })).toBe(
    'terraform',
  );
  // Twins: a document with `values` but no module, or no format_version, is none (a Helm values file, a
  // raw .tfstate of `terraform state pull`, which has `resources` and no `values`).
  expect(recognizeReport({ format_version: '1.0', values: { replicaCount: 2 } })).toBeUndefined();
  expect(recognizeReport({ values: { root_module: {} } })).toBeUndefined();
  expect(recognizeReport({ version: 4, terraform_version: '1.3.9', resources: [] })).toBeUndefined();
});
