// Source `sarif` (src/ingest/sources/sarif.ts): a code scanner's SARIF 2.1.0 log read as the semgrep source
// reads its JSON. Each rule with a minimal log and a twin that must not fire, then real logs of CodeQL,
// Semgrep, SpotBugs, Flawfinder, Gitleaks and Grype (fixtures/unseen/sarif, SOURCES.md) as they are.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createSarifSource } from '../../../src/ingest/sources/sarif.js';
import { priceWeakness } from '../../../src/model/code-weakness.js';
import { normalize, rejection } from '../../helpers/normalize.js';

const sarif = createSarifSource();
const REPO = 'github.com/acme/shop';
const read = (body: unknown) => normalize(sarif, body, { repo: REPO });
const unseen = (file: string): unknown =>
  JSON.parse(readFileSync(new URL(`../../../fixtures/unseen/sarif/${file}`, import.meta.url), 'utf8'));

type Json = Record<string, unknown>;
const log = (tool: string, rules: Json[], results: Json[]) => ({
  $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
  version: '2.1.0',
  runs: [{ tool: { driver: { name: tool, rules } }, results }],
});
const at = (uri: string, startLine = 12) => [
  { physicalLocation: { artifactLocation: { uri, uriBaseId: '%SRCROOT%' }, region: { startLine } } },
];
const SQLI = {
  id: 'js/sql-injection',
  properties: { tags: ['security', 'external/cwe/cwe-089'], 'security-severity': '8.8' },
};
const UNUSED = {
  id: 'js/unused-local-variable',
  properties: { tags: ['maintainability', 'useless-code', 'external/cwe/cwe-561'] },
};
const result = (ruleId: string, extra: Json = {}) => ({
  ruleId,
  message: { text: 'found' },
  locations: at('src/db.js'),
  ...extra,
});

describe('sarif: code weaknesses', () => {
  it('a security rule result is a Weakness of the repository, with its CWEs and severity', () => {
    const out = read(log('CodeQL', [SQLI], [result('js/sql-injection')]));
    expect(out.edges).toEqual([`AFFECTS ${REPO}:src/db.js:12:js/sql-injection -> ${REPO}`]);
    expect(out.node('Weakness', `${REPO}:src/db.js:12:js/sql-injection`).properties).toMatchObject({
      rule_id: 'js/sql-injection',
      cwe: ['CWE-89'],
      severity: 'HIGH',
      security_severity: 8.8,
      path: 'src/db.js',
      line: 12,
      scanner: 'CodeQL',
    });
    expect(out.scope).toBe(`repo:${REPO}:CodeQL`);
  });

  it('twin: a code-quality rule is counted, not drawn, even with a CWE', () => {
    const out = read(log('CodeQL', [UNUSED], [result('js/unused-local-variable')]));
    expect(out.names('Weakness')).toEqual([]);
    expect(out.warnings.join()).toContain('1 result(s) of code-quality rules');
  });

  it('finds the rule by index, in an extension when the result names one (CodeQL query packs)', () => {
    const body = log(
      'CodeQL',
      [UNUSED],
      [{ ...result('x'), ruleId: undefined, rule: { index: 0, toolComponent: { index: 0 } } }],
    );
    (body.runs[0].tool as Json).extensions = [{ name: 'codeql/javascript-queries', rules: [SQLI] }];
    expect(read(body).node('Weakness', `${REPO}:src/db.js:12:js/sql-injection`).properties?.cwe).toEqual([
      'CWE-89',
    ]);
  });

  it('reads CWEs from tags, rule properties and CWE taxa; severity from the level without a score', () => {
    const rules = [
      { id: 'A', properties: { tags: ['CWE-79: Cross-site Scripting'] } },
      {
        id: 'B',
        relationships: [{ target: { id: '327', toolComponent: { name: 'CWE' } }, kinds: ['relevant'] }],
        defaultConfiguration: { level: 'error' },
      },
    ];
    const out = read(log('Flawfinder', rules, [result('A', { level: 'note' }), result('B')]));
    expect(out.node('Weakness', `${REPO}:src/db.js:12:A`).properties).toMatchObject({
      cwe: ['CWE-79'],
      severity: 'LOW',
    });
    expect(out.node('Weakness', `${REPO}:src/db.js:12:B`).properties).toMatchObject({
      cwe: ['CWE-327'],
      severity: 'HIGH',
    });
  });

  it('names a file under the directory the tool ran in (working directory, absolute base URI) from there', () => {
    const body = log(
      'Python Security Analysis',
      [SQLI],
      [
        result('js/sql-injection', { locations: at('file:///home/dev/shop/src/db.js', 3) }),
        result('js/sql-injection', { locations: at('file:///opt/build/lib/q.js', 4) }),
      ],
    );
    const run = body.runs[0] as Json;
    run.invocations = [{ workingDirectory: { uri: 'file:///home/dev/shop/' } }];
    run.originalUriBaseIds = { SRC: { uri: 'file:///opt/build' } };
    expect(read(body).names('Weakness').sort()).toEqual([
      `${REPO}:lib/q.js:4:js/sql-injection`,
      `${REPO}:src/db.js:3:js/sql-injection`,
    ]);
  });

  it('twin: a file outside it, or beside it under a longer name, keeps its path as written', () => {
    const body = log(
      'Python Security Analysis',
      [SQLI],
      [
        result('js/sql-injection', { locations: at('file:///home/dev/shop2/src/db.js', 3) }),
        result('js/sql-injection', { locations: at('file:///etc/app/db.js', 4) }),
      ],
    );
    (body.runs[0] as Json).invocations = [{ workingDirectory: { uri: 'file:///home/dev/shop' } }];
    expect(read(body).names('Weakness').sort()).toEqual([
      `${REPO}:/etc/app/db.js:4:js/sql-injection`,
      `${REPO}:/home/dev/shop2/src/db.js:3:js/sql-injection`,
    ]);
  });

  it('reads a `cwe` property written as a bare number (Contrast Scan), `cwe:89` tags, and MITRE help pages', () => {
    const rules = [
      { id: 'A' },
      { id: 'B', properties: { tags: ['security', 'cwe:89'] } },
      { id: 'C', helpUri: 'https://cwe.mitre.org/data/definitions/91.html' },
    ];
    const out = read(
      log('Scanner', rules, [
        result('A', { properties: { cwe: 89 } }),
        result('B'),
        result('C'),
        result('A', { locations: at('src/q.js'), properties: { cwe: ['78', 'CWE-77'] } }),
      ]),
    );
    const cwe = (rule: string, file = 'src/db.js') =>
      out.node('Weakness', `${REPO}:${file}:12:${rule}`).properties?.cwe;
    expect([cwe('A'), cwe('B'), cwe('C'), cwe('A', 'src/q.js')]).toEqual([
      ['CWE-89'],
      ['CWE-89'],
      ['CWE-91'],
      ['CWE-77', 'CWE-78'],
    ]);
  });

  it('twin: a null `cwe`, the bare tag `cwe` (Semgrep 0.17), `cwe2021-top25` and a help page that is no CWE name none', () => {
    const rules = [
      { id: 'A', properties: { tags: ['cwe', 'owasp', 'cwe2021-top25'] } },
      { id: 'B', helpUri: 'https://cwe.mitre.org/data/index.html' },
    ];
    const out = read(log('Scanner', rules, [result('A', { properties: { cwe: null } }), result('B')]));
    expect(out.nodes.filter((n) => n.label === 'Weakness').map((n) => n.properties?.cwe)).toEqual([
      undefined,
      undefined,
    ]);
  });

  it("the tool's own severity word (`severity`, `issue_severity`) before the level, after a score", () => {
    const rules = [{ id: 'A', defaultConfiguration: { level: 'error' } }];
    const out = read(
      log('Scanner', rules, [
        result('A', { properties: { severity: 'CRITICAL' } }),
        result('A', { locations: at('src/b.js'), properties: { issue_severity: 'low' } }),
        result('A', {
          locations: at('src/c.js'),
          properties: { severity: 'LOW', 'security-severity': '9.1' },
        }),
      ]),
    );
    const severity = (file: string) => out.node('Weakness', `${REPO}:${file}:12:A`).properties?.severity;
    expect([severity('src/db.js'), severity('src/b.js'), severity('src/c.js')]).toEqual([
      'CRITICAL',
      'LOW',
      'CRITICAL',
    ]);
  });

  it('a rule tagged with a severity word in capitals (gosec) says its severity over its level', () => {
    const rules = [
      { id: 'G201', properties: { tags: ['security', 'MEDIUM'] }, defaultConfiguration: { level: 'error' } },
    ];
    const out = read(log('gosec', rules, [result('G201', { level: 'error' })]));
    expect(out.node('Weakness', `${REPO}:src/db.js:12:G201`).properties?.severity).toBe('MEDIUM');
  });

  it('twin: tags that only mention a word (`HIGH CONFIDENCE`, `high`) leave the level to say', () => {
    const rules = [{ id: 'A', properties: { tags: ['security', 'LOW CONFIDENCE', 'low'] } }];
    const out = read(log('Semgrep OSS', rules, [result('A', { level: 'error' })]));
    expect(out.node('Weakness', `${REPO}:src/db.js:12:A`).properties?.severity).toBe('HIGH');
  });

  it("twin: a severity word off the scale (SonarQube's MAJOR) leaves the level to say", () => {
    const out = read(
      log('Scanner', [{ id: 'A' }], [result('A', { level: 'note', properties: { severity: 'MAJOR' } })]),
    );
    expect(out.node('Weakness', `${REPO}:src/db.js:12:A`).properties?.severity).toBe('LOW');
  });

  it('a result whose level neither it nor its rule states is a warning (SARIF §3.27.10): MEDIUM', () => {
    const out = read(log('nodejsscan', [{ id: 'A' }], [result('A')]));
    expect(out.node('Weakness', `${REPO}:src/db.js:12:A`).properties).toMatchObject({
      severity: 'MEDIUM',
      scanner_severity: 'warning',
    });
  });

  it("twin: the rule's default level still comes before the default warning", () => {
    const rules = [{ id: 'A', defaultConfiguration: { level: 'note' } }];
    const out = read(log('nodejsscan', rules, [result('A')]));
    expect(out.node('Weakness', `${REPO}:src/db.js:12:A`).properties?.severity).toBe('LOW');
  });

  it('names files as the repository does: `file://`, `./` and percent-escapes dropped', () => {
    const out = read(
      log(
        'CodeQL',
        [SQLI],
        [
          result('js/sql-injection', { locations: at('file:///C:/src/a%20b.js', 3) }),
          result('js/sql-injection', { locations: at('./lib/db.js', 4) }),
        ],
      ),
    );
    expect(out.names('Weakness').sort()).toEqual([
      `${REPO}:C:/src/a b.js:3:js/sql-injection`,
      `${REPO}:lib/db.js:4:js/sql-injection`,
    ]);
  });
});

describe('sarif: what is no finding', () => {
  it('suppressed (accepted, or with no status), fixed, or not a failure: skipped and counted', () => {
    const out = read(
      log(
        'CodeQL',
        [SQLI],
        [
          result('js/sql-injection', { suppressions: [{ kind: 'inSource' }] }),
          result('js/sql-injection', { suppressions: [{ kind: 'external', status: 'accepted' }] }),
          result('js/sql-injection', { baselineState: 'absent' }),
          result('js/sql-injection', { kind: 'pass' }),
        ],
      ),
    );
    expect(out.names('Weakness')).toEqual([]);
    expect(out.warnings.join()).toContain('4 suppressed or fixed result(s) skipped');
  });

  it('twin: a suppression under review or rejected, and a result to review, are findings', () => {
    const out = read(
      log(
        'CodeQL',
        [SQLI],
        [
          result('js/sql-injection', { suppressions: [{ kind: 'external', status: 'underReview' }] }),
          result('js/sql-injection', {
            suppressions: [{ kind: 'external', status: 'rejected' }],
            locations: at('src/db.js', 13),
          }),
          result('js/sql-injection', { kind: 'review', locations: at('src/db.js', 14) }),
        ],
      ),
    );
    expect(out.names('Weakness')).toHaveLength(3);
  });

  it('a result naming no file (an image check, the repository as a whole) is said, not placed', () => {
    const out = read(log('Dockle', [{ id: 'CIS-DI-0010' }], [{ ruleId: 'CIS-DI-0010', level: 'error' }]));
    expect(out.names('Weakness')).toEqual([]);
    expect(out.warnings.join()).toContain('1 result(s) naming no rule or no file');
  });
});

describe('sarif: a log with anything where strings and lists are due', () => {
  it('reads what it can and never fails on a field of the wrong type', () => {
    const rules = [{ id: 'A', relationships: { not: 'a list' }, properties: { tags: 7 } }];
    const out = read(
      log('CodeScanner', rules, [
        {
          ruleId: 'A',
          message: { text: 42 },
          level: ['error'],
          suppressions: { kind: 'inSource' },
          locations: [{ physicalLocation: { artifactLocation: { uri: 'a.c' }, region: { startLine: '9' } } }],
        },
        { ruleId: 7, message: { text: 9 }, locations: 'a.c' },
      ]),
    );
    expect(out.names('Weakness')).toEqual([`${REPO}:a.c:A`]);
    expect(out.node('Weakness', `${REPO}:a.c:A`).properties).not.toHaveProperty('message');
    expect(out.warnings.join()).toContain('1 result(s) naming no rule or no file');
  });
});

describe('sarif: secrets and vulnerability scans', () => {
  it("a secret scanner's results are Secret nodes, named as Trivy names a repository's, never the secret", () => {
    const secret = 'AKIA' + 'Z'.repeat(16);
    const out = read(
      log(
        'gitleaks',
        [{ id: 'aws-access-token' }],
        [result('aws-access-token', { properties: { offender: secret, commit: 'abc' } })],
      ),
    );
    expect(out.edges).toEqual([`AFFECTS ${REPO}:src/db.js:12:aws-access-token -> ${REPO}`]);
    expect(out.names('Weakness')).toEqual([]);
    expect(JSON.stringify(out.envelopes)).not.toContain(secret);
  });

  it('twin: the same result from a code scanner is a weakness, not a secret', () => {
    const out = read(log('CodeQL', [SQLI], [result('js/sql-injection')]));
    expect(out.names('Secret')).toEqual([]);
  });

  it("a vulnerability scanner's SARIF is refused by name, pointing at the JSON the engine reads", () => {
    const errors = rejection(sarif, log('Trivy', [], [result('CVE-2021-44228')]), { repo: REPO });
    expect(errors).toEqual([
      expect.objectContaining({ pointer: '/runs/0/tool/driver/name', value: 'Trivy' }),
    ]);
    expect(errors[0].detail).toContain('/ingest/trivy');
  });

  it('Snyk Open Source (`snyk test --sarif`) is a vulnerability scan too: refused by name', () => {
    const errors = rejection(sarif, log('Snyk Open Source', [], [result('SNYK-JS-ADMZIP-1065796')]), {
      repo: REPO,
    });
    expect(errors).toEqual([
      expect.objectContaining({ pointer: '/runs/0/tool/driver/name', value: 'Snyk Open Source' }),
    ]);
  });

  it("twin: Snyk's code scanner (SnykCode) is read, its results weaknesses", () => {
    const out = read(log('SnykCode', [SQLI], [result('js/sql-injection')]));
    expect(out.names('Weakness')).toEqual([`${REPO}:src/db.js:12:js/sql-injection`]);
  });

  it('needs ?repo=, and SARIF 2.1.0', () => {
    expect(rejection(sarif, log('CodeQL', [], []), {})[0].pointer).toBe('/query/repo');
    expect(rejection(sarif, { ...log('CodeQL', [], []), version: '2.0.0' }, { repo: REPO })).toEqual([
      expect.objectContaining({ pointer: '/version' }),
    ]);
  });
});

describe('sarif: real logs', () => {
  it('CodeQL 2.5.4 on a vulnerable Flask app: its 9 security results, 63 quality results not read', () => {
    const out = read(unseen('defectdojo-codeQL-output.sarif'));
    expect(out.names('Weakness')).toHaveLength(9);
    expect(out.node('Weakness', `${REPO}:bad/libuser.py:12:py/sql-injection`).properties).toMatchObject({
      cwe: ['CWE-89'],
      severity: 'HIGH',
    });
    expect(out.warnings.join()).toContain('63 result(s) of code-quality rules');
  });

  it('Semgrep OSS 1.69 with `--sarif`: every result, named as the semgrep source names its JSON findings', () => {
    const out = read(unseen('defectdojo-semgrep-oss-1.69-issue_10191.sarif'));
    expect(out.names('Weakness')).toHaveLength(77);
    const first = out.nodes.find((n) => n.label === 'Weakness')!;
    expect(first.name).toBe(
      `${REPO}:Gruntfile.js:75:vulnerability-management-registry.semgrep-rules.gitlab-rules.sast-rules.javascript.pathtraversal.javascript_pathtraversal_rule-non-literal-fs-filename`,
    );
    expect(first.properties).toMatchObject({ cwe: ['CWE-22'], scanner: 'Semgrep OSS' });
  });

  it('SpotBugs: its MALICIOUS_CODE results, not its STYLE, BAD_PRACTICE, I18N or PERFORMANCE ones', () => {
    const out = read(unseen('defectdojo-spotbugs.sarif'));
    expect(out.names('Weakness')).toHaveLength(11);
    expect(out.warnings.join()).toContain('45 result(s) of code-quality rules');
  });

  it('Flawfinder: CWEs from the CWE taxonomy it relates its rules to', () => {
    const out = read(unseen('defectdojo-flawfinder.sarif'));
    expect(out.names('Weakness')).toHaveLength(53);
    expect(
      out.nodes.filter((n) => n.label === 'Weakness').every((n) => Array.isArray(n.properties?.cwe)),
    ).toBe(true);
  });

  it('Gitleaks 7: Secret nodes by the rule its messages name, without the secrets it printed', () => {
    const body = unseen('defectdojo-gitleaks_7.5.0.sarif');
    const out = read(body);
    expect(out.names('Secret')).toContain(
      `${REPO}:dojo/unittests/tools/test_gitlab_secret_detection_report_parser.py:37:AWS Access Key`,
    );
    expect(out.names('Secret')).toHaveLength(4);
    const offenders = JSON.stringify(body).match(/"offender":\s*"([^"]+)"/g) ?? [];
    expect(offenders.length).toBeGreaterThan(0);
    for (const offender of offenders)
      expect(JSON.stringify(out.envelopes)).not.toContain(JSON.parse(`{${offender}}`).offender);
  });

  it('Grype 0.34 with `-o sarif`: refused, pointing at its JSON', () => {
    const [error] = rejection(sarif, unseen('defectdojo-cxf-3.4.6.sarif'), { repo: REPO });
    expect(error).toMatchObject({ pointer: '/runs/0/tool/driver/name', value: 'Grype' });
    expect(error.detail).toContain('/ingest/grype');
  });

  it("Snyk Open Source's `snyk test --sarif` of Snyk's own fixture: refused, not four weaknesses of package.json", () => {
    const [error] = rejection(sarif, unseen('snyk-fixtures-npm-two-vuln-deps-snyk.sarif'), { repo: REPO });
    expect(error).toMatchObject({ pointer: '/runs/0/tool/driver/name', value: 'Snyk Open Source' });
    expect(error.detail).toContain('Trivy or Grype');
  });

  it('ShiftLeft scan: files named from where it ran, CWEs from MITRE pages, its CRITICAL, XML injection priced', () => {
    const out = read(unseen('defectdojo-shiftleft-scan-taint-python-report.sarif'));
    const weakness = (file: string, line: number, rule: string) =>
      out.node('Weakness', `${REPO}:${file}:${line}:${rule}`).properties!;
    expect(weakness('dojo/tools/veracode/parser.py', 35, 'taint-xmli')).toMatchObject({
      cwe: ['CWE-91'],
      severity: 'HIGH',
      precision: 'high',
    });
    expect(priceWeakness(weakness('dojo/tools/veracode/parser.py', 35, 'taint-xmli'))).toEqual({
      p: 0.5,
      basis: 'severity',
    });
    expect(weakness('dojo/cred/views.py', 592, 'taint-idor').cwe).toEqual(['CWE-639']);
    expect(weakness('dojo/forms.py', 2577, 'taint-file-write')).toMatchObject({
      cwe: ['CWE-732'],
      severity: 'CRITICAL',
    });
  });

  it('Contrast Scan on WebGoat: CWEs written as numbers, its own CRITICAL over the level', () => {
    const out = read(unseen('contrast-scan-webgoat-trimmed.sarif'));
    const props = out.nodes.filter((n) => n.label === 'Weakness').map((n) => n.properties);
    expect(props.map((p) => [p?.rule_id, p?.cwe, p?.severity])).toEqual([
      ['OPT.JAVASCRIPT.ResourceInjection', ['CWE-99'], 'CRITICAL'],
      ['OPT.JAVASCRIPT.HeaderManipulation', ['CWE-113'], 'HIGH'],
      ['OPT.JAVASCRIPT.ESTILO.NeverUseHistory', undefined, 'LOW'],
    ]);
  });

  it('gosec: the severity its rules are tagged with, not the `error` it writes for MEDIUM', () => {
    const out = read(unseen('go-query-builder-gosec.sarif'));
    const props = (file: string, line: number, rule: string) =>
      out.node('Weakness', `${REPO}:${file}:${line}:${rule}`).properties;
    expect(props('optimization/optimizer.go', 317, 'G401')).toMatchObject({
      cwe: ['CWE-328'],
      severity: 'MEDIUM',
      scanner_severity: 'error',
    });
    expect(props('database/connection.go', 111, 'G115')?.severity).toBe('HIGH');
    expect(props('execution/chunking.go', 303, 'G104')?.severity).toBe('LOW');
  });

  it('Bandit 1.9.3: a result without level is read by its own `issue_severity`', () => {
    const out = read(unseen('todo-list-aws-bandit-1.9.3.sarif'));
    expect(out.node('Weakness', `${REPO}:src/todoList.py:48:B307`).properties).toMatchObject({
      severity: 'MEDIUM',
      scanner_severity: 'warning',
    });
  });

  it('mobsfscan and njsscan: results of rules that state no level are warnings', () => {
    const mobsf = read(unseen('defectdojo-mobsfscan-0.0.8.sarif')).nodes.find(
      (n) => n.properties?.rule_id === 'sqlite_injection',
    );
    expect(mobsf?.properties).toMatchObject({ cwe: ['CWE-78'], severity: 'MEDIUM' });
    const njs = read(unseen('defectdojo-njsscan-0.2.3.sarif')).nodes.find(
      (n) => n.properties?.rule_id === 'node_insecure_random_generator',
    );
    expect(njs?.properties).toMatchObject({ cwe: ['CWE-327'], severity: 'MEDIUM' });
  });

  it('a log of no run is partial (it retracts nothing); the SARIF suppression examples keep what is open', () => {
    const empty = read(unseen('defectdojo-no_runs.sarif'));
    expect(empty.scope).toBeUndefined();
    expect(empty.warnings).toEqual(['sarif log: no run, so no tool and no finding']);
    const suppressions = read(unseen('defectdojo-suppression_test.sarif'));
    expect(suppressions.names('Weakness').sort()).toEqual([
      `${REPO}:C:/code/file4.c:TST0004`,
      `${REPO}:C:/code/file5.c:TST0005`,
    ]);
  });
});
