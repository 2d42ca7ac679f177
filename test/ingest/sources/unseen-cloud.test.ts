// Cloud reports the iam, cloudnet and terraform sources had not seen (fixtures/unseen/iam, awsnet and
// terraform; provenance in fixtures/unseen/SOURCES.md): CloudMapper's demo account as the AWS CLI prints
// it, Terraform plans from Terraform 0.12 (TerraGoat, format 0.1) to 1.14 (format 1.2), one written
// as UTF-16 by Windows PowerShell, and states (`terraform show -json` of no plan) of Terraform 0.12 and 0.14.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { decodeReportFile, readReport, recognizeReport } from '../../../src/ingest/recognize.js';
import { createCloudnetSource } from '../../../src/ingest/sources/cloudnet.js';
import { createIamSource } from '../../../src/ingest/sources/iam.js';
import { createTerraformSource } from '../../../src/ingest/sources/terraform.js';
import { normalize } from '../../helpers/normalize.js';

const file = (path: string, source: string): Record<string, unknown> => {
  const { body } = readReport(
    decodeReportFile(readFileSync(new URL(`../../../fixtures/unseen/${path}`, import.meta.url))),
  );
  expect(recognizeReport(body), path).toBe(source);
  return body as Record<string, unknown>;
};
const ACCOUNT = '123456789012';

describe('CloudMapper demo: aws iam get-account-authorization-details', () => {
  const out = normalize(
    createIamSource(),
    file('iam/cloudmapper-demo-iam-get-account-authorization-details.json', 'iam'),
  );

  it('every user and role, each in the account its ARN names', () => {
    // The demo's users carry the sanitised ARN `arn:aws:iam::aws:user/...`: their account is what it says.
    expect(out.names('User')).toEqual(['aws/USER', 'aws/USER_WITH_BAD_INLINE_POLICY']);
    expect(out.names('IAM_Role')).toEqual(
      ['account-admin', 'bad_role', 'exfiller', 'level1', 'level3'].map((r) => `${ACCOUNT}/${r}`),
    );
    expect(out.node('User', 'aws/USER').properties).toMatchObject({
      groups: ['GROUP_WITH_BAD_INLINE_POLICY'],
    });
    expect(out.node('IAM_Role', `${ACCOUNT}/level1`).properties).toMatchObject({
      trusted_services: ['lambda.amazonaws.com'],
    });
  });

  it('bad_role: anyone may assume it (trust `AWS: *`), and its inline policy is `*` on `*`', () => {
    expect(out.node('IAM_Role', `${ACCOUNT}/bad_role`).properties).toMatchObject({
      internet_exposed: true,
      public_access: true,
      exposure_basis: 'trust:*',
    });
    expect(out.edges).toEqual([`CAN_ESCALATE_TO ${ACCOUNT}/bad_role -> ${ACCOUNT}/account-admin`]);
    expect(out.edgeProps('CAN_ESCALATE_TO', `${ACCOUNT}/bad_role`, `${ACCOUNT}/account-admin`)).toMatchObject(
      {
        primitives: ['full-admin'],
      },
    );
  });
});

describe('CloudMapper demo: aws ec2 describe-* outputs', () => {
  const cloudnet = createCloudnetSource();
  // Read in each test, so that a file no longer recognised fails the tests that read it.
  const instances = () => file('awsnet/cloudmapper-demo-ec2-describe-instances.json', 'cloudnet');
  const groups = () => file('awsnet/cloudmapper-demo-ec2-describe-security-groups.json', 'cloudnet');
  const interfaces = () => file('awsnet/cloudmapper-demo-ec2-describe-network-interfaces.json', 'cloudnet');

  it('describe-instances alone: three instances named by their Name tags in one VPC', () => {
    const out = normalize(cloudnet, instances());
    expect(out.names('VirtualMachine')).toEqual(['Bastion', 'Web1', 'Web2'].map((n) => `${ACCOUNT}/${n}`));
    expect(out.node('VirtualMachine', `${ACCOUNT}/Bastion`).properties).toMatchObject({
      instance_id: 'i-00000000000000000',
      public_ip: '1.2.3.4',
    });
    expect(out.node('VirtualMachine', `${ACCOUNT}/Web1`).properties).toMatchObject({
      imds_tokens: 'optional',
    });
  });

  it('with the groups: the bastion reaches both web servers on 8000; none is open to the internet', () => {
    const out = normalize(cloudnet, { ...instances(), ...groups() });
    expect(out.edges.filter((e) => e.startsWith('CONNECTS_TO'))).toEqual([
      `CONNECTS_TO ${ACCOUNT}/Bastion -> ${ACCOUNT}/Web1`,
      `CONNECTS_TO ${ACCOUNT}/Bastion -> ${ACCOUNT}/Web2`,
    ]);
    // The bastion's SSH is open to two office ranges, not 0.0.0.0/0: a public address is not exposure.
    expect(out.nodes.filter((n) => n.properties?.internet_exposed)).toEqual([]);
  });

  it("describe-network-interfaces: the ECS task's public interface is said not read, not dropped", () => {
    const out = normalize(cloudnet, { ...groups(), ...interfaces() });
    expect(out.names('VirtualMachine')).toEqual([]);
    expect(out.warnings).toEqual([
      'cloudnet report: 1 network interface(s) attached to no instance not read (eni-00000001 interface public)',
    ]);
  });
});

describe('Terraform plans (trivy and checkov testdata)', () => {
  const terraform = createTerraformSource();

  it('TerraGoat (Terraform 0.12, format 0.1): both boxes take a public address from their subnet, SSH open', () => {
    const out = normalize(terraform, file('terraform/checkov-terragoat-tfplan.json', 'terraform'));
    for (const box of ['123456789123-acme-corp-dbapp', '123456789123-acme-corp-ec2'])
      expect(out.node('VirtualMachine', box).properties, box).toMatchObject({
        internet_exposed: true,
        exposure_basis: 'sg-open:tcp/22,tcp/80',
        public_ip: 'assigned-at-launch',
        region: 'us-west-2',
      });
    // The database box takes on its profile's role: no account is known, so no name is qualified.
    expect(out.edges).toContain('ASSUMES 123456789123-acme-corp-dbapp -> 123456789123-acme-corp-role');
    expect(out.nodes.filter((n) => n.name.includes('000000000000'))).toEqual([]);
    expect(out.names('Bucket')).toHaveLength(6);
    expect(out.node('Bucket', '123456789123-acme-corp-data').properties).toMatchObject({
      public_access: true,
      exposure_basis: 'acl:AllUsers:READ',
    });
    // Its database is publicly accessible: exposed as custodian reads an RDS instance (terraform-databases.test.ts).
    expect(out.node('Database', 'rds-123456789123-acme-corp').properties).toMatchObject({
      publicly_accessible: true,
      internet_exposed: true,
      exposure_basis: 'publicly-accessible',
      engine: 'mysql',
    });
    expect(out.warnings.join()).toMatch(/resource types not read: aws_db_option_group, /);
  });

  it("checkov's IAM plan: a role named only at apply is read, its inline `iam:*` an escalation", () => {
    const out = normalize(
      terraform,
      file('terraform/checkov-plan_with_iam_policies-tfplan.json', 'terraform'),
    );
    expect(out.edges).toContain('CAN_ESCALATE_TO aws_iam_role.example -> account-admin');
    expect(out.node('IAM_Role', 'aws_iam_role.example').properties).toMatchObject({
      trusted_services: ['lambda.amazonaws.com'],
    });
    // Its user and group are read too (test/ingest/sources/terraform-iam.test.ts).
    expect(out.warnings).toEqual([]);
  });

  it('a plan Windows PowerShell wrote as UTF-16 (Terraform 1.0.5): read like any other', () => {
    const out = normalize(
      terraform,
      file('terraform/checkov-plan_with_utf_16_encoding-tfplan.json', 'terraform'),
    );
    expect(out.names('Bucket')).toEqual(['test']);
    expect(out.node('Bucket', 'test').properties).toMatchObject({
      region: 'us-east-1',
      public_access: false,
    });
  });

  it('Terraform 1.0.3, format 0.2: its bucket read, private; what it does not read named', () => {
    const out = normalize(terraform, file('terraform/trivy-tfjson-plan.json', 'terraform'));
    expect(out.names('Bucket')).toEqual(['tfsec-plan-testing']);
    expect(out.node('Bucket', 'tfsec-plan-testing').properties).toMatchObject({
      internet_exposed: false,
      public_access: false,
      terraform_address: 'aws_s3_bucket.planbucket',
    });
    expect(out.warnings).toEqual([
      'terraform plan: resource types not read: aws_s3_bucket_server_side_encryption_configuration',
    ]);
  });

  it("Terraform 1.14, format 1.2: a module's bucket, in the provider's region", () => {
    const out = normalize(terraform, file('terraform/trivy-tfjson-module_call.json', 'terraform'));
    expect(out.names('Bucket')).toEqual(['test']);
    expect(out.node('Bucket', 'test').properties).toMatchObject({
      region: 'eu-west-1',
      terraform_address: 'module.s3_bucket.aws_s3_bucket.main',
    });
  });
});

describe('Terraform states (infracost testdata)', () => {
  const terraform = createTerraformSource();
  const STATE_ACCOUNT = '123123123123';
  // Six instances: the root module's and the module's `instance_named["test.1"]` both carry the Name tag
  // `test.1`, so each is named by its instance id (two machines, never one node).
  const boxes = (v: string) =>
    (v === '0.14'
      ? [
          'i-006a2b9921a31a669',
          'i-028fb30f2a816c289',
          'i-03a3b484a84308245',
          'i-0ec3a64e9a6965cfc',
          'i-0ee865cb954b344ff',
          'i-0aeeec88544779865',
        ]
      : [
          'i-05ebe1ab83dc32a98',
          'i-06d6717d48d1106c1',
          'i-070917f8380c257e2',
          'i-0832889cd515174aa',
          'i-039352e17d8229f4f',
          'i-0e27088fc1522ef74',
        ]
    ).map((id) => `${STATE_ACCOUNT}/${id}`);

  for (const v of ['0.12', '0.14'])
    it(`Terraform ${v}: the instances deployed, by id or Name tag, in the account and region of their ARNs`, () => {
      const out = normalize(terraform, file(`terraform/infracost-terraform_v${v}_state.json`, 'terraform'));
      expect(out.names('VirtualMachine').sort()).toEqual(boxes(v).sort());
      const root = out.nodes.find((n) => n.properties?.terraform_address === 'aws_instance.instance_1')!;
      expect(root.properties).toMatchObject({
        public_ip: '11.11.11.11',
        imds_tokens: 'optional',
        region: 'us-east-1',
        account: STATE_ACCOUNT,
      });
      expect(
        out.nodes
          .filter((n) => n.properties?.name_tag === 'test.1')
          .map((n) => n.properties?.terraform_address),
      ).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/instance_named/),
          expect.stringMatching(/module_instance_named/),
        ]),
      );
      // Their group (the default VPC's, sg-5277e14a) is not in the state: exposure is not stated either way.
      // The database's is: it is not publicly accessible.
      expect(
        out.nodes.filter((n) => n.properties?.internet_exposed !== undefined).map((n) => n.name),
      ).toEqual([`${STATE_ACCOUNT}/demodb`]);
      expect(out.node('Database', `${STATE_ACCOUNT}/demodb`).properties).toMatchObject({
        internet_exposed: false,
        exposure_basis: 'terraform:not-publicly-accessible',
        arn: `arn:aws:rds:us-east-1:${STATE_ACCOUNT}:db:demodb`,
      });
      // A module's resources, and those of count, keep their whole address (0.12 prints neither part).
      expect(out.nodes.map((n) => n.properties?.terraform_address)).toEqual(
        expect.arrayContaining([
          'aws_instance.instance_counted[0]',
          'module.instances.aws_instance.module_instance_1',
          'module.instances.aws_instance.module_instance_counted[0]',
        ]),
      );
      // The RDS module's monitoring role: trusted by RDS monitoring, an AWS managed policy attached, no escalation.
      expect(out.names('IAM_Role')).toEqual([`${STATE_ACCOUNT}/MyRDSMonitoringRole`]);
      expect(out.node('IAM_Role', `${STATE_ACCOUNT}/MyRDSMonitoringRole`).properties).toMatchObject({
        trusted_services: ['monitoring.rds.amazonaws.com'],
        managed_policies: ['arn:aws:iam::aws:policy/service-role/AmazonRDSEnhancedMonitoringRole'],
      });
      expect(out.edges).toEqual([]);
      expect(out.warnings).toEqual([
        `1 Name tag(s) carried by several instances, each of which is named by its instance id: "${STATE_ACCOUNT}/test.1"`,
        'terraform state: resource types not read: aws_db_option_group, aws_db_parameter_group, aws_db_subnet_group, aws_default_vpc',
      ]);
    });
});
