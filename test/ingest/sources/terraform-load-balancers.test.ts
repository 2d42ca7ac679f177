// Tiers a Terraform plan wires together (src/ingest/sources/terraform.ts): an internet-facing load balancer's
// listeners forward to target groups whose attachments register instances, so the balancer ROUTES_TO each of
// them, in a plan (new resources joined by the configuration's references) and in a state (by ARNs and ids);
// an instance whose group a database's group admits CONNECTS_TO the database. Twins: a target group no
// listener forwards to, a redirecting listener, nothing registered, a database admitting another group.
import { describe, expect, it } from 'vitest';
import { createTerraformSource } from '../../../src/ingest/sources/terraform.js';
import { normalize } from '../../helpers/normalize.js';
import { ACCOUNT, plan, res } from '../../helpers/terraform-plan.js';
import { makeService } from '../../helpers/service.js';

const terraform = createTerraformSource();
const LB_ARN = `arn:aws:elasticloadbalancing:us-east-1:${ACCOUNT}:loadbalancer/app/web/50dc6c495c0c9188`;
const TG_ARN = `arn:aws:elasticloadbalancing:us-east-1:${ACCOUNT}:targetgroup/app/73e2d6bc24d8a067`;

/** A private instance whose role may do anything, behind an internet-facing ALB (all new: references). */
function newStack(options: { action?: Record<string, unknown>; attach?: boolean; forwarded?: boolean } = {}) {
  const resources = [
    res('aws_lb.web', { name: 'web', internal: false, load_balancer_type: 'application' }),
    res('aws_lb_target_group.app', { name: 'app', port: 8080, protocol: 'HTTP', target_type: 'instance' }),
    res('aws_lb_listener.http', {
      port: 80,
      protocol: 'HTTP',
      default_action: [options.action ?? { type: 'forward' }],
    }),
    res('aws_instance.app', {
      instance_type: 't3.micro',
      tags: { Name: 'app-1' },
      iam_instance_profile: 'app',
    }),
    res('aws_iam_instance_profile.app', { name: 'app', role: 'app' }),
    res('aws_iam_role.app', {
      name: 'app',
      assume_role_policy: JSON.stringify({
        Statement: [
          { Effect: 'Allow', Principal: { Service: 'ec2.amazonaws.com' }, Action: 'sts:AssumeRole' },
        ],
      }),
    }),
    res('aws_iam_role_policy_attachment.app', {
      role: 'app',
      policy_arn: 'arn:aws:iam::aws:policy/AdministratorAccess',
    }),
    ...(options.attach === false ? [] : [res('aws_lb_target_group_attachment.app', { port: 8080 })]),
  ];
  const configuration = {
    root_module: {
      resources: [
        {
          address: 'aws_lb_listener.http',
          expressions: {
            load_balancer_arn: { references: ['aws_lb.web.arn', 'aws_lb.web'] },
            default_action: [
              {
                target_group_arn: {
                  references:
                    options.forwarded === false
                      ? []
                      : ['aws_lb_target_group.app.arn', 'aws_lb_target_group.app'],
                },
              },
            ],
          },
        },
        {
          address: 'aws_lb_target_group_attachment.app',
          expressions: {
            target_group_arn: { references: ['aws_lb_target_group.app.arn', 'aws_lb_target_group.app'] },
            target_id: { references: ['aws_instance.app.id', 'aws_instance.app'] },
          },
        },
      ],
    },
  };
  return plan(resources, { configuration });
}

/** The app instance's group, the database's group, and a rule letting `admitted` reach the database. */
function tiers(admitted: 'aws_security_group.app' | 'aws_security_group.ops') {
  const stack = newStack();
  const resources = stack.planned_values.root_module.resources as Record<string, unknown>[];
  resources.push(
    res('aws_security_group.app', { name: 'app', ingress: [] }),
    res('aws_security_group.ops', { name: 'ops', ingress: [] }),
    res('aws_security_group.db', { name: 'db', ingress: [] }),
    res('aws_security_group_rule.db_in', {
      type: 'ingress',
      protocol: 'tcp',
      from_port: 5432,
      to_port: 5432,
    }),
    res('aws_db_instance.orders', {
      identifier: 'orders',
      engine: 'postgres',
      publicly_accessible: false,
      tags: { classification: 'pii' },
    }),
  );
  const configured = (stack as unknown as { configuration: { root_module: { resources: unknown[] } } })
    .configuration.root_module.resources;
  configured.push(
    {
      address: 'aws_instance.app',
      expressions: {
        vpc_security_group_ids: { references: ['aws_security_group.app.id', 'aws_security_group.app'] },
      },
    },
    {
      address: 'aws_db_instance.orders',
      expressions: {
        vpc_security_group_ids: { references: ['aws_security_group.db.id', 'aws_security_group.db'] },
      },
    },
    {
      address: 'aws_security_group_rule.db_in',
      expressions: {
        security_group_id: { references: ['aws_security_group.db.id', 'aws_security_group.db'] },
        source_security_group_id: { references: [`${admitted}.id`, admitted] },
      },
    },
  );
  return stack;
}

const routes = (body: unknown) => {
  const out = normalize(terraform, body, { account: ACCOUNT });
  const name = (id: string) => out.envelopes.flatMap((e) => e.nodes).find((n) => n.id === id)?.name;
  return out.envelopes
    .flatMap((e) => e.edges)
    .filter((e) => e.type === 'ROUTES_TO')
    .map((e) => `${name(e.from)} -> ${name(e.to)}`);
};

describe('terraform: load balancers and their targets', () => {
  it('in a plan, the listener forwards through the target group to the registered instance', () => {
    expect(routes(newStack())).toEqual([`${ACCOUNT}/web -> ${ACCOUNT}/app-1`]);
  });

  it('in a state, by the ARNs and ids it holds, a weighted forward block included', () => {
    const body = {
      format_version: '1.0',
      values: {
        root_module: {
          resources: [
            res('aws_lb.web', { name: 'web', internal: false, arn: LB_ARN, id: LB_ARN }),
            res('aws_lb_target_group.app', { name: 'app', arn: TG_ARN, id: TG_ARN }),
            res('aws_lb_listener.https', {
              load_balancer_arn: LB_ARN,
              default_action: [
                {
                  type: 'forward',
                  target_group_arn: '',
                  forward: [{ target_group: [{ arn: TG_ARN, weight: 100 }] }],
                },
              ],
            }),
            res('aws_instance.app', { id: 'i-0abc1234def567890', tags: { Name: 'app-1' }, public_ip: '' }),
            res('aws_lb_target_group_attachment.app', {
              target_group_arn: TG_ARN,
              target_id: 'i-0abc1234def567890',
            }),
          ],
        },
      },
    };
    expect(routes(body)).toEqual([`${ACCOUNT}/web -> ${ACCOUNT}/app-1`]);
  });

  it('twins: no listener forwards to the group, the listener redirects, or nothing is registered', () => {
    expect(routes(newStack({ forwarded: false }))).toEqual([]);
    expect(
      routes(newStack({ action: { type: 'redirect', redirect: [{ protocol: 'HTTPS', port: '443' }] } })),
    ).toEqual([]);
    expect(routes(newStack({ attach: false }))).toEqual([]);
  });

  it('through the service, three tiers are one route: balancer, app instance, the crown-jewel database', async () => {
    const service = await makeService();
    try {
      const posted = await service.ingest(tiers('aws_security_group.app'), {
        source: 'terraform',
        query: `account=${ACCOUNT}`,
      });
      expect(posted.status, JSON.stringify(posted.json)).toBe(202);
      await service.settle();
      const { attackPaths } = await service.graphql('{ attackPaths { nodes { name } } }');
      expect(
        (attackPaths as { nodes: { name: string }[] }[]).map((p) => p.nodes.map((n) => n.name)),
      ).toContainEqual([`${ACCOUNT}/web`, `${ACCOUNT}/app-1`, `${ACCOUNT}/orders`]);
    } finally {
      await service.dispose();
    }
  });

  it('through the service, the private instance behind the balancer is on a route to its administrator role', async () => {
    const service = await makeService();
    try {
      const posted = await service.ingest(newStack(), { source: 'terraform', query: `account=${ACCOUNT}` });
      expect(posted.status, JSON.stringify(posted.json)).toBe(202);
      await service.settle();
      const { attackPaths } = await service.graphql('{ attackPaths { nodes { name } } }');
      const routed = (attackPaths as { nodes: { name: string }[] }[]).map((p) => p.nodes.map((n) => n.name));
      expect(routed).toContainEqual(expect.arrayContaining([`${ACCOUNT}/web`, `${ACCOUNT}/app-1`]));
      const fromBalancer = routed.find((r) => r[0] === `${ACCOUNT}/web`)!;
      expect(fromBalancer[1]).toBe(`${ACCOUNT}/app-1`);
      // The instance's role holds AdministratorAccess: a crown jewel, the route's end.
      expect(fromBalancer.at(-1)).toBe(`${ACCOUNT}/app`);
    } finally {
      await service.dispose();
    }
  });

  it('three tiers: the balancer, the app instance, and the database its group admits (twin: a group it does not)', () => {
    const connects = (body: unknown) => {
      const out = normalize(terraform, body, { account: ACCOUNT });
      const name = (id: string) => out.envelopes.flatMap((e) => e.nodes).find((n) => n.id === id)?.name;
      return out.envelopes
        .flatMap((e) => e.edges)
        .filter((e) => e.type === 'CONNECTS_TO')
        .map((e) => `${name(e.from)} -> ${name(e.to)} (${e.properties?.via})`);
    };
    expect(connects(tiers('aws_security_group.app'))).toEqual([
      `${ACCOUNT}/app-1 -> ${ACCOUNT}/orders (aws_security_group.app->aws_security_group.db)`,
    ]);
    expect(connects(tiers('aws_security_group.ops'))).toEqual([]);
  });
});
