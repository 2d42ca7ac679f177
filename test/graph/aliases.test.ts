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
