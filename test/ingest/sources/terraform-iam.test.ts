// The terraform source's IAM users and groups (src/ingest/sources/terraform.ts, `authorizationDetails`): a
// plan's `aws_iam_user` and `aws_iam_group`, their inline and attached policies and group memberships read
// by the iam rules as `aws iam get-account-authorization-details` would show them once applied, references
// by expression resolved. Each with a twin that must not escalate; then checkov's real IAM plan.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createTerraformSource } from '../../../src/ingest/sources/terraform.js';
import { normalize } from '../../helpers/normalize.js';
import { ACCOUNT, res } from '../../helpers/terraform-plan.js';

const terraform = createTerraformSource();
/** Resources, and the references Terraform records for attributes known only after apply. */
const plan = (resources: unknown[], references: Record<string, Record<string, string[]>> = {}) => ({
  format_version: '1.2',
  planned_values: { root_module: { resources } },
  configuration: {
    root_module: {
      resources: Object.entries(references).map(([address, attributes]) => ({
        address,
        expressions: Object.fromEntries(
          Object.entries(attributes).map(([attribute, refs]) => [attribute, { references: refs }]),
        ),
      })),
    },
  },
});
/** `iam:AttachUserPolicy` on every user: a user attaches any policy to itself (Rhino's method 8). */
const ESCALATES = JSON.stringify({
  Version: '2012-10-17',
  Statement: [{ Effect: 'Allow', Action: 'iam:AttachUserPolicy', Resource: '*' }],
});
const READS = JSON.stringify({
  Version: '2012-10-17',
  Statement: [{ Effect: 'Allow', Action: 's3:GetObject', Resource: '*' }],
});
const escalations = (body: unknown) =>
  normalize(terraform, body, { account: ACCOUNT }).edges.filter((e) =>
    e.endsWith('-> 111122223333/account-admin'),
  );

describe('terraform: IAM users and groups', () => {
  const users = [res('aws_iam_user.alice', { name: 'alice' }), res('aws_iam_user.bob', { name: 'bob' })];

  it("a group's inline policy is its members' (aws_iam_group_membership, users by reference)", () => {
    const body = plan(
      [
        ...users,
        res('aws_iam_group.ops', { name: 'ops' }),
        res('aws_iam_group_policy.ops', { group: 'ops', name: 'ops', policy: ESCALATES }),
        res('aws_iam_group_membership.ops', { name: 'ops', group: 'ops' }),
      ],
      { 'aws_iam_group_membership.ops': { users: ['aws_iam_user.alice.name', 'aws_iam_user.alice'] } },
    );
    // Twin: bob is in no group.
    expect(escalations(body)).toEqual([`CAN_ESCALATE_TO ${ACCOUNT}/alice -> ${ACCOUNT}/account-admin`]);
  });

  it("aws_iam_user_group_membership gives a user its groups' managed policies", () => {
    const body = plan(
      [
        ...users,
        res('aws_iam_group.ops', { name: 'ops' }),
        res('aws_iam_policy.rotate', { name: 'rotate', policy: ESCALATES }),
        res('aws_iam_group_policy_attachment.ops', { group: 'ops' }),
        res('aws_iam_user_group_membership.bob', { user: 'bob', groups: ['ops'] }),
      ],
      {
        'aws_iam_group_policy_attachment.ops': {
          policy_arn: ['aws_iam_policy.rotate.arn', 'aws_iam_policy.rotate'],
        },
      },
    );
    expect(escalations(body)).toEqual([`CAN_ESCALATE_TO ${ACCOUNT}/bob -> ${ACCOUNT}/account-admin`]);
  });

  /** Alice's inline policy, and the managed `rotate` attached exclusively to `attachedTo`. */
  const userPolicies = (inline: string, attachedTo: string) =>
    plan([
      ...users,
      res('aws_iam_user_policy.alice', { user: 'alice', name: 'inline', policy: inline }),
      res('aws_iam_policy.rotate', {
        name: 'rotate',
        arn: `arn:aws:iam::${ACCOUNT}:policy/rotate`,
        policy: ESCALATES,
      }),
      res('aws_iam_policy_attachment.rotate', {
        name: 'rotate',
        policy_arn: `arn:aws:iam::${ACCOUNT}:policy/rotate`,
        users: [attachedTo],
        roles: [],
        groups: [],
      }),
    ]);

  it('a user policy and an exclusive policy attachment are the users they name', () => {
    const body = userPolicies(ESCALATES, 'bob');
    expect(escalations(body).sort()).toEqual([
      `CAN_ESCALATE_TO ${ACCOUNT}/alice -> ${ACCOUNT}/account-admin`,
      `CAN_ESCALATE_TO ${ACCOUNT}/bob -> ${ACCOUNT}/account-admin`,
    ]);
  });

  it('twin: a policy that grants no primitive, or attached to another user, escalates nobody', () => {
    const body = userPolicies(READS, 'carol');
    expect(escalations(body)).toEqual([]);
    expect(normalize(terraform, body, { account: ACCOUNT }).names('User').sort()).toEqual([
      `${ACCOUNT}/alice`,
      `${ACCOUNT}/bob`,
    ]);
  });
});

describe("terraform: checkov's IAM plan (Terraform 1.1.5)", () => {
  it('its user with an inline `iam:*` escalates, as its role does; nothing is left unread', () => {
    const body = JSON.parse(
      readFileSync(
        new URL(
          '../../../fixtures/unseen/terraform/checkov-plan_with_iam_policies-tfplan.json',
          import.meta.url,
        ),
        'utf8',
      ),
    );
    const out = normalize(terraform, body);
    expect(out.edges.sort()).toEqual([
      // `iam:*` lets the role take over any user (a login profile, an access key): the user is one hop.
      'CAN_ESCALATE_TO aws_iam_role.example -> account-admin',
      'CAN_ESCALATE_TO aws_iam_role.example -> example',
      'CAN_ESCALATE_TO example -> account-admin',
    ]);
    expect(out.warnings).toEqual([]);
  });
});
