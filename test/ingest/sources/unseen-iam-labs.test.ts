// IAM Vulnerable (BishopFox/iam-vulnerable), the paths the third round touches, as the lab deploys them
// (fixtures/unseen/iam/iam-vulnerable-third-round.json, SOURCES.md): each privesc user with its lab policy
// attached, and the lab's privesc-high-priv-service-role (`*` on `*`, trusted by ten services, in an instance
// profile). Found, missed and false are counted in docs/model.md.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createIamSource } from '../../../src/ingest/sources/iam.js';
import { normalize } from '../../helpers/normalize.js';

const doc = JSON.parse(
  readFileSync(
    new URL('../../../fixtures/unseen/iam/iam-vulnerable-third-round.json', import.meta.url),
    'utf8',
  ),
);
const out = normalize(createIamSource(), doc);
const escalation = (user: string) =>
  out.envelopes[0].edges
    .filter(
      (e) =>
        e.type === 'CAN_ESCALATE_TO' &&
        out.nodes.find((n) => n.id === e.from)?.name === `111111111111/${user}-user`,
    )
    .map((e) => ({
      to: out.nodes.find((n) => n.id === e.to)!.name.replace('111111111111/', ''),
      primitives: e.properties?.primitives,
      p: e.exploit_probability,
      reasons: e.properties?.reasons,
    }));
const SERVICE_ROLE = 'privesc-high-priv-service-role';

describe("IAM Vulnerable: time conditions (the lab's tool-testing pair)", () => {
  it('fn3: CreatePolicyVersion for tokens issued after 2020 holds now, unconditionally', () => {
    expect(escalation('fn3-exploitableConditionConstraint')).toEqual([
      { to: 'account-admin', primitives: ['CreatePolicyVersion'], p: 0.9, reasons: undefined },
    ]);
  });

  it('fp5 (twin): the same grant for tokens issued before 2020 is no grant (before: 0.45)', () => {
    expect(escalation('fp5-nonExploitableConditionConstraint')).toEqual([]);
  });
});

describe('IAM Vulnerable: methods the catalogue lacked', () => {
  it('privesc21: PassRole to Data Pipeline reaches the service role', () => {
    expect(escalation('privesc21-PassExistingRoleToNewDataPipeline')).toEqual([
      { to: SERVICE_ROLE, primitives: ['PassRole+DataPipeline'], p: 0.9, reasons: undefined },
    ]);
  });

  it.each([
    ['privesc19-UpdateExistingGlueDevEndpoint', ['UpdateDevEndpoint'], 'Glue development endpoint'],
    ['privesc-CloudFormationUpdateStack', ['UpdateStack'], 'CloudFormation stack'],
    [
      'privesc-sageMakerCreatePresignedNotebookURL',
      ['CreatePresignedNotebookInstanceUrl'],
      'SageMaker notebook instance',
    ],
    [
      'privesc17-EditExistingLambdaFunctionWithRole',
      ['UpdateFunctionCode', 'UpdateFunctionConfiguration'],
      'Lambda function',
    ],
    ['privesc-ssmSendCommand', ['SendCommand'], 'EC2 instance'],
    ['privesc-ec2InstanceConnect', ['EC2InstanceConnect'], 'EC2 instance'],
  ])(
    '%s: needs an existing resource the document does not list: 0.45, "assumes an existing …"',
    (user, primitives, kind) => {
      expect(escalation(user)).toEqual([
        { to: SERVICE_ROLE, primitives, p: 0.45, reasons: [`assumes an existing ${kind}`] },
      ]);
    },
  );
});
