// cloudb's normalized network state, mapped to the cloudnet bundle: the shipped fixture's shape, and a file
// that is not that shape refused naming the field and the value (that account's error, the others proceed).
import { cp, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { packageRoot } from '../../app/package-root.js';
import { cloudbToCloudnet, createCloudbFixturesSource } from '../../src/connectors/cloudb/fixtures.js';
import { tempDir } from '../helpers/service.js';

const DIR = path.join(packageRoot(), 'fixtures', 'connectors', 'cloudb');
let dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
  dirs = [];
});

describe('cloudb', () => {
  it('maps firewalls, VMs, public subnets and peerings to the cloudnet bundle', () => {
    const { bundle, account, region } = cloudbToCloudnet({
      account: 'prod-eu',
      region: 'westeurope',
      networks: [
        { id: 'net-a', peers: ['net-b'] },
        { id: 'net-b', peers: ['net-a'] },
      ],
      subnets: [
        { id: 'sn-pub', network: 'net-a', public: true },
        { id: 'sn-priv', network: 'net-a' },
      ],
      firewalls: [
        {
          id: 'fw-web',
          network: 'net-a',
          ingress: [{ protocol: 'tcp', ports: ['443', '8000-8010'], from: ['0.0.0.0/0', '::/0'] }],
        },
        { id: 'fw-app', ingress: [{ protocol: '*', from_firewalls: ['fw-web'] }] },
      ],
      vms: [
        {
          id: 'vm-1',
          name: 'web-1',
          subnet: 'sn-pub',
          public_ip: '203.0.113.7',
          firewalls: ['fw-web'],
          tags: { env: 'prod' },
        },
      ],
    });
    expect([account, region]).toEqual(['prod-eu', 'westeurope']);
    expect(bundle.security_groups[0].IpPermissions).toEqual([
      {
        IpProtocol: 'tcp',
        FromPort: 443,
        ToPort: 443,
        IpRanges: [{ CidrIp: '0.0.0.0/0' }],
        Ipv6Ranges: [{ CidrIpv6: '::/0' }],
        UserIdGroupPairs: [],
      },
      {
        IpProtocol: 'tcp',
        FromPort: 8000,
        ToPort: 8010,
        IpRanges: [{ CidrIp: '0.0.0.0/0' }],
        Ipv6Ranges: [{ CidrIpv6: '::/0' }],
        UserIdGroupPairs: [],
      },
    ]);
    expect(bundle.security_groups[1].IpPermissions).toEqual([
      { IpProtocol: '-1', IpRanges: [], Ipv6Ranges: [], UserIdGroupPairs: [{ GroupId: 'fw-web' }] },
    ]);
    expect(bundle.instances.Reservations[0].Instances[0]).toEqual({
      InstanceId: 'vm-1',
      SubnetId: 'sn-pub',
      VpcId: 'net-a',
      PublicIpAddress: '203.0.113.7',
      SecurityGroups: [{ GroupId: 'fw-web' }],
      Tags: [
        { Key: 'Name', Value: 'web-1' },
        { Key: 'env', Value: 'prod' },
      ],
    });
    expect(bundle.route_tables.map((t: any) => [t.Associations[0].SubnetId, t.Routes.length])).toEqual([
      ['sn-pub', 1],
      ['sn-priv', 0],
    ]);
    expect(bundle.vpc_peerings).toHaveLength(1); // each pair once
  });

  it.each([
    [{ region: 'x' }, /\/account undefined is not an id/],
    [{ account: 'a', region: 'West Europe' }, /\/region "West Europe" is not a region name/],
    [
      { account: 'a', region: 'r', vms: [{ id: 'v', firewalls: [42] }] },
      /\/vms\/0\/firewalls\/0 42 is not an id/,
    ],
    [
      { account: 'a', region: 'r', firewalls: [{ id: 'f', ingress: [{ ports: '70000' }] }] },
      /\/firewalls\/0\/ingress\/0\/ports "70000" is not a port/,
    ],
    [{ account: 'a', region: 'r', vms: {} }, /\/vms must be a list of objects/],
  ])('refuses %j naming the value', (state, message) => {
    expect(() => cloudbToCloudnet(state)).toThrow(message);
  });

  it("a bad file is its account's failure; the others are pulled", async () => {
    const dir = await tempDir('pathgate-cloudb-');
    dirs.push(dir);
    await cp(DIR, dir, { recursive: true });
    await writeFile(path.join(dir, 'broken.json'), JSON.stringify({ account: 'other', region: 'r' }));
    const pull = await createCloudbFixturesSource({ dir }).pull(new AbortController().signal);
    expect(pull.accounts.map((a) => [a.account, a.reports.map((r) => `${r.source} ${r.scope}`)])).toEqual([
      ['prod-eu', ['cloudnet cloudb:prod-eu/westeurope']],
    ]);
    expect(pull.failures).toEqual([
      {
        account: 'broken',
        error: 'fixtures: broken.json: /account "other" is not the file\'s name (broken)',
      },
    ]);
  });
});
