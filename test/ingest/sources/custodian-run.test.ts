// A `custodian run` output folder: resources.json (a bare list) read with the metadata.json beside it,
// which names the policy, its resource type, the account and the region.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createCustodianSource, custodianRunReport } from '../../../src/ingest/sources/custodian.js';
import { normalize, rejection } from '../../helpers/normalize.js';

const custodian = createCustodianSource();
const UNSEEN = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../fixtures/unseen/custodian',
);
const read = (dir: string, file: string) => JSON.parse(readFileSync(path.join(UNSEEN, dir, file), 'utf8'));
const run = (dir: string) => custodianRunReport(read(dir, 'resources.json'), read(dir, 'metadata.json'));

describe('custodian: a run output folder (resources.json + metadata.json)', () => {
  it('takes the policy, resource type, account and region from the metadata', () => {
    const report = custodianRunReport([{ InstanceId: 'i-0123456789abcdef0' }], {
      policy: { name: 'running', resource: 'ec2' },
      config: { account_id: '111122223333', region: 'eu-west-1' },
    });
    expect(report).toEqual({
      provider: 'aws',
      account_id: '111122223333',
      region: 'eu-west-1',
      policies: [{ policy: 'running', resource: 'ec2', resources: [{ InstanceId: 'i-0123456789abcdef0' }] }],
    });
  });

  it('metadata naming no resource type is not a run output (negative twin)', () => {
    expect(custodianRunReport([], { policy: { name: 'x' }, config: {} })).toBeUndefined();
    expect(custodianRunReport([], { version: '0.9.35' })).toBeUndefined();
  });

  it('an Azure policy is refused by its provider, not read as AWS', () => {
    const report = custodianRunReport([{ id: '/subscriptions/x/vm' }], {
      policy: { name: 'vms', resource: 'azure.vm' },
      config: { account_id: '' },
    });
    expect(report).toMatchObject({ provider: 'azure' });
    expect(rejection(custodian, report)).toEqual(
      expect.arrayContaining([expect.objectContaining({ pointer: '/provider' })]),
    );
  });

  it('the real EC2 run (cloud-custodian tests) lands its instance under the account the metadata names', () => {
    const out = normalize(custodian, run('c7n-ec2-running-instances'));
    const [vm] = out.nodes.filter((n) => n.label === 'VirtualMachine');
    expect(vm.properties).toMatchObject({
      account: '644160558196',
      region: 'us-east-1',
      instance_id: 'i-014296505597bf519',
      custodian_policy: 'ec2-running-instances',
      internet_exposed: true,
    });
  });

  it('the real CloudTrail run (astuto-cloud-custodian) is taken, its resource type said unused', () => {
    const out = normalize(custodian, run('astuto-cloudtrail-enabled'));
    expect(out.nodes).toEqual([]);
    expect(out.warnings).toEqual(['custodian report: /policies/0/resource "aws.cloudtrail" is not used']);
  });
});
