// Falco alerts in a cluster-qualified estate: `?cluster=` (validated as the k8s source validates it) or a
// cluster named in output_fields qualifies the names, so an alert marks the workload of its own cluster only.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createFalcoSource } from '../../../src/ingest/sources/falco.js';
import { createK8sSource } from '../../../src/ingest/sources/k8s.js';
import { node } from '../../helpers/envelope.js';
import { normalize, rejection } from '../../helpers/normalize.js';
import { makeService } from '../../helpers/service.js';

const falco = createFalcoSource();

const shell = (fields: Record<string, unknown> = {}) => ({
  rule: 'Terminal shell in container',
  priority: 'Notice',
  output: 'A shell was spawned in a container with an attached terminal',
  output_fields: { 'k8s.ns.name': 'shop', 'k8s.pod.name': 'reviews-5f7c9d8b6c-x8k2p', ...fields },
});

/** The same Deployment in any cluster: only the cluster tells them apart. */
const dump = {
  apiVersion: 'v1',
  kind: 'List',
  items: [
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'reviews', namespace: 'shop' },
      spec: {
        template: {
          metadata: { labels: { app: 'reviews' } },
          spec: { containers: [{ name: 'reviews', image: 'acme/reviews:1.0' }] },
        },
      },
    },
  ],
};

describe('falco: clusters', () => {
  it('qualifies workloads, service accounts, users and hosts by ?cluster=', () => {
    const out = normalize(
      falco,
      [
        shell(),
        {
          rule: 'K8s Secret Get',
          priority: 'Warning',
          output: 'secret read',
          output_fields: { 'ka.user.name': 'system:serviceaccount:shop:reviews' },
        },
        {
          rule: 'K8s Role Created',
          priority: 'Warning',
          output: 'x',
          output_fields: { 'ka.user.name': 'jane' },
        },
        {
          rule: 'Write below etc',
          priority: 'Error',
          output: 'x',
          output_fields: {},
          hostname: 'ip-10-0-0-7',
        },
      ],
      { cluster: 'prod' },
    );
    expect(out.names('Service')).toEqual(['prod/shop/reviews']);
    expect(out.names('ServiceAccount')).toEqual(['prod/shop/reviews']);
    expect(out.names('User')).toEqual(['prod/user/jane']);
    expect(out.names('VirtualMachine')).toEqual(['prod/node/ip-10-0-0-7']);
    // Twin: without a cluster the names are the unqualified ones the k8s source writes then.
    const plain = normalize(falco, [shell(), { ...shell(), output_fields: { 'ka.user.name': 'jane' } }]);
    expect(plain.names('Service')).toEqual(['shop/reviews']);
    expect(plain.names('User')).toEqual(['user/jane']);
  });

  it('an audit user is a service account only when its name is one the API server gives a token', () => {
    const audit = (user: string) => ({
      rule: 'K8s Secret Get',
      priority: 'Warning',
      output: 'secret read',
      output_fields: { 'ka.user.name': user },
    });
    const out = normalize(
      falco,
      [
        audit('system:serviceaccount:shop:reviews'),
        audit('system:serviceaccount:shop'),
        audit('system:serviceaccount:shop:reviews:x'),
        // No namespace is named in upper case: no token authenticates as this.
        audit('system:serviceaccount:Shop:reviews'),
      ],
      { cluster: 'prod' },
    );
    expect(out.names('ServiceAccount')).toEqual(['prod/shop/reviews']);
    expect(out.names('User')).toEqual([
      'prod/user/system:serviceaccount:Shop:reviews',
      'prod/user/system:serviceaccount:shop',
      'prod/user/system:serviceaccount:shop:reviews:x',
    ]);
  });

  it('reads the cluster an alert names in output_fields (k8s.cluster.name, or a Falcosidekick `cluster` field)', () => {
    expect(normalize(falco, shell({ 'k8s.cluster.name': 'eu-1' })).names('Service')).toEqual([
      'eu-1/shop/reviews',
    ]);
    expect(normalize(falco, shell({ cluster: 'us-2' })).names('Service')).toEqual(['us-2/shop/reviews']);
    // The query and the alert agreeing is fine; disagreeing is refused, naming the alert's field.
    expect(normalize(falco, shell({ cluster: 'us-2' }), { cluster: 'us-2' }).names('Service')).toEqual([
      'us-2/shop/reviews',
    ]);
    expect(rejection(falco, [shell(), shell({ 'k8s.cluster.name': 'eu-1' })], { cluster: 'us-2' })).toEqual([
      expect.objectContaining({ pointer: '/1/output_fields/k8s.cluster.name' }),
    ]);
    expect(rejection(falco, shell({ cluster: 'a/b' }))).toEqual([
      expect.objectContaining({ pointer: '/output_fields/cluster' }),
    ]);
  });

  it('refuses a malformed cluster in the query as the k8s source does, naming it', () => {
    expect(rejection(falco, shell(), { cluster: 'a/b' })).toEqual([
      expect.objectContaining({ pointer: '/query/cluster', value: 'a/b' }),
    ]);
    expect(rejection(falco, shell(), { cluster: 'a', snapshot: 'cluster:b' })).toEqual([
      expect.objectContaining({ pointer: '/query/cluster' }),
    ]);
    expect(rejection(falco, shell(), { snapshot: 'cluster:a/b' })).toEqual([
      expect.objectContaining({ pointer: '/query/snapshot' }),
    ]);
  });

  it("through the service: an alert for cluster A marks A's workload, never B's", async () => {
    const service = await makeService();
    try {
      for (const cluster of ['A', 'B'])
        expect(
          (await service.ingest(dump, { source: 'k8s', query: `snapshot=cluster:${cluster}` })).status,
        ).toBe(202);
      expect((await service.ingest(shell(), { source: 'falco', query: 'cluster=A' })).status).toBe(202);
      await service.settle();
      const graph = service.engine.tenant('default')!.graph;
      const props = (name: string) => graph.getNodeAttribute(node('Service', name).id, 'props');
      expect(props('A/shop/reviews')).toMatchObject({ runtime_observed: true, kind: 'deployment' });
      expect(props('B/shop/reviews').runtime_observed).toBeUndefined();
      // Twin: the same alert for B marks B's, and a malformed cluster is a 400 that stores nothing.
      expect((await service.ingest(shell(), { source: 'falco', query: 'cluster=B' })).status).toBe(202);
      const bad = await service.ingest(shell(), { source: 'falco', query: 'cluster=A%2Fshop' });
      expect(bad.status).toBe(400);
      expect(bad.json.errors[0]).toMatchObject({ pointer: '/query/cluster', value: 'A/shop' });
      await service.settle();
      expect(props('B/shop/reviews')).toMatchObject({ runtime_observed: true });
      // No unqualified twin was made on the side: the alerts joined the clusters' own workloads.
      expect(graph.hasNode(node('Service', 'shop/reviews').id)).toBe(false);
    } finally {
      await service.dispose();
    }
  });

  it('the k8s source refuses snapshot=cluster:<name> with a `/` (it would be read as a namespace)', async () => {
    const service = await makeService();
    try {
      const response = await service.ingest(dump, { source: 'k8s', query: 'snapshot=cluster:a%2Fb' });
      expect(response.status).toBe(400);
      expect(response.json.errors[0]).toMatchObject({ pointer: '/query/snapshot', value: 'cluster:a/b' });
    } finally {
      await service.dispose();
    }
  });
});

describe("falco: pods that are not a Deployment's", () => {
  /** A StatefulSet and a DaemonSet with their pods, as `kubectl get statefulsets,daemonsets,pods -o json` lists them. */
  const live = {
    apiVersion: 'v1',
    kind: 'List',
    items: [
      ...[
        ['StatefulSet', 'db', 's1'],
        ['DaemonSet', 'agent', 'd1'],
      ].map(([kind, name, uid]) => ({
        apiVersion: 'apps/v1',
        kind,
        metadata: { name, namespace: 'data', uid },
        spec: { template: { spec: { containers: [{ name, image: `acme/${name}:1` }] } } },
      })),
      ...[
        ['db-0', 'StatefulSet', 'db', 's1'],
        ['agent-x7k2p', 'DaemonSet', 'agent', 'd1'],
      ].map(([pod, kind, name, uid]) => ({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: {
          name: pod,
          namespace: 'data',
          ownerReferences: [{ kind, name, uid, controller: true }],
        },
        spec: { nodeName: 'n1', containers: [{ name, image: `acme/${name}:1` }] },
      })),
    ],
  };
  const alertOn = (pod: string) => ({
    ...shell(),
    output_fields: { 'k8s.ns.name': 'data', 'k8s.pod.name': pod },
  });

  it('an alert on a StatefulSet or DaemonSet pod marks its workload, whichever arrives first', async () => {
    const service = await makeService();
    try {
      // The StatefulSet's alert before the dump, the DaemonSet's after it.
      expect((await service.ingest(alertOn('db-0'), { source: 'falco', query: 'cluster=A' })).status).toBe(
        202,
      );
      await service.settle();
      expect((await service.ingest(live, { source: 'k8s', query: 'snapshot=cluster:A' })).status).toBe(202);
      await service.settle();
      expect(
        (await service.ingest(alertOn('agent-x7k2p'), { source: 'falco', query: 'cluster=A' })).status,
      ).toBe(202);
      // Twin: a pod the dump does not list stays a node of its own.
      expect((await service.ingest(alertOn('db-7'), { source: 'falco', query: 'cluster=A' })).status).toBe(
        202,
      );
      await service.settle();
      const graph = service.engine.tenant('default')!.graph;
      const props = (name: string) =>
        graph.hasNode(node('Service', name).id)
          ? graph.getNodeAttribute(node('Service', name).id, 'props')
          : undefined;
      expect(props('A/data/db')).toMatchObject({ runtime_observed: true, kind: 'statefulset' });
      expect(props('A/data/agent')).toMatchObject({ runtime_observed: true, kind: 'daemonset' });
      expect(props('A/data/db-0')).toBeUndefined();
      expect(props('A/data/agent-x7k2p')).toBeUndefined();
      expect(props('A/data/db-7')).toMatchObject({ runtime_observed: true });
      expect(props('A/data/db')?.runtime_alert_count).toBe(1);
    } finally {
      await service.dispose();
    }
  });
});

describe('k8s: runtime aliases are never shared', () => {
  const barePod = (name: string) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'shop' },
    spec: { containers: [{ name: 'app', image: 'acme/app:1' }] },
  });
  const aliases = (pods: string[]) =>
    normalize(createK8sSource(), { kind: 'List', items: pods.map(barePod) })
      .nodes.filter((n) => n.label === 'Service')
      .map((n) => [n.name, n.properties?.aliases]);

  it("one bare pod named like a Deployment's is the workload Falco names; two such pods claim nothing", () => {
    expect(aliases(['app-7d4b9c8f6d-wz4bn'])).toEqual([['shop/app-7d4b9c8f6d-wz4bn', ['shop/app']]]);
    expect(aliases(['app-7d4b9c8f6d-wz4bn', 'app-7d4b9c8f6d-q7mvt'])).toEqual([
      ['shop/app-7d4b9c8f6d-wz4bn', undefined],
      ['shop/app-7d4b9c8f6d-q7mvt', undefined],
    ]);
  });

  it('a real DaemonSet pod is aliased by its whole name, which a Falco alert on it names (kubelet pod list)', () => {
    const podList = JSON.parse(
      readFileSync(
        new URL('../../../fixtures/unseen/k8s/kubelet/podlist_1.8-2.json', import.meta.url),
        'utf8',
      ),
    );
    const out = normalize(createK8sSource(), podList);
    // `kube-scheduler-bpnn6` is its DaemonSet's pod; a name cut at its first word (`kube`) joins nothing.
    expect(out.node('Service', 'kube-system/kube-scheduler').properties?.aliases).toEqual([
      'kube-system/kube-scheduler-bpnn6',
    ]);
    const alerted = normalize(falco, {
      ...shell(),
      output_fields: { 'k8s.ns.name': 'kube-system', 'k8s.pod.name': 'kube-scheduler-bpnn6' },
    });
    expect(alerted.names('Service')).toEqual(['kube-system/kube-scheduler-bpnn6']);
    // Twin: the Deployment pods of the same list are named by their Deployment, as before.
    expect(out.node('Service', 'default/redis-75586d7d7c').properties?.aliases).toEqual(['default/redis']);
  });
});

describe('falco: the controller the k8smeta plugin names', () => {
  const withFields = (fields: Record<string, unknown>) => ({ ...shell(), output_fields: fields });

  it('lands on the Deployment, ReplicationController or ReplicaSet the alert names, whatever the pod is called', () => {
    const names = (fields: Record<string, unknown>) =>
      normalize(falco, withFields(fields), { cluster: 'A' }).names('Service');
    expect(
      names({
        'k8smeta.ns.name': 'shop',
        'k8smeta.pod.name': 'web-5c9f-abcde',
        'k8smeta.deployment.name': 'web',
      }),
    ).toEqual(['A/shop/web']);
    expect(
      names({ 'k8s.ns.name': 'shop', 'k8s.pod.name': 'legacy-x1y2z', 'k8smeta.rc.name': 'legacy' }),
    ).toEqual(['A/shop/legacy']);
    expect(
      names({ 'k8s.ns.name': 'shop', 'k8s.pod.name': 'front-q8w7e', 'k8smeta.rs.name': 'front' }),
    ).toEqual(['A/shop/front']);
  });

  it('twin: a field Falco could not read (`<NA>`, null) names nothing, and the pod decides', () => {
    const out = normalize(
      falco,
      withFields({
        'k8s.ns.name': 'shop',
        'k8s.pod.name': 'checkout-7d4b9c8f6d-x2x9q',
        'k8smeta.deployment.name': '<NA>',
        'k8smeta.rs.name': null,
      }),
    );
    expect(out.names('Service')).toEqual(['shop/checkout']);
  });
});
