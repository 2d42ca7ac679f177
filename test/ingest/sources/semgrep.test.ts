// The semgrep normalizer on every real Semgrep output: old and new shapes, cwe as string, list or absent.
import { describe, expect, it } from 'vitest';
import { createSemgrepSource } from '../../../src/ingest/sources/semgrep.js';
import { normalize, readReal, rejection } from '../../helpers/normalize.js';

const semgrep = createSemgrepSource();
const REPO = 'github.com/acme/shop';
const q = { repo: REPO };

describe('semgrep', () => {
  it('needs ?repo=, naming the parameter', () => {
    expect(rejection(semgrep, readReal('semgrep/defectdojo-issue_8435.json'))).toEqual([
      { pointer: '/query/repo', value: null, detail: 'required' },
    ]);
    expect(
      rejection(semgrep, readReal('semgrep/defectdojo-issue_8435.json'), { repo: '  ' })[0].pointer,
    ).toBe('/query/repo');
  });

  it('makes each finding a Weakness affecting the repository, complete for that repository', () => {
    const out = normalize(semgrep, readReal('semgrep/defectdojo-many_vulns.json'), q);
    expect(out.names('Repository')).toEqual([REPO]);
    expect(out.names('Weakness')).toHaveLength(48);
    expect(out.edges.filter((e) => e.endsWith(`-> ${REPO}`))).toHaveLength(48);
    expect(out.scope).toBe(`repo:${REPO}`);
    const first = out.node(
      'Weakness',
      `${REPO}:tasks.py:186:python.lang.correctness.tempfile.flush.tempfile-without-flush`,
    );
    expect(first.properties).toMatchObject({
      rule_id: 'python.lang.correctness.tempfile.flush.tempfile-without-flush',
      severity: 'HIGH',
      scanner_severity: 'ERROR',
      path: 'tasks.py',
      line: 186,
      location: 'tasks.py:186',
      repo: REPO,
    });
    // Its rule metadata is empty: no CWE, no OWASP.
    expect(first.properties).not.toHaveProperty('cwe');
    const withCwe = out.nodes.filter((n) => Array.isArray(n.properties?.cwe));
    expect(withCwe).toHaveLength(44);
    expect(withCwe.every((n) => (n.properties!.cwe as string[]).every((c) => /^CWE-\d+$/.test(c)))).toBe(
      true,
    );
  });

  it('reads cwe and owasp given as lists (semgrep 0.96 and 1.30)', () => {
    const old = normalize(semgrep, readReal('semgrep/defectdojo-cwe_list.json'), q);
    const [weakness] = old.nodes.filter((n) => n.label === 'Weakness');
    expect(weakness.properties).toMatchObject({
      cwe: ['CWE-352'],
      cwe_titles: ['CWE-352: Cross-Site Request Forgery (CSRF)'],
      owasp: ['A01:2021 - Broken Access Control', 'A05:2017 - Broken Access Control'],
    });
    const v130 = normalize(semgrep, readReal('semgrep/defectdojo-semgrep_version_1_30_0_line_26.json'), q);
    expect(v130.names('Weakness')).toHaveLength(5);
    expect(v130.nodes.find((n) => n.label === 'Weakness')!.properties).toMatchObject({
      cwe: ['CWE-79'],
      confidence: 'MEDIUM',
      severity: 'MEDIUM',
      scanner_severity: 'WARNING',
    });
    expect(v130.node('Repository', REPO).properties).toMatchObject({ scanner_version: '1.30.0' });
  });

  it('reads cwe given as a string', () => {
    const report = readReal('semgrep/defectdojo-issue_8435.json') as Record<string, any>;
    report.results[0].extra.metadata.cwe = 'CWE-798: Use of Hard-coded Credentials';
    const out = normalize(semgrep, report, q);
    expect(out.nodes.find((n) => n.label === 'Weakness')!.properties?.cwe).toEqual(['CWE-798']);
  });

  it('reads the newer shape with LOW severity and no cwe at all (semgrep 1.84)', () => {
    const out = normalize(semgrep, readReal('semgrep/defectdojo-high-medium-low-severities.json'), q);
    const weaknesses = out.nodes.filter((n) => n.label === 'Weakness');
    expect(weaknesses).toHaveLength(3);
    expect(weaknesses.every((n) => n.properties?.severity === 'LOW' && n.properties.cwe === undefined)).toBe(
      true,
    );
  });

  it('never stores the matched lines (they can hold the secret a rule found)', () => {
    const report = readReal('semgrep/defectdojo-issue_8435.json') as Record<string, any>;
    const out = normalize(semgrep, report, q);
    expect(report.results[0].extra.lines).toBeDefined();
    expect(JSON.stringify(out.envelopes)).not.toContain(report.results[0].extra.lines.slice(0, 40));
  });

  it('skips nosemgrep-ignored findings, and takes a scan Semgrep says failed as partial', () => {
    const report = readReal('semgrep/defectdojo-semgrep_version_1_30_0_line_26.json') as Record<string, any>;
    report.results[0].extra.is_ignored = true;
    report.errors = [{ level: 'error', type: 'Fatal error', message: 'rule parse failure' }];
    const out = normalize(semgrep, report, q);
    expect(out.names('Weakness')).toHaveLength(4);
    expect(out.scope).toBeUndefined();
    expect(out.warnings.join('\n')).toMatch(/1 finding.*is_ignored[\s\S]*partial/);
  });

  it('refuses results without a path or line, naming the pointer', () => {
    const report = readReal('semgrep/defectdojo-issue_8435.json') as Record<string, any>;
    delete report.results[0].start;
    expect(rejection(semgrep, report, q)[0].pointer).toBe('/results/0/start');
    expect(rejection(semgrep, { results: 'none' }, q)[0].pointer).toBe('/results');
  });
});
