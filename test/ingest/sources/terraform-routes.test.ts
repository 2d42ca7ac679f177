// Routes in a Terraform plan or state (src/ingest/sources/terraform.ts, `internetRoute`): an instance with a
// public address in an open group is reachable from the internet only when its subnet's route table sends
// 0.0.0.0/0 to an internet gateway (the subnet's own table, else its VPC's main one). Twins: a table of
// local routes only, a NAT gateway's default route, a VPC's untouched main table close it; a subnet or a
// route the plan cannot tell leaves the instance exposed, as before.
import { describe, expect, it } from 'vitest';
import { createTerraformSource } from '../../../src/ingest/sources/terraform.js';
import { normalize } from '../../helpers/normalize.js';
import { ACCOUNT, res } from '../../helpers/terraform-plan.js';

const terraform = createTerraformSource();
const OPEN = res('aws_security_group.web', {
  id: 'sg-1',
  name: 'web',
  ingress: [{ from_port: 443, to_port: 443, protocol: 'tcp', cidr_blocks: ['0.0.0.0/0'] }],
  egress: [],
});
const VPC = res('aws_vpc.main', { id: 'vpc-1', default_route_table_id: 'rtb-main' });
const SUBNET = res('aws_subnet.web', { id: 'subnet-1', vpc_id: 'vpc-1' });
const WEB = res('aws_instance.web', {
  id: 'i-0123456789abcdef0',
  public_ip: '203.0.113.7',
  subnet_id: 'subnet-1',
  vpc_security_group_ids: ['sg-1'],
  tags: { Name: 'web' },
});
const table = (routes: Record<string, unknown>[]) =>
  res('aws_route_table.web', { id: 'rtb-1', vpc_id: 'vpc-1', route: routes });
const ASSOCIATION = res('aws_route_table_association.web', {
  subnet_id: 'subnet-1',
  route_table_id: 'rtb-1',
});
const plan = (resources: unknown[], references: Record<string, Record<string, unknown>> = {}) => ({
  format_version: '1.2',
  planned_values: { root_module: { resources: [OPEN, WEB, ...resources] } },
  configuration: {
    root_module: {
      resources: Object.entries(references).map(([address, expressions]) => ({ address, expressions })),
    },
  },
});
const web = (body: unknown) =>
  normalize(terraform, body, { account: ACCOUNT }).node('VirtualMachine', `${ACCOUNT}/web`).properties;

describe('terraform: routes to the internet', () => {
  it('a subnet whose table routes 0.0.0.0/0 to an internet gateway: the open instance is exposed', () => {
    const body = plan([VPC, SUBNET, ASSOCIATION, table([{ cidr_block: '0.0.0.0/0', gateway_id: 'igw-1' }])]);
    expect(web(body)).toMatchObject({ internet_exposed: true });
  });

  it('an aws_route to an internet gateway the plan creates, both by reference, counts too', () => {
    const body = plan(
      [
        VPC,
        SUBNET,
        ASSOCIATION,
        table([]),
        res('aws_internet_gateway.gw', { vpc_id: 'vpc-1' }),
        res('aws_route.out', { destination_cidr_block: '0.0.0.0/0' }),
      ],
      {
        'aws_route.out': {
          route_table_id: { references: ['aws_route_table.web.id', 'aws_route_table.web'] },
          gateway_id: { references: ['aws_internet_gateway.gw.id', 'aws_internet_gateway.gw'] },
        },
      },
    );
    expect(web(body)).toMatchObject({ internet_exposed: true });
  });

  it('twin: local routes only, or the default route to a NAT gateway: closed, and said why', () => {
    for (const routes of [[], [{ cidr_block: '0.0.0.0/0', nat_gateway_id: 'nat-1' }]])
      expect(web(plan([VPC, SUBNET, ASSOCIATION, table(routes)]))).toMatchObject({
        internet_exposed: false,
        exposure_basis: 'terraform:no-internet-route',
      });
  });

  it("twin: a subnet with no table of its own in a VPC of the plan uses the VPC's untouched main table", () => {
    expect(web(plan([VPC, SUBNET]))).toMatchObject({
      internet_exposed: false,
      exposure_basis: 'terraform:no-internet-route',
    });
    // The VPC's main table made to route out (aws_default_route_table) opens it again.
    const routedMain = res('aws_default_route_table.main', {
      id: 'rtb-main',
      default_route_table_id: 'rtb-main',
      route: [{ cidr_block: '0.0.0.0/0', gateway_id: 'igw-1' }],
    });
    expect(web(plan([VPC, SUBNET, routedMain]))).toMatchObject({ internet_exposed: true });
  });

  it('what the plan cannot tell leaves the instance exposed: a subnet it does not hold, a route known at apply', () => {
    expect(web(plan([]))).toMatchObject({ internet_exposed: true });
    const unknownTarget = table([{ cidr_block: '0.0.0.0/0', gateway_id: null }]);
    expect(web(plan([VPC, SUBNET, ASSOCIATION, unknownTarget]))).toMatchObject({ internet_exposed: true });
  });
});
