// Elastic IPs in a Terraform plan or state (src/ingest/sources/terraform.ts, `elasticIpOf`): an instance
// with no public address of its own is reachable from the internet through the Elastic IP associated with
// it (`aws_eip.instance`, `aws_eip_association`), named or by reference; twins: an Elastic IP of another
// instance, or of none, exposes nothing.
import { describe, expect, it } from 'vitest';
import { createTerraformSource } from '../../../src/ingest/sources/terraform.js';
import { normalize } from '../../helpers/normalize.js';
import { ACCOUNT, res } from '../../helpers/terraform-plan.js';

const terraform = createTerraformSource();
const OPEN = res('aws_security_group.ssh', {
  name: 'ssh',
  ingress: [{ from_port: 22, to_port: 22, protocol: 'tcp', cidr_blocks: ['0.0.0.0/0'] }],
  egress: [],
});
/** Two private instances in the open group; `extra` resources, and references known only after apply. */
const plan = (extra: unknown[], references: Record<string, Record<string, string[]>> = {}) => ({
  format_version: '1.2',
  planned_values: {
    root_module: {
      resources: [
        OPEN,
        res('aws_instance.vpn', { tags: { Name: 'vpn' }, associate_public_ip_address: false }),
        res('aws_instance.db', { tags: { Name: 'db' }, associate_public_ip_address: false }),
        ...extra,
      ],
    },
  },
  configuration: {
    root_module: {
      resources: [
        ...['aws_instance.vpn', 'aws_instance.db'].map((address) => ({
          address,
          expressions: {
            vpc_security_group_ids: { references: ['aws_security_group.ssh.id', 'aws_security_group.ssh'] },
          },
        })),
        ...Object.entries(references).map(([address, attributes]) => ({
          address,
          expressions: Object.fromEntries(
            Object.entries(attributes).map(([attribute, refs]) => [attribute, { references: refs }]),
          ),
        })),
      ],
    },
  },
});
const exposed = (body: unknown) =>
  normalize(terraform, body, { account: ACCOUNT })
    .nodes.filter((n) => n.label === 'VirtualMachine' && n.properties?.internet_exposed === true)
    .map((n) => n.name);

describe('terraform: Elastic IPs', () => {
  it('an aws_eip naming its instance by reference exposes that instance alone', () => {
    const body = plan([res('aws_eip.vpn', { domain: 'vpc' })], {
      'aws_eip.vpn': { instance: ['aws_instance.vpn.id', 'aws_instance.vpn'] },
    });
    expect(exposed(body)).toEqual([`${ACCOUNT}/vpn`]);
  });

  it('an aws_eip_association does too', () => {
    const body = plan([res('aws_eip.vpn', { domain: 'vpc' }), res('aws_eip_association.vpn', {})], {
      'aws_eip_association.vpn': {
        instance_id: ['aws_instance.vpn.id', 'aws_instance.vpn'],
        allocation_id: ['aws_eip.vpn.id', 'aws_eip.vpn'],
      },
    });
    expect(exposed(body)).toEqual([`${ACCOUNT}/vpn`]);
  });

  it('twin: an Elastic IP of no instance (a NAT gateway’s) exposes none', () => {
    expect(exposed(plan([res('aws_eip.nat', { domain: 'vpc' })]))).toEqual([]);
  });
});
