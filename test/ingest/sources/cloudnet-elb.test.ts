// cloudnet's load balancers (the `aws elbv2 describe-*` shapes, as the clouda connector pulls them): the
// real recordings' balancers and instances, joined through target groups: a balancer ROUTES_TO the
// instances registered in the groups it forwards to, and to nothing else.
import { describe, expect, it } from 'vitest';
import { createCloudnetSource } from '../../../src/ingest/sources/cloudnet.js';
import { normalize } from '../../helpers/normalize.js';
import { placebo } from '../../helpers/placebo.js';

const cloudnet = createCloudnetSource();
const ACCOUNT = '644160558196';
const balancers = placebo('custodian/test_appelb_delete_listener')[
  'elasticloadbalancing.DescribeLoadBalancers_1'
].LoadBalancers as { LoadBalancerArn: string; LoadBalancerName: string }[];
const instances = placebo('awsnet/ec2_igw_subnet')['ec2.DescribeInstances_1'];
const [foundry, testing1] = balancers;
const group = (name: string, lbs: string[]) => ({
  TargetGroupArn: `arn:aws:elasticloadbalancing:us-east-1:${ACCOUNT}:targetgroup/${name}/0123456789abcdef`,
  TargetGroupName: name,
  TargetType: 'instance',
  LoadBalancerArns: lbs,
});
const health = (name: string, targets: [string, string?][]) => ({
  TargetGroupArn: group(name, []).TargetGroupArn,
  TargetHealthDescriptions: targets.map(([Id, State = 'healthy']) => ({
    Target: { Id, Port: 80 },
    TargetHealth: { State },
  })),
});

function body(extra: Record<string, unknown>) {
  return { provider: 'aws', instances, load_balancers: { LoadBalancers: balancers }, ...extra };
}

describe('cloudnet: load balancers', () => {
  it('names each balancer as custodian does, exposed when internet-facing, with its listeners', () => {
    const out = normalize(
      cloudnet,
      body({
        listeners: [
          { LoadBalancerArn: foundry.LoadBalancerArn, Protocol: 'HTTPS', Port: 443 },
          { LoadBalancerArn: foundry.LoadBalancerArn, Protocol: 'HTTP', Port: 80 },
        ],
      }),
    );
    expect(out.names('LoadBalancer')).toEqual(
      balancers.map((b) => `${ACCOUNT}/${b.LoadBalancerName}`).sort(),
    );
    expect(out.node('LoadBalancer', `${ACCOUNT}/${foundry.LoadBalancerName}`).properties).toMatchObject({
      internet_exposed: true,
      exposure_basis: 'scheme:internet-facing',
      account: ACCOUNT,
      listeners: ['HTTP:80', 'HTTPS:443'],
    });
  });

  it('routes a balancer to the instances registered in the groups it forwards to', () => {
    const out = normalize(
      cloudnet,
      body({
        target_groups: { TargetGroups: [group('web', [foundry.LoadBalancerArn])] },
        target_health: [health('web', [['i-07b1657fdb879c149'], ['i-08d26c9b0862f70c8']])],
      }),
    );
    expect(out.edges.filter((e) => e.startsWith('ROUTES_TO'))).toEqual([
      `ROUTES_TO ${ACCOUNT}/alb-policy-foundry -> ${ACCOUNT}/i-07b1657fdb879c149`,
      `ROUTES_TO ${ACCOUNT}/alb-policy-foundry -> ${ACCOUNT}/i-08d26c9b0862f70c8`,
    ]);
    expect(
      out.edgeProps('ROUTES_TO', `${ACCOUNT}/alb-policy-foundry`, `${ACCOUNT}/i-07b1657fdb879c149`),
    ).toMatchObject({ target_group: 'web', port: 80 });
  });

  it('twins: a group no balancer forwards to, an unused target, an IP and an undescribed instance route nowhere', () => {
    const out = normalize(
      cloudnet,
      body({
        target_groups: [group('idle', []), group('web', [testing1.LoadBalancerArn])],
        target_health: [
          health('idle', [['i-07b1657fdb879c149']]),
          health('web', [['i-08d26c9b0862f70c8', 'unused'], ['10.0.0.7'], ['i-0000000000000dead']]),
        ],
      }),
    );
    expect(out.edges.filter((e) => e.startsWith('ROUTES_TO'))).toEqual([]);
    expect(out.warnings.join('\n')).toContain('i-0000000000000dead');
  });
});
