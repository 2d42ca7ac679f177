// The gate's overlay names machines as the graph writer does (src/identity/vm-name.ts): a pull request's
// report of another instance under a Name tag the estate's machine holds is not that machine, and one that
// names the estate's machine by its instance id is that machine.
import { expect, it } from 'vitest';
import { nodeId } from '../../src/graph/ids.js';
import { Overlay } from '../../src/gate/overlay.js';
import { createCloudnetSource } from '../../src/ingest/sources/cloudnet.js';
import { testTenant } from '../helpers/tenant.js';

const ACCOUNT = '111122223333';
const cloudnet = createCloudnetSource();
/** A minimal DescribeInstances response written for this test. */
const instances = (...list: { id: string; name?: string; ip?: string }[]) =>
  cloudnet.normalize({
    body: {
      Reservations: [
        {
          Instances: list.map(({ id, name, ip }) => ({
            InstanceId: id,
            OwnerId: ACCOUNT,
            ...(name && { Tags: [{ Key: 'Name', Value: name }] }),
            ...(ip && { PublicIpAddress: ip }),
          })),
        },
      ],
    },
    query: {},
    receivedAt: '2026-11-24T00:00:00Z',
  }).envelopes[0];
const vm = (name: string) => nodeId('VirtualMachine', `${ACCOUNT}/${name}`);

it('another instance under the estate machine’s Name tag is a machine of its own in the overlay', () => {
  const tenant = testTenant();
  tenant.writer.apply(instances({ id: 'i-0aaaaaaaaaaaaaaa1', name: 'web', ip: '1.1.1.1' }), 1000);
  const overlay = new Overlay(tenant.graph, tenant.writer);
  overlay.apply(instances({ id: 'i-0bbbbbbbbbbbbbbb2', name: 'web' }), 2000);
  expect(overlay.getNodeAttributes(vm('web')).props).toMatchObject({
    instance_id: 'i-0aaaaaaaaaaaaaaa1',
    public_ip: '1.1.1.1',
  });
  expect(overlay.getNodeAttributes(vm('i-0bbbbbbbbbbbbbbb2'))).toMatchObject({
    name: `${ACCOUNT}/i-0bbbbbbbbbbbbbbb2`,
    props: { instance_id: 'i-0bbbbbbbbbbbbbbb2', name_tag: 'web' },
  });
  // The live graph is never written.
  expect(tenant.graph.hasNode(vm('i-0bbbbbbbbbbbbbbb2'))).toBe(false);
});

it('negative twin: the estate machine named by its instance id is that machine, not a new one', () => {
  const tenant = testTenant();
  tenant.writer.apply(instances({ id: 'i-0aaaaaaaaaaaaaaa1', name: 'web' }), 1000);
  const overlay = new Overlay(tenant.graph, tenant.writer);
  overlay.apply(instances({ id: 'i-0aaaaaaaaaaaaaaa1', ip: '9.9.9.9' }), 2000);
  expect(overlay.hasNode(vm('i-0aaaaaaaaaaaaaaa1'))).toBe(false);
  expect(overlay.getNodeAttributes(vm('web')).props).toMatchObject({
    instance_id: 'i-0aaaaaaaaaaaaaaa1',
    public_ip: '9.9.9.9',
  });
});

it('negative twin: a plan’s new instance (no id yet, named by its address) is the machine under that Name tag', () => {
  const tenant = testTenant();
  tenant.writer.apply(instances({ id: 'i-0aaaaaaaaaaaaaaa1', name: 'web' }), 1000);
  const overlay = new Overlay(tenant.graph, tenant.writer);
  overlay.apply(instances({ id: 'aws_instance.web', name: 'web', ip: '5.5.5.5' }), 2000);
  expect(overlay.getNodeAttributes(vm('web')).props).toMatchObject({ public_ip: '5.5.5.5' });
  expect(overlay.hasNode(vm('aws_instance.web'))).toBe(false);
});
