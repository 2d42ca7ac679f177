// Node aliases (DECISIONS.md "Names"): a VM named by its Name tag keeps its instance id as an alias that
// resolves to the same node, whichever report came first, and across a snapshot restore.
import { expect, it } from 'vitest';
import { nodeId } from '../../src/graph/ids.js';
import { custodianBody } from '../helpers/placebo.js';
import { edge, envelope, node } from '../helpers/envelope.js';
import { makeService } from '../helpers/service.js';

const ACCOUNT = '111122223333';

it('merges a VM seen by instance id into its Name-tagged node, and routes later mentions to it', async () => {
  const service = await makeService();
  // First seen by id only (network state without tags), with a route into it.
  const lb = node('LoadBalancer', 'edge', { internet_exposed: true });
  const byId = node('VirtualMachine', `${ACCOUNT}/i-0abc`, {});
  await service.ingest(envelope([lb, byId], [edge('ROUTES_TO', lb, byId, 0.9)]));
  // Then Custodian reports it with its Name tag.
  await service.ingest(
    custodianBody(ACCOUNT, [
      { resource: 'aws.ec2', resources: [{ InstanceId: 'i-0abc', Tags: [{ Key: 'Name', Value: 'web-1' }] }] },
    ]),
    { source: 'custodian' },
  );
  await service.settle();
  const graph = service.engine.tenant('default')!.graph;
  const web = nodeId('VirtualMachine', `${ACCOUNT}/web-1`);
  expect(graph.hasNode(nodeId('VirtualMachine', `${ACCOUNT}/i-0abc`))).toBe(false);
  expect(graph.inDegree(web)).toBe(1);
  // A later report naming it by id lands on the same node.
  const db = node('Database', 'orders', { crown_jewel: true });
  await service.ingest(
    envelope(
      [node('VirtualMachine', `${ACCOUNT}/i-0abc`, { patched: false }), db],
      [edge('CONNECTS_TO', byId, db, 0.5)],
    ),
  );
  await service.settle();
  expect(graph.hasNode(nodeId('VirtualMachine', `${ACCOUNT}/i-0abc`))).toBe(false);
  expect(graph.getNodeAttribute(web, 'props')).toMatchObject({ patched: false, instance_id: 'i-0abc' });
  expect(graph.outDegree(web)).toBe(1);
  expect(
    service.engine
      .tenant('default')!
      .paths.open()
      .some((p) => p.targetId === db.id),
  ).toBe(true);
  await service.dispose();
});

// Two instances under one Name tag (an Auto Scaling group's members), seen in different reports: the second is
// not the first (src/identity/vm-name.ts, and the writer's otherInstance).
it('keeps two instances that share a Name tag apart across reports, and joins each one again by its id', async () => {
  const service = await makeService();
  // Minimal DescribeInstances responses written for this test.
  const instances = (...list: { id: string; ip?: string }[]) => ({
    Reservations: [
      {
        Instances: list.map(({ id, ip }) => ({
          InstanceId: id,
          OwnerId: ACCOUNT,
          VpcId: 'vpc-1',
          Tags: [{ Key: 'Name', Value: 'web' }],
          ...(ip && { PublicIpAddress: ip }),
        })),
      },
    ],
  });
  const post = async (body: unknown) => {
    expect((await service.ingest(body, { source: 'cloudnet' })).status).toBe(202);
    await service.settle();
  };
  const graph = service.engine.tenant.bind(service.engine);
  const vms = () => {
    const found: string[] = [];
    graph('default')!.graph.forEachNode((_id, a) => {
      if (a.label === 'VirtualMachine')
        found.push(`${a.name} ${String(a.props.instance_id)} ${String(a.props.public_ip ?? '-')}`);
    });
    return found.sort();
  };
  await post(instances({ id: 'i-0aaaaaaaaaaaaaaa1', ip: '1.1.1.1' }));
  await post(instances({ id: 'i-0bbbbbbbbbbbbbbb2' }));
  expect(vms()).toEqual([
    `${ACCOUNT}/i-0bbbbbbbbbbbbbbb2 i-0bbbbbbbbbbbbbbb2 -`,
    `${ACCOUNT}/web i-0aaaaaaaaaaaaaaa1 1.1.1.1`,
  ]);
  const i2 = graph('default')!.graph.getNodeAttributes(
    nodeId('VirtualMachine', `${ACCOUNT}/i-0bbbbbbbbbbbbbbb2`),
  );
  expect(i2.props).toMatchObject({ name_tag: 'web' });
  expect(graph('default')!.graph.inDegree(nodeId('VirtualMachine', `${ACCOUNT}/i-0bbbbbbbbbbbbbbb2`))).toBe(
    1,
  );
  // Both in one report (named by id there), then each alone again: still two machines, each on its node.
  await post(instances({ id: 'i-0aaaaaaaaaaaaaaa1', ip: '1.1.1.1' }, { id: 'i-0bbbbbbbbbbbbbbb2' }));
  await post(instances({ id: 'i-0bbbbbbbbbbbbbbb2', ip: '2.2.2.2' }));
  await post(instances({ id: 'i-0aaaaaaaaaaaaaaa1', ip: '1.1.1.1' }));
  expect(vms()).toEqual([
    `${ACCOUNT}/i-0bbbbbbbbbbbbbbb2 i-0bbbbbbbbbbbbbbb2 2.2.2.2`,
    `${ACCOUNT}/web i-0aaaaaaaaaaaaaaa1 1.1.1.1`,
  ]);
  await service.dispose();
});

it('negative twin: the same instance seen again under its Name tag, with a new address, stays one node', async () => {
  const service = await makeService();
  for (const ip of ['1.1.1.1', '3.3.3.3'])
    expect(
      (
        await service.ingest(
          {
            Reservations: [
              {
                Instances: [
                  {
                    InstanceId: 'i-0aaaaaaaaaaaaaaa1',
                    OwnerId: ACCOUNT,
                    Tags: [{ Key: 'Name', Value: 'web' }],
                    PublicIpAddress: ip,
                  },
                ],
              },
            ],
          },
          { source: 'cloudnet' },
        )
      ).status,
    ).toBe(202);
  await service.settle();
  const names: string[] = [];
  service.engine.tenant('default')!.graph.forEachNode((_id, a) => {
    if (a.label === 'VirtualMachine') names.push(`${a.name} ${String(a.props.public_ip)}`);
  });
  expect(names).toEqual([`${ACCOUNT}/web 3.3.3.3`]);
  await service.dispose();
});
