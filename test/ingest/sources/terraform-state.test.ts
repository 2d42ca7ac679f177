// Raw Terraform states (`terraform.tfstate`, format version 4; src/ingest/sources/terraform-state.ts) read as
// `terraform show -json` prints them: the same nodes as the JSON of the same state, modules nested by their
// address, sensitive attributes dropped; real states of inframap's tests (fixtures/unseen/terraform,
// SOURCES.md) as they are; a version 3 state refused by name.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readReport, recognizeReport } from '../../../src/ingest/recognize.js';
import { showJsonOfRawState } from '../../../src/ingest/sources/terraform-state.js';
import { createTerraformSource } from '../../../src/ingest/sources/terraform.js';
import { normalize, rejection } from '../../helpers/normalize.js';

const terraform = createTerraformSource();
const ACCOUNT = '111122223333';
const unseen = (file: string) =>
  readReport(readFileSync(new URL(`../../../fixtures/unseen/terraform/${file}`, import.meta.url), 'utf8'))
    .body;

const OPEN_SSH = {
  id: 'sg-0a1b2c3d',
  name: 'ssh',
  vpc_id: 'vpc-1',
  ingress: [{ from_port: 22, to_port: 22, protocol: 'tcp', cidr_blocks: ['0.0.0.0/0'] }],
  egress: [],
};
const WEB = {
  id: 'i-0123456789abcdef0',
  public_ip: '203.0.113.7',
  vpc_security_group_ids: ['sg-0a1b2c3d'],
  subnet_id: 'subnet-1',
  availability_zone: 'eu-west-1a',
  arn: `arn:aws:ec2:eu-west-1:${ACCOUNT}:instance/i-0123456789abcdef0`,
  tags: { Name: 'web' },
};
/** The same two resources, as a raw state and as `terraform show -json` prints that state. */
const raw = {
  version: 4,
  terraform_version: '1.9.8',
  serial: 12,
  lineage: '5f1e8d2c-0000-4000-8000-000000000000',
  outputs: {},
  resources: [
    {
      mode: 'managed',
      type: 'aws_security_group',
      name: 'ssh',
      provider: 'provider["registry.terraform.io/hashicorp/aws"]',
      instances: [{ schema_version: 1, attributes: OPEN_SSH, sensitive_attributes: [] }],
    },
    {
      module: 'module.app',
      mode: 'managed',
      type: 'aws_instance',
      name: 'web',
      provider: 'provider["registry.terraform.io/hashicorp/aws"]',
      instances: [{ index_key: 0, schema_version: 1, attributes: WEB, sensitive_attributes: [] }],
    },
  ],
};
const shown = {
  format_version: '1.0',
  terraform_version: '1.9.8',
  values: {
    root_module: {
      resources: [
        {
          address: 'aws_security_group.ssh',
          mode: 'managed',
          type: 'aws_security_group',
          name: 'ssh',
          values: OPEN_SSH,
        },
      ],
      child_modules: [
        {
          address: 'module.app',
          resources: [
            {
              address: 'module.app.aws_instance.web[0]',
              mode: 'managed',
              type: 'aws_instance',
              name: 'web',
              index: 0,
              values: WEB,
            },
          ],
        },
      ],
    },
  },
};

describe('raw Terraform states', () => {
  it('give the nodes and edges `terraform show -json` of the same state gives', () => {
    const fromRaw = normalize(terraform, raw);
    expect(fromRaw.envelopes).toEqual(normalize(terraform, shown).envelopes);
    expect(fromRaw.node('VirtualMachine', `${ACCOUNT}/web`).properties).toMatchObject({
      internet_exposed: true,
      terraform_address: 'module.app.aws_instance.web[0]',
    });
    expect(recognizeReport(raw)).toBe('terraform');
  });

  it('drop what the state marks sensitive; twin: the other attributes are kept', () => {
    const state = structuredClone(raw);
    Object.assign(state.resources[1].instances[0], {
      attributes: { ...WEB, user_data: 'export DB_PASSWORD=s3cr3t-Pa55' },
      sensitive_attributes: [[{ type: 'get_attr', value: 'user_data' }]],
    });
    const values = JSON.stringify(showJsonOfRawState(state));
    expect(values).not.toContain('s3cr3t-Pa55');
    expect(values).toContain('203.0.113.7');
    // One step written alone, as later Terraform versions may write a path.
    state.resources[1].instances[0].sensitive_attributes = [
      { type: 'get_attr', value: 'user_data' },
    ] as never;
    expect(JSON.stringify(showJsonOfRawState(state))).not.toContain('s3cr3t-Pa55');
  });

  it("inframap's Terraform 0.15 state: every instance of nested and counted modules, named by its id", () => {
    const out = normalize(terraform, unseen('inframap-repeated_modules.tfstate'));
    const addresses = out.nodes
      .filter((n) => n.label === 'VirtualMachine')
      .map((n) => n.properties?.terraform_address)
      .sort();
    expect(addresses).toEqual([
      'module.ec2_openvpn.module.ec2_bastion.aws_instance.this[0]',
      'module.ec2_redhat_a.aws_instance.this[0]',
      'module.ec2_redhat_b.aws_instance.this[0]',
      'module.ec2_ubuntu_a[0].aws_instance.this[0]',
      'module.ec2_ubuntu_a[1].aws_instance.this[0]',
      'module.ec2_ubuntu_b[0].aws_instance.this[0]',
      'module.ec2_ubuntu_b[1].aws_instance.this[0]',
    ]);
    expect(out.names('VirtualMachine').every((n) => /^i-[0-9a-f]{17}$/.test(n))).toBe(true);
  });

  it("inframap's Terraform 0.12 state: a module's instance with its security group rules", () => {
    const out = normalize(terraform, unseen('inframap-aws_state_sgr.tfstate'));
    expect(out.node('VirtualMachine', 'i-08ffccfdf54168280').properties).toMatchObject({
      terraform_address: 'module.magento.aws_instance.TObJL[0]',
    });
  });

  it('a version 3 state (Terraform 0.11) is refused by name, saying what to run', () => {
    const [error] = rejection(terraform, unseen('inframap-version_3_state.tfstate'));
    expect(error).toMatchObject({ pointer: '/version', value: 3 });
    expect(error.detail).toContain('terraform state pull');
  });
});
