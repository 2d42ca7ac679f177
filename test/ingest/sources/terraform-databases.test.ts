// RDS databases in a Terraform plan or state: each instance (`aws_db_instance`, an Aurora cluster's
// `aws_rds_cluster_instance`) is the Database node custodian draws for it (same name, same id), exposed by
// `publicly_accessible` alone as custodian reads `PubliclyAccessible`, marked crown jewel by its tags (an
// Aurora instance by its cluster's too) or a sensitive-data name. A plan states it completely: one made
// private, or deleted, is stated closed. Real plans and states: TerraGoat (checkov), terraform-compliance's
// issue 401, infracost's Terraform 0.14 state (fixtures/unseen/SOURCES.md).
import { describe, expect, it } from 'vitest';
import { createCustodianSource } from '../../../src/ingest/sources/custodian.js';
import { createTerraformSource } from '../../../src/ingest/sources/terraform.js';
import { normalize } from '../../helpers/normalize.js';
import { ACCOUNT, plan, res, unseenPlan } from '../../helpers/terraform-plan.js';

const terraform = createTerraformSource();

describe('terraform databases', () => {
  it('a publicly accessible aws_db_instance is the Database custodian draws for it, exposed and tagged', () => {
    const db = res('aws_db_instance.orders', {
      identifier: 'orders',
      engine: 'postgres',
      publicly_accessible: true,
      tags: { classification: 'pii' },
    });
    const fromPlan = normalize(terraform, plan([db]), { account: ACCOUNT });
    const fromCustodian = normalize(createCustodianSource(), {
      provider: 'aws',
      account_id: ACCOUNT,
      policies: [
        {
          policy: 'rds',
          resource: 'aws.rds',
          resources: [
            {
              DBInstanceIdentifier: 'orders',
              PubliclyAccessible: true,
              TagList: [{ Key: 'classification', Value: 'pii' }],
            },
          ],
        },
      ],
    });
    const planned = fromPlan.node('Database', `${ACCOUNT}/orders`);
    expect(planned.id).toBe(fromCustodian.node('Database', `${ACCOUNT}/orders`).id);
    expect(planned.properties).toMatchObject({
      publicly_accessible: true,
      internet_exposed: true,
      exposure_basis: 'publicly-accessible',
      crown_jewel: true,
      crown_jewel_basis: 'tag:classification=pii',
      engine: 'postgres',
      terraform_address: 'aws_db_instance.orders',
    });
  });

  it('a private one, or one the plan deletes, is stated closed (a plan that closes the route is seen closing it)', () => {
    const closed = normalize(
      terraform,
      plan([res('aws_db_instance.orders', { identifier: 'orders', publicly_accessible: false })], {
        resource_changes: [
          {
            address: 'aws_db_instance.old',
            mode: 'managed',
            type: 'aws_db_instance',
            name: 'old',
            change: {
              actions: ['delete'],
              before: { identifier: 'old', publicly_accessible: true },
              after: null,
            },
          },
        ],
      }),
      { account: ACCOUNT },
    );
    expect(closed.node('Database', `${ACCOUNT}/orders`).properties).toMatchObject({
      publicly_accessible: false,
      internet_exposed: false,
      exposure_basis: 'terraform:not-publicly-accessible',
    });
    expect(closed.node('Database', `${ACCOUNT}/old`).properties).toMatchObject({
      internet_exposed: false,
      exposure_basis: 'terraform:deleted',
    });
    // Security groups do not decide a database's exposure (custodian reads PubliclyAccessible alone).
    const grouped = normalize(
      terraform,
      plan([
        res('aws_security_group.open', {
          id: 'sg-open',
          ingress: [{ protocol: 'tcp', from_port: 5432, to_port: 5432, cidr_blocks: ['0.0.0.0/0'] }],
        }),
        res('aws_db_instance.orders', {
          identifier: 'orders',
          publicly_accessible: false,
          vpc_security_group_ids: ['sg-open'],
        }),
      ]),
      { account: ACCOUNT },
    );
    expect(grouped.node('Database', `${ACCOUNT}/orders`).properties?.internet_exposed).toBe(false);
  });

  it("an Aurora cluster's instances, each by its identifier, marked by the cluster's tags or name", () => {
    const body = {
      format_version: '1.2',
      planned_values: {
        root_module: {
          resources: [
            res('aws_rds_cluster.payments', {
              cluster_identifier: 'payments',
              engine: 'aurora-postgresql',
              tags: { 'data-classification': 'restricted' },
            }),
            res('aws_rds_cluster_instance.writer', { identifier: 'payments-1', publicly_accessible: true }),
            res('aws_rds_cluster_instance.reader', {
              identifier: 'payments-2',
              publicly_accessible: false,
              tags: { 'data-classification': 'internal' },
            }),
            res('aws_rds_cluster.metrics', { cluster_identifier: 'metrics' }),
          ],
        },
      },
      resource_changes: [],
      // The instances name their cluster by reference (its id is known only after apply).
      configuration: {
        root_module: {
          resources: ['writer', 'reader'].map((name) => ({
            address: `aws_rds_cluster_instance.${name}`,
            expressions: {
              cluster_identifier: { references: ['aws_rds_cluster.payments.id', 'aws_rds_cluster.payments'] },
            },
          })),
        },
      },
    };
    const out = normalize(terraform, body, { account: ACCOUNT });
    expect(out.names('Database').sort()).toEqual([`${ACCOUNT}/payments-1`, `${ACCOUNT}/payments-2`]);
    expect(out.node('Database', `${ACCOUNT}/payments-1`).properties).toMatchObject({
      internet_exposed: true,
      db_cluster: 'payments',
      engine: 'aurora-postgresql',
      crown_jewel: true,
      crown_jewel_basis: 'tag:data-classification=restricted',
    });
    // Its own tag says otherwise, and wins.
    expect(out.node('Database', `${ACCOUNT}/payments-2`).properties).toMatchObject({
      internet_exposed: false,
      crown_jewel: false,
    });
    // A cluster with no instance in the document draws no database, and says so.
    expect(out.warnings.join('\n')).toMatch(
      /RDS clusters with no aws_rds_cluster_instance.*aws_rds_cluster\.metrics/,
    );
    // The cluster's name carries a sensitive-data signal: its untagged instance is a crown jewel (inferred).
    const named = normalize(
      terraform,
      plan([
        res('aws_rds_cluster.billing', { cluster_identifier: 'billing' }),
        res('aws_rds_cluster_instance.one', { identifier: 'db-1', cluster_identifier: 'billing' }),
      ]),
      { account: ACCOUNT },
    );
    expect(named.node('Database', `${ACCOUNT}/db-1`).properties).toMatchObject({
      crown_jewel: true,
      crown_jewel_basis: 'inferred:billing',
    });
  });

  it('TerraGoat (checkov, Terraform 0.12): its MySQL is publicly accessible', () => {
    const out = normalize(terraform, unseenPlan('checkov-terragoat-tfplan.json'), {
      account: '123456789123',
    });
    expect(out.node('Database', '123456789123/rds-123456789123-acme-corp').properties).toMatchObject({
      publicly_accessible: true,
      internet_exposed: true,
      exposure_basis: 'publicly-accessible',
      region: 'us-west-2',
      terraform_address: 'aws_db_instance.default',
    });
  });

  it('terraform-compliance issue 401 (Terraform 0.12.25): a public database named only at apply, by its address', () => {
    const out = normalize(terraform, unseenPlan('terraform-compliance-test_issue_401-plan.out.json'));
    expect(out.names('Database')).toEqual(['aws_db_instance.default']);
    expect(out.node('Database', 'aws_db_instance.default').properties).toMatchObject({
      internet_exposed: true,
      engine: 'mysql',
    });
    expect(out.warnings).toEqual([]);
  });

  it("infracost's Terraform 0.14 state: the deployed database, private, in its ARN's account", () => {
    const out = normalize(terraform, unseenPlan('infracost-terraform_v0.14_state.json'));
    expect(out.node('Database', '123123123123/demodb').properties).toMatchObject({
      publicly_accessible: false,
      internet_exposed: false,
      exposure_basis: 'terraform:not-publicly-accessible',
      engine: 'mysql',
      region: 'us-east-1',
    });
  });
});
