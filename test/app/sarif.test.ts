// SARIF 2.1.0 from the gate, validated against the official schema (test/app/fixtures/sarif-schema-2.1.0.json,
// OASIS, draft-07) with ajv: one result per opened or worsened route, located at the file of the checkout
// that caused it: the Terraform resource's block, the manifest that pins the package, the Dockerfile; the
// report itself when no file explains the route. Through `pathgate gate -sarif` as a user runs it.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { gateCommand } from '../../app/gate-cli.js';
import { renderMermaid, toSarif, type GateAnswer } from '../../app/gate-client.js';
import { gateEstate, KEV_CVE, LOW_CVE, trivyReport } from '../helpers/gate-estate.js';
import { tempDir } from '../helpers/service.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const schema = JSON.parse(await readFile(path.join(here, 'fixtures/sarif-schema-2.1.0.json'), 'utf8'));
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
const ajv = new Ajv({ strict: false, allErrors: true });
addFormats(ajv);
const validate = ajv.compile(schema);

let dir: string;
let checkout: string;
beforeAll(async () => {
  dir = await tempDir('pathgate-sarif-');
  await mkdir(path.join(dir, 'estate'));
  await writeFile(path.join(dir, 'estate', 'scan.json'), JSON.stringify(trivyReport([LOW_CVE])));
  await writeFile(path.join(dir, 'estate', 'estate.json'), JSON.stringify(gateEstate()));
  // The pull request's checkout: a Dockerfile and the manifest that pins log4j.
  checkout = path.join(dir, 'checkout');
  await mkdir(path.join(checkout, 'infra'), { recursive: true });
  await writeFile(
    path.join(checkout, 'Dockerfile'),
    '# syntax=docker/dockerfile:1\nFROM eclipse-temurin:17-jre\nCOPY app.jar /app/\n',
  );
  await writeFile(
    path.join(checkout, 'pom.xml'),
    '<project>\n  <dependencies>\n    <dependency>\n      <groupId>org.apache.logging.log4j</groupId>\n      <artifactId>log4j-core</artifactId>\n      <version>2.14.1</version>\n    </dependency>\n  </dependencies>\n</project>\n',
  );
  await writeFile(
    path.join(checkout, 'infra', 'batch.tf'),
    'provider "aws" {\n  region = "us-east-1"\n}\n\nresource "aws_instance" "batch_worker" {\n  ami = "ami-0c7217cdde317cfec"\n}\n',
  );
  await writeFile(path.join(dir, 'pr-blocked.json'), JSON.stringify(trivyReport([LOW_CVE, KEV_CVE])));
  await writeFile(path.join(dir, 'pr-same.json'), JSON.stringify(trivyReport([LOW_CVE])));
  vi.stubEnv('GITHUB_WORKSPACE', checkout);
});
afterAll(() => {
  vi.unstubAllEnvs();
});

async function gate(report: string, sarif: string) {
  let out = '';
  let err = '';
  const code = await gateCommand(
    ['-local', path.join(dir, 'estate'), '-report', report, '-json', '-sarif', sarif],
    {
      out: (t) => (out += t),
      err: (t) => (err += t),
      isTTY: false,
    },
  );
  return { code, answer: JSON.parse(out), err };
}

describe('SARIF 2.1.0', () => {
  it('pathgate gate -sarif writes one valid result per route, at the manifest that pins the package', async () => {
    const file = path.join(dir, 'blocked.sarif');
    const { code } = await gate(path.join(dir, 'pr-blocked.json'), file);
    expect(code).toBe(1);
    const log = JSON.parse(await readFile(file, 'utf8'));
    expect(validate(log), JSON.stringify(validate.errors?.slice(0, 5))).toBe(true);
    const [run] = log.runs;
    expect(run.tool.driver.name).toBe('pathgate');
    expect(run.results).toHaveLength(1);
    const [result] = run.results;
    expect(result).toMatchObject({
      ruleId: 'pathgate/attack-path-worsened',
      level: 'error',
      partialFingerprints: { 'pathgate/path/v1': expect.stringMatching(/^ap-[0-9a-f]{16}$/) },
    });
    expect(result.message.text).toMatch(
      /^Critical attack path made likelier: shop-alb → checkout → orders \(P1/,
    );
    expect(result.locations[0].physicalLocation).toEqual({
      artifactLocation: { uri: 'pom.xml', uriBaseId: '%SRCROOT%' },
      region: { startLine: 5 },
    });
  });

  it('is valid and empty for a clean change (an upload then closes the alerts)', async () => {
    const file = path.join(dir, 'clean.sarif');
    expect((await gate(path.join(dir, 'pr-same.json'), file)).code).toBe(0);
    const log = JSON.parse(await readFile(file, 'utf8'));
    expect(validate(log)).toBe(true);
    expect(log.runs[0].results).toEqual([]);
  });

  it('points a Terraform route at its resource block, a code finding at its line, and a route no file explains at the report', () => {
    const route = {
      id: 'ap-0123456789abcdef',
      score: 0.72,
      previousScore: null,
      priority: 'P1',
      previousPriority: null,
      critical: true,
      nodes: [
        { id: 'VirtualMachine:1', name: '111122223333/batch-worker-1', label: 'VirtualMachine' },
        { id: 'IAM_Role:2', name: '111122223333/account-admin', label: 'IAM_Role' },
      ],
      steps: [
        {
          from: 'VirtualMachine:1',
          to: 'IAM_Role:2',
          type: 'ASSUMES',
          probability: 0.8,
          weightBasis: 'heuristic',
        },
      ],
      why: [],
      fix: 'do not expose it',
    };
    const answer: GateAnswer = {
      verdict: 'blocked',
      reason: 'x',
      analysed: true,
      attribution: 'report',
      opened: [
        { ...route, origin: { terraform: ['module.batch.aws_instance.batch_worker'] } },
        { ...route, id: 'ap-fedcba9876543210' },
        // A code scanner's finding: at its line when the checkout holds the file, else like any other route.
        {
          ...route,
          id: 'ap-1111111111111111',
          origin: { code: { path: './infra/batch.tf', line: 6, rule: 'r' } },
        },
        {
          ...route,
          id: 'ap-2222222222222222',
          origin: { code: { path: 'src/gone.py', line: 3, rule: 'r' } },
        },
      ],
      worsened: [],
      preexisting: 0,
    };
    const log: any = toSarif(answer, { root: checkout, reportPath: path.join(checkout, 'plan.json') });
    expect(validate(log), JSON.stringify(validate.errors?.slice(0, 5))).toBe(true);
    expect(log.runs[0].results.map((r: any) => r.locations[0].physicalLocation)).toEqual([
      { artifactLocation: { uri: 'infra/batch.tf', uriBaseId: '%SRCROOT%' }, region: { startLine: 5 } },
      { artifactLocation: { uri: 'plan.json', uriBaseId: '%SRCROOT%' }, region: { startLine: 1 } },
      { artifactLocation: { uri: 'infra/batch.tf', uriBaseId: '%SRCROOT%' }, region: { startLine: 6 } },
      { artifactLocation: { uri: 'plan.json', uriBaseId: '%SRCROOT%' }, region: { startLine: 1 } },
    ]);
    expect(log.runs[0].results[0].ruleId).toBe('pathgate/attack-path-opened');
  });
});

describe('SARIF for an exposed crown jewel', () => {
  it('is an error of its own rule, at the Terraform block that exposes it', () => {
    const answer: GateAnswer = {
      verdict: 'blocked',
      reason: 'x',
      analysed: true,
      attribution: 'report',
      opened: [],
      worsened: [],
      preexisting: 0,
      exposed: [
        {
          id: 'no-internet-exposed-sensitive-asset:Database:1',
          invariant: 'no-internet-exposed-sensitive-asset',
          severity: 'CRITICAL',
          detail:
            'Database 111122223333/batch is a crown jewel reachable from the internet (publicly-accessible)',
          node: { id: 'Database:1', name: '111122223333/batch', label: 'Database' },
          origin: { terraform: ['aws_instance.batch_worker'] },
        },
      ],
    };
    const log: any = toSarif(answer, { root: checkout });
    expect(validate(log), JSON.stringify(validate.errors?.slice(0, 5))).toBe(true);
    const [result] = log.runs[0].results;
    expect(result).toMatchObject({
      ruleId: 'pathgate/crown-jewel-exposed',
      level: 'error',
      locations: [
        { physicalLocation: { artifactLocation: { uri: 'infra/batch.tf' }, region: { startLine: 5 } } },
      ],
    });
    expect(log.runs[0].tool.driver.rules[result.ruleIndex].id).toBe('pathgate/crown-jewel-exposed');
  });
});

describe('Mermaid diagrams', () => {
  it('draws each hop, highlighting the hops the change added or repriced and an exposed start', () => {
    const diagram = renderMermaid({
      id: 'ap-0123456789abcdef',
      score: 0.72,
      previousScore: 0.2,
      priority: 'P1',
      previousPriority: 'P2',
      critical: true,
      nodes: [
        { id: 'a', name: 'shop-alb', label: 'LoadBalancer' },
        { id: 'b', name: 'check"out', label: 'Service' },
        { id: 'c', name: 'orders', label: 'Database' },
      ],
      steps: [
        { from: 'a', to: 'b', type: 'ROUTES_TO', probability: 0.765, weightBasis: 'kev' },
        { from: 'b', to: 'c', type: 'HAS_PERMISSION', probability: 0.9, weightBasis: 'heuristic' },
      ],
      why: [
        {
          change: 'repriced',
          from: 'a',
          to: 'b',
          type: 'ROUTES_TO',
          probability: 0.765,
          previousProbability: 0.21,
          weightBasis: 'kev',
        },
      ],
      fix: '',
    });
    expect(diagram.split('\n')).toEqual([
      '```mermaid',
      'flowchart LR',
      '  n0["shop-alb<br/><small>LoadBalancer</small>"]',
      '  n1["check#34;out<br/><small>Service</small>"]',
      '  n2["orders<br/><small>Database</small>"]',
      '  n0 -->|"ROUTES_TO 0.77 (was 0.21)"| n1',
      '  n1 -->|"HAS_PERMISSION 0.90"| n2',
      '  linkStyle 0 stroke:#d73a49,stroke-width:4px',
      '```',
    ]);
  });
});
