// `semgrep --json` outputs the semgrep source had not seen (fixtures/unseen/semgrep, provenance in
// fixtures/unseen/SOURCES.md): Semgrep 1.97 and 1.100 (dataflow traces, fingerprints, validation states),
// older outputs with fixes and metavariables, a result Semgrep printed twice, and a clean scan.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readReport, recognizeReport } from '../../../src/ingest/recognize.js';
import { createSemgrepSource } from '../../../src/ingest/sources/semgrep.js';
import { normalize } from '../../helpers/normalize.js';

const semgrep = createSemgrepSource();
const REPO = 'github.com/acme/app';
const report = (name: string): unknown => {
  const { body } = readReport(
    readFileSync(
      new URL(`../../../fixtures/unseen/semgrep/defectdojo-${name}.json`, import.meta.url),
      'utf8',
    ),
  );
  expect(recognizeReport(body)).toBe('semgrep');
  return body;
};
const TAINTED =
  'python.lang.security.audit.dangerous-subprocess-use-tainted-env-args.dangerous-subprocess-use-tainted-env-args';

describe('semgrep 1.x outputs', () => {
  it('1.97 with a dataflow trace: one command-injection weakness at brute.py:31, complete for the repository', () => {
    const out = normalize(semgrep, report('close_old_findings_report_line31'), { repo: REPO });
    const weakness = `${REPO}:sample/brute.py:31:${TAINTED}`;
    expect(out.edges).toEqual([`AFFECTS ${weakness} -> ${REPO}`]);
    expect(out.node('Weakness', weakness).properties).toMatchObject({
      cwe: ['CWE-78'],
      owasp: ['A01:2017 - Injection', 'A03:2021 - Injection'],
      severity: 'HIGH',
      scanner_severity: 'ERROR',
      confidence: 'MEDIUM',
      likelihood: 'MEDIUM',
      impact: 'MEDIUM',
      url: 'https://sg.run/pLGg',
      line: 31,
      end_line: 31,
    });
    expect(out.node('Repository', REPO).properties).toMatchObject({ scanner_version: '1.97.0' });
    expect(out.scope).toBe(`repo:${REPO}`);
    expect(out.warnings).toEqual([]);
  });

  it('1.100: an OS command injection (ERROR) and an SQL injection (WARNING), each with its CWE', () => {
    const out = normalize(semgrep, report('fingerprint_test'), { repo: REPO });
    const sql = `${REPO}:sample/function.go:37:go.lang.security.audit.database.string-formatted-query.string-formatted-query`;
    expect(out.names('Weakness')).toEqual([`${REPO}:sample/brute.py:31:${TAINTED}`, sql]);
    expect(out.node('Weakness', sql).properties).toMatchObject({ cwe: ['CWE-89'], severity: 'MEDIUM' });
  });
});

describe('older outputs', () => {
  it('three CBC padding-oracle findings, WARNING and INFO on Semgrep’s scale as MEDIUM and LOW', () => {
    const out = normalize(semgrep, report('many_findings'), { repo: REPO });
    const rule = 'java.lang.security.audit.cbc-padding-oracle.cbc-padding-oracle';
    const at = (file: string, line: number) =>
      `${REPO}:src/main/java/org/owasp/benchmark/testcode/${file}:${line}:${rule}`;
    expect(out.names('Weakness')).toHaveLength(3);
    expect(out.node('Weakness', at('BenchmarkTest02194.java', 64)).properties).toMatchObject({
      severity: 'MEDIUM',
      cwe: ['CWE-696'],
    });
    expect(out.node('Weakness', at('BenchmarkTest01150.java', 66)).properties).toMatchObject({
      severity: 'LOW',
    });
  });

  it('a result Semgrep printed twice is one weakness, one edge', () => {
    const out = normalize(semgrep, report('repeated_findings'), { repo: REPO });
    expect(out.names('Weakness')).toHaveLength(1);
    expect(out.edges).toHaveLength(1);
  });

  it('a clean scan is the repository alone, complete: what an earlier scan found is retracted', () => {
    const out = normalize(semgrep, report('empty'), { repo: REPO });
    expect(out.nodes.map((n) => `${n.label} ${n.name}`)).toEqual([`Repository ${REPO}`]);
    expect(out.scope).toBe(`repo:${REPO}`);
  });
});
