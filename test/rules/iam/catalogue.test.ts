// DECISIONS "Primitives that need an existing resource" and the catalogue's new methods (Rhino Security Labs'
// list #16, #20, #22-#24, #26, #28; Pacu's iam__privesc_scan; PMapper's CloudFormation, CodeBuild, Lambda
// and EC2 edge checks). With no inventory of the kind a primitive needs (an authorization-details document
// holds none) it is drawn at 0.45 with the reason "assumes an existing <kind>"; with an inventory, to the
// roles its resources run as; with an inventory that holds none, not at all.
import { describe, expect, it } from 'vitest';
import { createIamSource } from '../../../src/ingest/sources/iam.js';
import type { Directory } from '../../../src/rules/iam/directory.js';
import { normalize } from '../../helpers/normalize.js';
import { ACCOUNT, allow, arn, deny, edges, role, serviceAdmin, user, type Doc } from './fixtures.js';

const ME = 'attacker';

/** `from -> to [primitives] p (reasons)` for the attacker's edges, with this inventory. */
function drawn(body: Doc, inventory?: Directory['inventory']): string[] {
  const out = normalize(createIamSource({ inventory: () => inventory }), { UserDetailList: [], ...body });
  const names = new Map(out.nodes.map((n) => [n.id, n.name.replace(`${ACCOUNT}/`, '')]));
  return out.envelopes[0].edges
    .filter((e) => e.type === 'CAN_ESCALATE_TO' && names.get(e.from) === ME)
    .map((e) => {
      const reasons = e.properties?.reasons as string[] | undefined;
      return `${names.get(e.from)} -> ${names.get(e.to)} [${(e.properties?.primitives as string[]).join(',')}] ${
        e.exploit_probability
      }${reasons ? ` (${reasons.join('; ')})` : ''}`;
    })
    .sort();
}

const profiled = (name: string, services = ['ec2.amazonaws.com']) =>
  serviceAdmin(services, name, {
    InstanceProfileList: [{ InstanceProfileName: `${name}-p`, Arn: arn('instance-profile', `${name}-p`) }],
  });

describe('primitives that need an existing resource', () => {
  const cases: [string, string[], string, Record<string, unknown>, keyof Directory['inventory'], string][] = [
    [
      'UpdateFunctionCode',
      ['lambda:UpdateFunctionCode'],
      'lambda',
      serviceAdmin(['lambda.amazonaws.com'], 'fn-role'),
      'function',
      'Lambda function',
    ],
    [
      'UpdateFunctionConfiguration',
      ['lambda:UpdateFunctionConfiguration'],
      'lambda',
      serviceAdmin(['lambda.amazonaws.com'], 'fn-role'),
      'function',
      'Lambda function',
    ],
    ['SendCommand', ['ssm:SendCommand'], 'ssm', profiled('fn-role'), 'instance', 'EC2 instance'],
    ['StartSession', ['ssm:StartSession'], 'ssm', profiled('fn-role'), 'instance', 'EC2 instance'],
    [
      'EC2InstanceConnect',
      ['ec2-instance-connect:SendSSHPublicKey'],
      'ec2-instance-connect',
      profiled('fn-role'),
      'instance',
      'EC2 instance',
    ],
    [
      'UpdateStack',
      ['cloudformation:UpdateStack'],
      'cloudformation',
      serviceAdmin(['cloudformation.amazonaws.com'], 'fn-role'),
      'stack',
      'CloudFormation stack',
    ],
    [
      'ChangeSet',
      ['cloudformation:CreateChangeSet', 'cloudformation:ExecuteChangeSet'],
      'cloudformation',
      serviceAdmin(['cloudformation.amazonaws.com'], 'fn-role'),
      'stack',
      'CloudFormation stack',
    ],
    [
      'UpdateDevEndpoint',
      ['glue:UpdateDevEndpoint'],
      'glue',
      serviceAdmin(['glue.amazonaws.com'], 'fn-role'),
      'glue-endpoint',
      'Glue development endpoint',
    ],
    [
      'CreatePresignedNotebookInstanceUrl',
      ['sagemaker:CreatePresignedNotebookInstanceUrl'],
      'sagemaker',
      serviceAdmin(['sagemaker.amazonaws.com'], 'fn-role'),
      'sagemaker-notebook',
      'SageMaker notebook instance',
    ],
    [
      'UpdateProject',
      ['codebuild:UpdateProject', 'codebuild:StartBuild'],
      'codebuild',
      serviceAdmin(['codebuild.amazonaws.com'], 'fn-role'),
      'codebuild-project',
      'CodeBuild project',
    ],
  ];

  it.each(cases)(
    '%s: no inventory → 0.45 "assumes an existing …"',
    (primitive, actions, _s, target, _k, kind) => {
      expect(drawn({ UserDetailList: [user(ME, [allow(actions)])], RoleDetailList: [target] })).toEqual([
        `${ME} -> fn-role [${primitive}] 0.45 (assumes an existing ${kind})`,
      ]);
    },
  );

  it.each(cases)('%s: an inventory naming the role → 0.9 to it', (primitive, actions, _s, target, kind) => {
    expect(
      drawn(
        { UserDetailList: [user(ME, [allow(actions)])], RoleDetailList: [target] },
        {
          [kind]: [arn('role', 'fn-role')],
        },
      ),
    ).toEqual([`${ME} -> fn-role [${primitive}] 0.9`]);
  });

  it.each(cases)(
    '%s twins: an inventory of that kind holding none, or only another role; a Deny on the service',
    (_p, actions, service, target, kind) => {
      const body = {
        UserDetailList: [user(ME, [allow(actions)])],
        RoleDetailList: [target, role('plain', { Service: 'lambda.amazonaws.com' })],
      };
      expect(drawn(body, { [kind]: [] })).toEqual([]);
      expect(drawn(body, { [kind]: [arn('role', 'plain')] }).filter((e) => e.includes('fn-role'))).toEqual(
        [],
      );
      expect(
        drawn({
          UserDetailList: [user(ME, [allow(actions), deny(`${service}:*`)])],
          RoleDetailList: [target],
        }),
      ).toEqual([]);
    },
  );

  it('UpdateStack with iam:PassRole reaches any role CloudFormation may assume once a stack exists', () => {
    const body = {
      UserDetailList: [user(ME, [allow(['cloudformation:UpdateStack', 'iam:PassRole'])])],
      RoleDetailList: [serviceAdmin(['cloudformation.amazonaws.com'], 'cfn-admin')],
    };
    expect(drawn(body, { stack: [arn('role', 'some-stack-role')] })).toEqual([
      `${ME} -> cfn-admin [UpdateStack] 0.9`,
    ]);
    expect(drawn(body, { stack: [] })).toEqual([]);
  });

  it('UpdateLoginProfile needs the user to have a login profile: 0.45 without an inventory, 0.9 with one; twin: none', () => {
    const body = {
      UserDetailList: [user(ME, [allow('iam:UpdateLoginProfile')]), user('boss', [allow('*')])],
    };
    expect(drawn(body)).toEqual([
      `${ME} -> boss [UpdateLoginProfile] 0.45 (assumes an existing login profile)`,
    ]);
    expect(drawn(body, { 'login-profile': [arn('user', 'boss')] })).toEqual([
      `${ME} -> boss [UpdateLoginProfile] 0.9`,
    ]);
    expect(drawn(body, { 'login-profile': [arn('user', 'someone-else')] })).toEqual([]);
  });
});

describe('the methods the catalogue lacked', () => {
  it('CreateProjectFromTemplate (Rhino #23) reaches the roles CodeStar may assume; twin: no such role', () => {
    const body = (service: string) => ({
      UserDetailList: [user(ME, [allow('codestar:CreateProjectFromTemplate')])],
      RoleDetailList: [serviceAdmin([service], 'aws-codestar-service-role')],
    });
    expect(drawn(body('codestar.amazonaws.com'))).toEqual([
      `${ME} -> aws-codestar-service-role [CreateProjectFromTemplate] 0.9`,
    ]);
    expect(drawn(body('cloudformation.amazonaws.com'))).toEqual([]);
  });

  it('CodeStar CreateProject + AssociateTeamMember (Rhino #25) draws nothing: it grants a fixed read-only project policy', () => {
    expect(
      drawn({
        UserDetailList: [user(ME, [allow(['codestar:CreateProject', 'codestar:AssociateTeamMember'])])],
        RoleDetailList: [serviceAdmin(['codestar.amazonaws.com'])],
      }),
    ).toEqual([]);
  });

  it('PassRole+EC2NewInstanceProfile reaches an EC2 role no profile holds; twin: without CreateInstanceProfile', () => {
    const roles = [profiled('has-profile'), serviceAdmin(['ec2.amazonaws.com'], 'bare')];
    const grant = [
      'iam:PassRole',
      'ec2:RunInstances',
      'iam:CreateInstanceProfile',
      'iam:AddRoleToInstanceProfile',
    ];
    expect(drawn({ UserDetailList: [user(ME, [allow(grant)])], RoleDetailList: roles })).toEqual([
      `${ME} -> bare [PassRole+EC2NewInstanceProfile] 0.9`,
      `${ME} -> has-profile [PassRole+EC2] 0.9`,
    ]);
    expect(drawn({ UserDetailList: [user(ME, [allow(grant.slice(0, 2))])], RoleDetailList: roles })).toEqual([
      `${ME} -> has-profile [PassRole+EC2] 0.9`,
    ]);
  });
});

it('twin: Data Pipeline calls without iam:PassRole draw nothing', () => {
  expect(edges({ UserDetailList: [user(ME, [allow('datapipeline:*')])] })).toEqual([]);
});
