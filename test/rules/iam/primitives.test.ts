// Each escalation primitive (src/rules/iam/primitives/) through the iam source on a small document: a
// positive case and its negative twin (a condition that scopes it away, a Deny that covers it, a
// self-service grant, a resource naming another principal). Edges read `from -> to [primitives] p`.
import { describe, expect, it } from 'vitest';
import { ESCALATION_PRIMITIVES } from '../../../src/rules/iam/index.js';
import { allow, arn, deny, edges, group, managedPolicy, role, serviceAdmin, user } from './fixtures.js';

const ADMIN = 'account-admin';
const ME = 'attacker';

describe('already an administrator', () => {
  it('`*` on `*` is full-admin at p 1, and an unrelated Deny does not take it away', () => {
    expect(edges({ UserDetailList: [user(ME, [allow('*')])] })).toEqual([`${ME} -> ${ADMIN} [full-admin] 1`]);
    expect(edges({ UserDetailList: [user(ME, [allow('*'), deny('s3:*')])] })).toEqual([
      `${ME} -> ${ADMIN} [full-admin] 1`,
    ]);
  });

  it('twin: a Deny on everything, or a boundary that only allows s3, leaves nothing', () => {
    expect(edges({ UserDetailList: [user(ME, [allow('*'), deny('*')])] })).toEqual([]);
    expect(
      edges({
        UserDetailList: [
          user(ME, [allow('*')], {
            PermissionsBoundary: { PermissionsBoundaryArn: arn('policy', 'only-s3') },
          }),
        ],
        Policies: [managedPolicy('only-s3', [[allow('s3:*')]])],
      }),
    ).toEqual([]);
  });
});

describe('policy versions', () => {
  const attached = { AttachedManagedPolicies: [{ PolicyName: 'mine', PolicyArn: arn('policy', 'mine') }] };

  it('CreatePolicyVersion on a policy attached to the caller', () => {
    const doc = (resource: string) => ({
      UserDetailList: [user(ME, [], attached)],
      Policies: [managedPolicy('mine', [[allow('iam:CreatePolicyVersion', resource)]])],
    });
    expect(edges(doc('*'))).toEqual([`${ME} -> ${ADMIN} [CreatePolicyVersion] 0.9`]);
    expect(edges(doc(arn('policy', 'mine')))).toEqual([`${ME} -> ${ADMIN} [CreatePolicyVersion] 0.6`]);
  });

  it('twin: CreatePolicyVersion on a policy attached to someone else', () => {
    expect(
      edges({
        UserDetailList: [user(ME, [], attached)],
        Policies: [
          managedPolicy('mine', [[allow('iam:CreatePolicyVersion', arn('policy', 'theirs'))]]),
          managedPolicy('theirs', [[allow('s3:GetObject')]]),
        ],
      }),
    ).toEqual([]);
  });

  it('SetDefaultPolicyVersion needs another version to switch to (twin: a single version)', () => {
    const doc = (versions: number) => ({
      UserDetailList: [user(ME, [], attached)],
      Policies: [
        managedPolicy(
          'mine',
          Array.from({ length: versions }, (_, i) =>
            i === 0 ? [allow('iam:SetDefaultPolicyVersion')] : [allow('*')],
          ),
        ),
      ],
    });
    expect(edges(doc(2))).toEqual([`${ME} -> ${ADMIN} [SetDefaultPolicyVersion] 0.9`]);
    expect(edges(doc(1))).toEqual([]);
  });
});

describe('writing its own policies', () => {
  it.each([
    ['iam:AttachUserPolicy', 'AttachUserPolicy'],
    ['iam:PutUserPolicy', 'PutUserPolicy'],
  ])('%s on itself (also through ${aws:username}), not on another user', (action, primitive) => {
    expect(edges({ UserDetailList: [user(ME, [allow(action)])] })).toEqual([
      `${ME} -> ${ADMIN} [${primitive}] 0.9`,
    ]);
    expect(
      edges({
        UserDetailList: [user(ME, [allow(action, `arn:aws:iam::111122223333:user/\${aws:username}`)])],
      }),
    ).toEqual([`${ME} -> ${ADMIN} [${primitive}] 0.6`]);
    // twin: the resource names another principal
    expect(
      edges({ UserDetailList: [user(ME, [allow(action, arn('user', 'bob'))]), user('bob', [])] }),
    ).toEqual([]);
  });

  it.each([
    ['iam:AttachGroupPolicy', 'AttachGroupPolicy'],
    ['iam:PutGroupPolicy', 'PutGroupPolicy'],
  ])('%s on a group it is in; twin: on a group it is not in', (action, primitive) => {
    const doc = (resource: string) => ({
      UserDetailList: [user(ME, [allow(action, resource)], { GroupList: ['devs'] })],
      GroupDetailList: [group('devs', []), group('ops', [])],
    });
    expect(edges(doc(arn('group', 'devs')))).toEqual([`${ME} -> ${ADMIN} [${primitive}] 0.6`]);
    expect(edges(doc(arn('group', 'ops')))).toEqual([]);
  });

  it.each([
    ['iam:AttachRolePolicy', 'AttachRolePolicy'],
    ['iam:PutRolePolicy', 'PutRolePolicy'],
  ])('%s on its own role; twin: a Deny whose wildcard covers it', (action, primitive) => {
    const me = (extra: ReturnType<typeof deny>[] = []) =>
      role(ME, { Service: 'ec2.amazonaws.com' }, [allow(action), ...extra]);
    expect(edges({ RoleDetailList: [me()] })).toEqual([`${ME} -> ${ADMIN} [${primitive}] 0.9`]);
    expect(edges({ RoleDetailList: [me([deny('iam:*Role*', 'arn:aws:iam::*:role/*')])] })).toEqual([]);
  });

  it('a grant under a condition it does not understand is kept, priced 0.45', () => {
    const mfa = { Condition: { Bool: { 'aws:MultiFactorAuthPresent': 'true' } } };
    expect(edges({ UserDetailList: [user(ME, [allow('iam:PutUserPolicy', '*', mfa)])] })).toEqual([
      `${ME} -> ${ADMIN} [PutUserPolicy] 0.45`,
    ]);
  });

  it('AddUserToGroup into a group of administrators; twin: a harmless group', () => {
    const doc = (groupPolicy: ReturnType<typeof allow>) => ({
      UserDetailList: [user(ME, [allow('iam:AddUserToGroup')])],
      GroupDetailList: [group('target', [groupPolicy])],
    });
    expect(edges(doc(allow('*')))).toEqual([`${ME} -> ${ADMIN} [AddUserToGroup] 0.9`]);
    expect(edges(doc(allow('s3:GetObject')))).toEqual([]);
  });
});

describe('removing a permissions boundary', () => {
  const bounded = (boundary: string[]) => ({
    Policies: [managedPolicy('boundary', [[allow(boundary)]])],
  });
  const pb = { PermissionsBoundary: { PermissionsBoundaryArn: arn('policy', 'boundary') } };

  it('DeleteUserPermissionsBoundary frees a user whose own policies say `*`; twin: the boundary forbids the call', () => {
    expect(
      edges({
        UserDetailList: [user(ME, [allow('*')], pb)],
        ...bounded(['s3:*', 'iam:DeleteUserPermissionsBoundary']),
      }),
    ).toEqual([`${ME} -> ${ADMIN} [DeleteUserPermissionsBoundary] 0.9`]);
    expect(edges({ UserDetailList: [user(ME, [allow('*')], pb)], ...bounded(['s3:*']) })).toEqual([]);
  });

  it('DeleteRolePermissionsBoundary frees a role; twin: its own policies are harmless', () => {
    const me = (statements: ReturnType<typeof allow>[]) =>
      role(ME, { Service: 'ec2.amazonaws.com' }, statements, pb);
    expect(
      edges({
        RoleDetailList: [me([allow('*')])],
        ...bounded(['s3:*', 'iam:DeleteRolePermissionsBoundary']),
      }),
    ).toEqual([`${ME} -> ${ADMIN} [DeleteRolePermissionsBoundary] 0.9`]);
    expect(
      edges({
        RoleDetailList: [me([allow(['s3:*', 'iam:DeleteRolePermissionsBoundary'])])],
        ...bounded(['s3:*', 'iam:DeleteRolePermissionsBoundary']),
      }),
    ).toEqual([]);
  });
});

describe('taking over another user', () => {
  it.each([
    ['iam:CreateAccessKey', 'CreateAccessKey'],
    ['iam:CreateLoginProfile', 'CreateLoginProfile'],
    // UpdateLoginProfile needs the user's login profile: catalogue.test.ts
  ])(
    '%s on an administrator; twins: self-service, a harmless user behind a wildcard',
    (action, primitive) => {
      const admin = user('boss', [allow('*')]);
      expect(edges({ UserDetailList: [user(ME, [allow(action)]), admin] })).toEqual([
        `${ME} -> boss [${primitive}] 0.9`,
        `boss -> ${ADMIN} [full-admin] 1`,
      ]);
      // A literal grant names its target, whatever it holds.
      expect(
        edges({ UserDetailList: [user(ME, [allow(action, arn('user', 'bob'))]), user('bob', [])] }),
      ).toEqual([`${ME} -> bob [${primitive}] 0.6`]);
      // twin: the self-service policy (AWS's "manage your own credentials")
      expect(
        edges({ UserDetailList: [user(ME, [allow(action, 'arn:aws:iam::*:user/${aws:username}')]), admin] }),
      ).toEqual([`boss -> ${ADMIN} [full-admin] 1`]);
      // twin: a wildcard does not aim at a user with nothing to take
      expect(
        edges({ UserDetailList: [user(ME, [allow(action)]), user('bob', [allow('s3:GetObject')])] }),
      ).toEqual([]);
    },
  );
});

describe('taking over a role', () => {
  const bossRole = role('boss-role', { AWS: arn('user', 'someone') }, [allow('*')]);

  it('UpdateAssumeRolePolicy with sts:AssumeRole; twin: without sts:AssumeRole', () => {
    expect(
      edges({
        UserDetailList: [user(ME, [allow(['iam:UpdateAssumeRolePolicy', 'sts:AssumeRole'])])],
        RoleDetailList: [bossRole],
      }),
    ).toEqual([`${ME} -> boss-role [UpdateAssumeRolePolicy] 0.9`, `boss-role -> ${ADMIN} [full-admin] 1`]);
    expect(
      edges({
        UserDetailList: [user(ME, [allow('iam:UpdateAssumeRolePolicy')])],
        RoleDetailList: [bossRole],
      }),
    ).toEqual([`boss-role -> ${ADMIN} [full-admin] 1`]);
  });
});

describe('PassRole to a service that runs code as the role', () => {
  const cases: [string, string[], string, string][] = [
    ['PassRole+EC2', ['ec2:RunInstances'], 'ec2.amazonaws.com', 'lambda.amazonaws.com'],
    [
      'PassRole+Lambda',
      ['lambda:CreateFunction', 'lambda:InvokeFunction'],
      'lambda.amazonaws.com',
      'ec2.amazonaws.com',
    ],
    [
      'PassRole+LambdaEventSource',
      ['lambda:CreateFunction', 'lambda:CreateEventSourceMapping'],
      'lambda.amazonaws.com',
      'glue.amazonaws.com',
    ],
    ['PassRole+Glue', ['glue:CreateDevEndpoint'], 'glue.amazonaws.com', 'lambda.amazonaws.com'],
    [
      'PassRole+CloudFormation',
      ['cloudformation:CreateStack'],
      'cloudformation.amazonaws.com',
      'ec2.amazonaws.com',
    ],
    [
      'PassRole+ECS',
      ['ecs:RegisterTaskDefinition', 'ecs:RunTask'],
      'ecs-tasks.amazonaws.com',
      'ec2.amazonaws.com',
    ],
    [
      'PassRole+CodeBuild',
      ['codebuild:CreateProject', 'codebuild:StartBuild'],
      'codebuild.amazonaws.com',
      'ecs-tasks.amazonaws.com',
    ],
    [
      'PassRole+SageMaker',
      ['sagemaker:CreateNotebookInstance'],
      'sagemaker.amazonaws.com',
      'codebuild.amazonaws.com',
    ],
    [
      'PassRole+DataPipeline',
      ['datapipeline:CreatePipeline', 'datapipeline:PutPipelineDefinition', 'datapipeline:ActivatePipeline'],
      'datapipeline.amazonaws.com',
      'ec2.amazonaws.com',
    ],
    [
      'PassRole+CodeStar',
      ['codestar:CreateProject'],
      'codestar.amazonaws.com',
      'cloudformation.amazonaws.com',
    ],
    [
      'PassRole+LambdaAddPermission',
      ['lambda:CreateFunction', 'lambda:AddPermission'],
      'lambda.amazonaws.com',
      'ec2.amazonaws.com',
    ],
    [
      'PassRole+AutoScaling',
      ['autoscaling:CreateAutoScalingGroup', 'autoscaling:CreateLaunchConfiguration'],
      'ec2.amazonaws.com',
      'lambda.amazonaws.com',
    ],
    [
      'PassRole+EC2,PassRole+EC2NewInstanceProfile',
      ['ec2:RunInstances', 'iam:CreateInstanceProfile', 'iam:AddRoleToInstanceProfile'],
      'ec2.amazonaws.com',
      'lambda.amazonaws.com',
    ],
  ];

  it.each(cases)(
    '%s reaches a passable administrator role, and through it the account',
    (primitive, actions, service) => {
      expect(
        edges({
          UserDetailList: [user(ME, [allow(['iam:PassRole', ...actions])])],
          RoleDetailList: [serviceAdmin([service])],
        }),
      ).toEqual([`${ME} -> service-admin [${primitive}] 0.9`, `service-admin -> ${ADMIN} [full-admin] 1`]);
    },
  );

  it.each(cases)(
    '%s twins: a role the service may not assume; PassRole on another role; a Deny on PassRole',
    (_p, actions, service, other) => {
      const only = (statements: ReturnType<typeof allow>[], roles = [serviceAdmin([service])]) =>
        edges({ UserDetailList: [user(ME, statements)], RoleDetailList: roles }).filter((e) =>
          e.startsWith(ME),
        );
      expect(only([allow(['iam:PassRole', ...actions])], [serviceAdmin([other])])).toEqual([]);
      expect(only([allow(actions), allow('iam:PassRole', arn('role', 'some-other-role'))])).toEqual([]);
      expect(only([allow(['iam:PassRole', ...actions]), deny('iam:PassRole')])).toEqual([]);
      // without the launching action, PassRole alone is nothing
      expect(only([allow('iam:PassRole')])).toEqual([]);
    },
  );

  it('iam:PassedToService is understood: it scopes the grant to its service', () => {
    const passTo = (service: string) =>
      allow('iam:PassRole', '*', { Condition: { StringEquals: { 'iam:PassedToService': service } } });
    const doc = (service: string) => ({
      UserDetailList: [
        user(ME, [passTo(service), allow(['lambda:CreateFunction', 'lambda:InvokeFunction'])]),
      ],
      RoleDetailList: [serviceAdmin(['lambda.amazonaws.com'])],
    });
    expect(edges(doc('lambda.amazonaws.com'))).toContain(`${ME} -> service-admin [PassRole+Lambda] 0.9`);
    expect(edges(doc('ec2.amazonaws.com')).filter((e) => e.startsWith(ME))).toEqual([]);
  });

  it('a passable role that is not an administrator is reached, not the account', () => {
    expect(
      edges({
        UserDetailList: [
          user(ME, [allow(['iam:PassRole', 'lambda:CreateFunction', 'lambda:InvokeFunction'])]),
        ],
        RoleDetailList: [role('worker', { Service: 'lambda.amazonaws.com' }, [allow('s3:GetObject')])],
      }),
    ).toEqual([`${ME} -> worker [PassRole+Lambda] 0.9`]);
  });
});

describe('reaching code or hosts that run as a role', () => {
  const profiled = (name: string) =>
    serviceAdmin(['ec2.amazonaws.com'], name, {
      InstanceProfileList: [
        { InstanceProfileName: `${name}-profile`, Arn: arn('instance-profile', `${name}-profile`) },
      ],
    });

  it.each([
    ['lambda:UpdateFunctionCode', 'UpdateFunctionCode', serviceAdmin(['lambda.amazonaws.com'])],
    ['ssm:SendCommand', 'SendCommand', profiled('service-admin')],
    ['ssm:StartSession', 'StartSession', profiled('service-admin')],
    ['ec2-instance-connect:SendSSHPublicKey', 'EC2InstanceConnect', profiled('service-admin')],
  ])('%s reaches the role; twin: a Deny covering the action', (action, primitive, target) => {
    // No inventory of the resource it needs: conditional (catalogue.test.ts has the inventoried cases).
    expect(edges({ UserDetailList: [user(ME, [allow(action)])], RoleDetailList: [target] })).toEqual([
      `${ME} -> service-admin [${primitive}] 0.45`,
      `service-admin -> ${ADMIN} [full-admin] 1`,
    ]);
    const [service] = action.split(':');
    expect(
      edges({ UserDetailList: [user(ME, [allow(action), deny(`${service}:*`)])], RoleDetailList: [target] }),
    ).toEqual([`service-admin -> ${ADMIN} [full-admin] 1`]);
  });
});

it('every primitive cites the method it implements, and each is tested above', () => {
  for (const primitive of ESCALATION_PRIMITIVES) expect(primitive.method).toMatch(/Rhino|PMapper|Pacu/);
  expect(ESCALATION_PRIMITIVES.map((p) => p.name).sort()).toEqual(
    [
      'full-admin',
      'CreatePolicyVersion',
      'SetDefaultPolicyVersion',
      'AttachUserPolicy',
      'AttachGroupPolicy',
      'AttachRolePolicy',
      'PutUserPolicy',
      'PutGroupPolicy',
      'PutRolePolicy',
      'AddUserToGroup',
      'DeleteUserPermissionsBoundary',
      'DeleteRolePermissionsBoundary',
      'CreateAccessKey',
      'CreateLoginProfile',
      'UpdateLoginProfile',
      'UpdateAssumeRolePolicy',
      'PassRole+EC2',
      'PassRole+Lambda',
      'PassRole+LambdaEventSource',
      'PassRole+Glue',
      'PassRole+CloudFormation',
      'PassRole+ECS',
      'PassRole+CodeBuild',
      'PassRole+SageMaker',
      'UpdateFunctionCode',
      'SendCommand',
      'StartSession',
      'EC2InstanceConnect',
      'PassRole+DataPipeline',
      'UpdateDevEndpoint',
      'PassRole+CodeStar',
      'CreateProjectFromTemplate',
      'PassRole+LambdaAddPermission',
      'UpdateFunctionConfiguration',
      'PassRole+UpdateFunctionConfiguration',
      'CreatePresignedNotebookInstanceUrl',
      'PassRole+AutoScaling',
      'UpdateStack',
      'ChangeSet',
      'UpdateProject',
      'PassRole+EC2NewInstanceProfile',
    ].sort(),
  );
});
