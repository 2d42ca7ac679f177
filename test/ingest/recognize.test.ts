// Which source a report on disk belongs to, by its shape (pathgate ingestreal, gate -local, the gate).
import { expect, it } from 'vitest';
import { recognizeReport } from '../../src/ingest/recognize.js';
import { readReal } from '../helpers/normalize.js';

it('recognises every kind of report by its shape', () => {
  expect(recognizeReport(readReal('trivy/alpine-310-registry.json'))).toBe('trivy');
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
  expect(recognizeReport({ source: 's', kind: 'asset', observed_at: 'x', nodes: [], edges: [] })).toBe(
    'events',
  );
  expect(recognizeReport({ hello: 'world' })).toBeUndefined();
  expect(recognizeReport([])).toBeUndefined();
});
