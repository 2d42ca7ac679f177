// The k8s source as DECISIONS "Path truth across sources" reads a dump: one workload per controller, the
// images its containers run, cluster-qualified names, escapes to the pod's node and the tokens held there,
// automount, secrets read, group subjects, namespace scoping, one start per exposure. Minimal manifests
// with a negative twin each, and the real fixtures where they hold the case.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createK8sSource } from '../../../src/ingest/sources/k8s.js';
import { yamlToList } from '../../../src/ingest/yaml.js';
import { normalize, REAL, rejection } from '../../helpers/normalize.js';

const k8s = createK8sSource();
const real = (relative: string) => yamlToList(readFileSync(path.join(REAL, 'k8s', relative), 'utf8'));
const list = (...items: Record<string, unknown>[]) => ({ apiVersion: 'v1', kind: 'List', items });

const podSpec = (extra: Record<string, unknown> = {}, container: Record<string, unknown> = {}) => ({
  serviceAccountName: 'web',
  containers: [{ name: 'web', image: 'ghcr.io/acme/web:1.4', ...container }],
  ...extra,
});
const deployment = (spec = podSpec()) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'shop', uid: 'd-1' },
  spec: {
    selector: { matchLabels: { app: 'web' } },
    template: { metadata: { labels: { app: 'web' } }, spec },
  },
});
const replicaSet = {
  apiVersion: 'apps/v1',
  kind: 'ReplicaSet',
  metadata: {
    name: 'web-7d9f8c',
    namespace: 'shop',
    uid: 'rs-1',
    ownerReferences: [{ kind: 'Deployment', name: 'web', uid: 'd-1', controller: true }],
  },
  spec: {
    template: { metadata: { labels: { app: 'web', 'pod-template-hash': '7d9f8c' } }, spec: podSpec() },
  },
};
const pod = (
  name: string,
  node: string,
  spec = podSpec(),
  owner = { kind: 'ReplicaSet', name: 'web-7d9f8c', uid: 'rs-1' },
) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name,
    namespace: 'shop',
    labels: { app: 'web', 'pod-template-hash': '7d9f8c' },
    ownerReferences: [{ ...owner, controller: true }],
  },
  spec: { ...spec, nodeName: node },
  status: {
    containerStatuses: [
      {
        name: 'web',
        image: 'ghcr.io/acme/web:1.4',
        imageID: `ghcr.io/acme/web@sha256:${'a'.repeat(64)}`,
      },
    ],
  },
});
const service = (type = 'ClusterIP') => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 'web', namespace: 'shop' },
  spec: { type, selector: { app: 'web' } },
});
const ingress = {
  apiVersion: 'networking.k8s.io/v1',
  kind: 'Ingress',
  metadata: { name: 'web', namespace: 'shop' },
  spec: {
    rules: [
      { http: { paths: [{ path: '/', backend: { service: { name: 'web', port: { number: 80 } } } }] } },
    ],
  },
};

describe('k8s: one workload per controller', () => {
  it('folds a Deployment, its ReplicaSet and its Pods into the Deployment', () => {
    const out = normalize(
      k8s,
      list(deployment(), replicaSet, pod('web-7d9f8c-abcde', 'n1'), pod('web-7d9f8c-fghij', 'n2')),
    );
    expect(out.names('Service')).toEqual(['shop/web']);
    expect(out.node('Service', 'shop/web').properties).toMatchObject({
      kind: 'deployment',
      pods: 2,
      node_names: ['n1', 'n2'],
    });
    expect(out.edges.filter((e) => e.startsWith('ASSUMES shop/web ->'))).toEqual([
      'ASSUMES shop/web -> shop/web',
    ]);
  });

  it('names a pod whose ReplicaSet the dump lacks after the Deployment (pod-template-hash)', () => {
    expect(normalize(k8s, list(pod('web-7d9f8c-abcde', 'n1'))).names('Service')).toEqual(['shop/web']);
    // Twin: no ownerReferences, the pod is its own workload.
    const bare = pod('web-7d9f8c-abcde', 'n1');
    delete (bare.metadata as { ownerReferences?: unknown }).ownerReferences;
    expect(normalize(k8s, list(bare)).names('Service')).toEqual(['shop/web-7d9f8c-abcde']);
  });

  it('folds the real popeye DaemonSet pods into their DaemonSet, one per namespace', () => {
    const out = normalize(k8s, real('popeye/core-pod-3.yaml'));
    expect(out.names('Service')).toEqual(['ns1/rs3', 'ns2/rs3']);
  });

  it('folds a CronJob, its Job and the Job pod', () => {
    const cron = {
      kind: 'CronJob',
      metadata: { name: 'backup', namespace: 'ops', uid: 'c-1' },
      spec: { jobTemplate: { spec: { template: { spec: podSpec() } } } },
    };
    const job = {
      kind: 'Job',
      metadata: {
        name: 'backup-2891',
        namespace: 'ops',
        uid: 'j-1',
        ownerReferences: [{ kind: 'CronJob', name: 'backup', uid: 'c-1', controller: true }],
      },
      spec: { template: { spec: podSpec() } },
    };
    const jobPod = {
      kind: 'Pod',
      metadata: {
        name: 'backup-2891-xyz',
        namespace: 'ops',
        ownerReferences: [{ kind: 'Job', name: 'backup-2891', uid: 'j-1', controller: true }],
      },
      spec: podSpec(),
    };
    expect(normalize(k8s, list(cron, job, jobPod)).names('Service')).toEqual(['ops/backup']);
  });
});

describe('k8s: workloads run their images', () => {
  it('draws DEPENDS_ON for every container and init container, pinned by the digest the pod runs', () => {
    const spec = podSpec({ initContainers: [{ name: 'migrate', image: 'flyway/flyway:10' }] });
    const out = normalize(k8s, list(deployment(spec), pod('web-7d9f8c-abcde', 'n1', spec)));
    expect(out.edges.filter((e) => e.startsWith('DEPENDS_ON'))).toEqual([
      'DEPENDS_ON shop/web -> acme/web:1.4',
      'DEPENDS_ON shop/web -> flyway/flyway:10',
    ]);
    expect(out.node('Image', 'acme/web:1.4').properties).toMatchObject({
      resolve_ref: `ghcr.io/acme/web:1.4@sha256:${'a'.repeat(64)}`,
      digests: [`sha256:${'a'.repeat(64)}`],
    });
    expect(out.edgeProps('DEPENDS_ON', 'shop/web', 'flyway/flyway:10')).toMatchObject({
      init_container: true,
    });
  });

  it("draws DEPENDS_ON for an ephemeral container's image, pinned by the digest its status reports", () => {
    const spec = podSpec({ ephemeralContainers: [{ name: 'debugger', image: 'busybox:1.36' }] });
    const running = pod('web-7d9f8c-abcde', 'n1', spec);
    const debugged = {
      ...running,
      status: {
        ...running.status,
        ephemeralContainerStatuses: [
          {
            name: 'debugger',
            image: 'busybox:1.36',
            imageID: `docker.io/library/busybox@sha256:${'b'.repeat(64)}`,
          },
        ],
      },
    };
    const out = normalize(k8s, list(deployment(), debugged));
    expect(out.edges).toContain('DEPENDS_ON shop/web -> busybox:1.36');
    expect(out.node('Image', 'busybox:1.36').properties).toMatchObject({
      digests: [`sha256:${'b'.repeat(64)}`],
    });
    // Twin: without a status the reference stays unpinned.
    expect(
      normalize(k8s, list(deployment(), running)).node('Image', 'busybox:1.36').properties?.digests,
    ).toBeUndefined();
  });

  it('reads the digest the real ingress-nginx manifest pins', () => {
    const out = normalize(k8s, real('ingress-nginx/deploy-cloud.yaml'));
    expect(out.edges).toContain(
      'DEPENDS_ON ingress-nginx/ingress-nginx-controller -> ingress-nginx/controller:v1.15.1',
    );
    expect(out.node('Image', 'ingress-nginx/controller:v1.15.1').properties!.digests).toEqual([
      'sha256:594ceea76b01c592858f803f9ff4d2cb40542cae2060410b2c95f75907d659e1',
    ]);
  });
});

describe('k8s: clusters', () => {
  it('qualifies every name by the cluster (?cluster= or snapshot=cluster:<name>)', () => {
    const dump = list(deployment(), service('LoadBalancer'), {
      kind: 'ClusterRoleBinding',
      metadata: { name: 'b' },
      roleRef: { kind: 'ClusterRole', name: 'cluster-admin' },
      subjects: [{ kind: 'ServiceAccount', name: 'web', namespace: 'shop' }],
    });
    const a = normalize(k8s, dump, { cluster: 'prod' });
    expect(a.names('Service')).toEqual(['prod/shop/web']);
    expect(a.names('ServiceAccount')).toEqual(['prod/shop/web']);
    expect(a.names('IAM_Role')).toEqual(['prod/cluster-admin', 'prod/clusterrole/cluster-admin']);
    expect(normalize(k8s, dump, { snapshot: 'cluster:staging' }).names('Service')).toEqual([
      'staging/shop/web',
    ]);
    // Twin: without a cluster, names stay unqualified.
    expect(normalize(k8s, dump).names('Service')).toEqual(['shop/web']);
  });

  it('refuses a malformed cluster, or one that contradicts the snapshot', () => {
    expect(rejection(k8s, list(), { cluster: 'a/b' })[0]).toMatchObject({
      pointer: '/query/cluster',
      value: 'a/b',
    });
    expect(rejection(k8s, list(), { cluster: 'a', snapshot: 'cluster:b' })[0]).toMatchObject({
      pointer: '/query/cluster',
    });
  });
});

describe('k8s: escapes lead to the node', () => {
  const privileged = podSpec({ hostPID: true }, { securityContext: { privileged: true } });

  it("leads a privileged pod to its node, a target, and from there to the node's other tokens", () => {
    const other = {
      kind: 'Pod',
      metadata: { name: 'billing', namespace: 'pay' },
      spec: {
        serviceAccountName: 'billing',
        nodeName: 'n1',
        containers: [{ name: 'b', image: 'billing:2' }],
      },
    };
    const out = normalize(
      k8s,
      list(deployment(privileged), pod('web-7d9f8c-abcde', 'n1', privileged), other),
      { cluster: 'prod' },
    );
    const escape = out.edgeProps('CAN_ESCALATE_TO', 'prod/shop/web', 'prod/node/n1')!;
    expect(escape).toMatchObject({ attack: 'T1611' });
    expect(escape.rules).toEqual(expect.arrayContaining(['nsenter', 'privileged-mount', 'module-load']));
    expect(out.node('VirtualMachine', 'prod/node/n1').properties).toMatchObject({
      crown_jewel: true,
      sensitive: true,
    });
    expect(out.edges).toContain('ASSUMES prod/node/n1 -> prod/pay/billing');
    expect(out.edgeProps('ASSUMES', 'prod/node/n1', 'prod/pay/billing')).toMatchObject({ attack: 'T1528' });
  });

  it("holds the real KubeHound test cluster's pod token on its node", () => {
    const dir = path.join(REAL, 'k8s/kubehound-test-cluster');
    const items = [
      'nodes.json',
      'namespace-1/pods.json',
      'clusterrolebindings.rbac.authorization.k8s.io.json',
    ].flatMap((f) => JSON.parse(readFileSync(path.join(dir, f), 'utf8')).items);
    const out = normalize(k8s, list(...items), { cluster: 'kh' });
    expect(
      out.edgeProps('ASSUMES', 'kh/node/test-node.ec2.internal', 'kh/test-app/app-monitors'),
    ).toMatchObject({
      attack: 'T1528',
    });
    // Nothing in it escapes: the node is not a target.
    expect(
      out.node('VirtualMachine', 'kh/node/test-node.ec2.internal').properties!.crown_jewel,
    ).toBeUndefined();
  });

  it('leads to the unscheduled node when the dump does not say where the pod runs', () => {
    const out = normalize(k8s, list(deployment(privileged)), { cluster: 'prod' });
    expect(out.edges).toContain('CAN_ESCALATE_TO prod/shop/web -> prod/node/unscheduled');
    // Nothing is known to run on it: it holds no tokens.
    expect(out.edges.filter((e) => e.startsWith('ASSUMES prod/node/'))).toEqual([]);
  });

  it("a privileged ephemeral container (kubectl debug) escapes to the pod's node; a plain one does not", () => {
    const debugged = (securityContext: Record<string, unknown>) =>
      podSpec({
        ephemeralContainers: [
          { name: 'debugger', image: 'busybox:1.36', targetContainerName: 'web', securityContext },
        ],
      });
    // The Deployment's template has no debug container (the API forbids one there): only the pod has it.
    const out = normalize(
      k8s,
      list(deployment(), pod('web-7d9f8c-abcde', 'n1', debugged({ privileged: true }))),
      { cluster: 'prod' },
    );
    const escape = out.edgeProps('CAN_ESCALATE_TO', 'prod/shop/web', 'prod/node/n1')!;
    expect(escape.rules).toEqual(['module-load', 'privileged-mount']);
    expect(escape.reasons).toContain('privileged-mount:container:debugger');
    const twin = normalize(
      k8s,
      list(deployment(), pod('web-7d9f8c-abcde', 'n1', debugged({ privileged: false }))),
      { cluster: 'prod' },
    );
    expect(twin.edges.filter((e) => e.startsWith('CAN_ESCALATE_TO'))).toEqual([]);
  });

  it('hostNetwork and hostIPC alone do not escape', () => {
    const out = normalize(
      k8s,
      list(pod('web-7d9f8c-abcde', 'n1', podSpec({ hostNetwork: true, hostIPC: true }))),
    );
    expect(out.edges.filter((e) => e.startsWith('CAN_ESCALATE_TO'))).toEqual([]);
    expect(out.node('VirtualMachine', 'node/n1').properties!.crown_jewel).toBeUndefined();
  });
});

describe('k8s: tokens, secrets and groups', () => {
  it('removes the token when automountServiceAccountToken is false on the pod or its service account', () => {
    const onPod = normalize(
      k8s,
      list(pod('web-7d9f8c-abcde', 'n1', podSpec({ automountServiceAccountToken: false }))),
    );
    expect(onPod.edges.filter((e) => e.startsWith('ASSUMES'))).toEqual([]);
    const sa = {
      kind: 'ServiceAccount',
      metadata: { name: 'web', namespace: 'shop' },
      automountServiceAccountToken: false,
    };
    expect(
      normalize(k8s, list(sa, pod('web-7d9f8c-abcde', 'n1'))).edges.filter((e) => e.startsWith('ASSUMES')),
    ).toEqual([]);
    // Twin: the pod's own true wins over the account's false.
    const override = normalize(
      k8s,
      list(sa, pod('web-7d9f8c-abcde', 'n1', podSpec({ automountServiceAccountToken: true }))),
    );
    expect(override.edges).toContain('ASSUMES shop/web -> shop/web');
  });

  it('draws the secrets a workload is given, by name only', () => {
    const spec = podSpec(
      { volumes: [{ name: 'tls', secret: { secretName: 'web-tls' } }] },
      {
        env: [
          { name: 'DB', valueFrom: { secretKeyRef: { name: 'db', key: 'password' } } },
          { name: 'X', value: 'plain' },
        ],
        envFrom: [{ secretRef: { name: 'api-keys' } }, { configMapRef: { name: 'settings' } }],
      },
    );
    const out = normalize(
      k8s,
      list(pod('web-7d9f8c-abcde', 'n1', spec), {
        kind: 'Secret',
        metadata: { name: 'db', namespace: 'shop' },
        type: 'Opaque',
        data: { password: 'aHVudGVyMg==' },
      }),
    );
    expect(out.names('Secret')).toEqual(['shop/secret/api-keys', 'shop/secret/db', 'shop/secret/web-tls']);
    expect(out.edgeProps('HAS_PERMISSION', 'shop/web', 'shop/secret/db')).toMatchObject({ via: ['env'] });
    expect(JSON.stringify(out.envelopes)).not.toContain('aHVudGVyMg==');
    // The real popeye pod reads sec1 through secretKeyRef.
    expect(normalize(k8s, real('popeye/core-pod-1.yaml')).names('Secret')).toContain('default/secret/sec1');
  });

  it('binds group subjects: service accounts to system:serviceaccounts, every workload to system:unauthenticated', () => {
    const binding = (group: string) => ({
      kind: 'ClusterRoleBinding',
      metadata: { name: `b-${group}` },
      roleRef: { kind: 'ClusterRole', name: 'cluster-admin' },
      subjects: [{ kind: 'Group', name: group }],
    });
    const anonymous = normalize(k8s, list(pod('web-7d9f8c-abcde', 'n1'), binding('system:unauthenticated')));
    expect(anonymous.edges).toEqual(
      expect.arrayContaining([
        'ASSUMES shop/web -> group/system:unauthenticated',
        'ASSUMES group/system:unauthenticated -> clusterrole/cluster-admin',
        'CAN_ESCALATE_TO clusterrole/cluster-admin -> cluster-admin',
      ]),
    );
    const accounts = normalize(
      k8s,
      list(
        pod('web-7d9f8c-abcde', 'n1'),
        binding('system:serviceaccounts:shop'),
        binding('system:serviceaccounts:other'),
      ),
    );
    expect(accounts.edges).toContain('ASSUMES shop/web -> group/system:serviceaccounts:shop');
    expect(accounts.edges).not.toContain('ASSUMES shop/web -> group/system:serviceaccounts:other');
  });

  it("joins a User subject named system:serviceaccount:<ns>:<name> to that service account, cluster-qualified (its token's username)", () => {
    const binding = (kind: string, name: string) => ({
      kind: 'RoleBinding',
      metadata: { name: `b-${kind}-${name}`, namespace: 'shop' },
      roleRef: { kind: 'ClusterRole', name: 'edit' },
      subjects: [{ kind, name, apiGroup: 'rbac.authorization.k8s.io' }],
    });
    const out = normalize(
      k8s,
      list(pod('web-7d9f8c-abcde', 'n1'), binding('User', 'system:serviceaccount:shop:web')),
      { cluster: 'prod' },
    );
    expect(out.edges).toContain('ASSUMES prod/shop/web -> prod/shop/clusterrole/edit');
    // The pod's account and the subject are one node: the workload reaches the role through its token.
    expect(out.edges).toContain('ASSUMES prod/shop/web -> prod/shop/web');
    expect(out.names('ServiceAccount')).toEqual(['prod/shop/web']);
    expect(out.names('User')).toEqual([]);
    // An account the dump does not otherwise hold is drawn as the account too, in its own namespace.
    const other = normalize(k8s, list(binding('User', 'system:serviceaccount:ci:deployer')));
    expect(other.edges.filter((e) => e.startsWith('ASSUMES '))).toEqual([
      'ASSUMES ci/deployer -> shop/clusterrole/edit',
    ]);
  });

  it('twins: a malformed service-account username, a plain user and a group so named stay what they are', () => {
    const binding = (kind: string, name: string) => ({
      kind: 'RoleBinding',
      metadata: { name: `b-${kind}-${name}`, namespace: 'shop' },
      roleRef: { kind: 'ClusterRole', name: 'edit' },
      subjects: [{ kind, name }],
    });
    const out = normalize(
      k8s,
      list(
        pod('web-7d9f8c-abcde', 'n1'),
        binding('User', 'system:serviceaccount:shop'),
        binding('User', 'system:serviceaccount:shop:web:extra'),
        binding('User', 'system:serviceaccount:Shop:web'),
        binding('User', 'alice'),
        binding('Group', 'system:serviceaccount:shop:web'),
      ),
    );
    expect(out.names('ServiceAccount')).toEqual(['shop/web']);
    expect(out.names('User')).toEqual([
      'group/system:serviceaccount:shop:web',
      'user/alice',
      'user/system:serviceaccount:Shop:web',
      'user/system:serviceaccount:shop',
      'user/system:serviceaccount:shop:web:extra',
    ]);
    expect(out.edges.filter((e) => e.endsWith('-> shop/clusterrole/edit'))).toEqual(
      [
        'group/system:serviceaccount:shop:web',
        'user/alice',
        'user/system:serviceaccount:Shop:web',
        'user/system:serviceaccount:shop',
        'user/system:serviceaccount:shop:web:extra',
      ].map((who) => `ASSUMES ${who} -> shop/clusterrole/edit`),
    );
    // No account is a member of a group named in the singular (`system:serviceaccounts` is the group).
    expect(out.edges.filter((e) => e.startsWith('ASSUMES shop/web -> group/'))).toEqual([]);
  });

  it('scopes a namespace-bound grant, except in kube-system', () => {
    const role = (namespace: string) => ({
      kind: 'Role',
      metadata: { name: 'pods', namespace },
      rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['create'] }],
    });
    const out = normalize(k8s, list(role('shop'), role('kube-system')));
    const escalations = out.envelopes[0].edges.filter((e) => e.type === 'CAN_ESCALATE_TO');
    expect(escalations.map((e) => [e.properties!.namespace, e.resource_scoped ?? false])).toEqual([
      ['shop', true],
      ['kube-system', false],
    ]);
  });
});

describe('k8s: one start per exposure', () => {
  it('a ClusterIP Service behind an Ingress is reached through it, not a second start', () => {
    const out = normalize(k8s, list(deployment(), service(), ingress));
    const starts = out.nodes.filter((n) => n.properties?.internet_exposed).map((n) => n.name);
    expect(starts).toEqual(['shop/ingress/web']);
    expect(out.edges).toEqual(
      expect.arrayContaining([
        'ROUTES_TO shop/ingress/web -> shop/service/web',
        'EXPOSES shop/service/web -> shop/web',
      ]),
    );
    // Twin: a LoadBalancer Service is a start of its own.
    const lb = normalize(k8s, list(deployment(), service('LoadBalancer'), ingress));
    expect(
      lb.nodes
        .filter((n) => n.properties?.internet_exposed)
        .map((n) => n.name)
        .sort(),
    ).toEqual(['shop/ingress/web', 'shop/service/web']);
  });
});

describe('k8s: host ports', () => {
  const ports = (...list: Record<string, unknown>[]) => ({ ports: list });

  it('a hostPort binds the workload on its node: marked host_port_exposed, never an internet start', () => {
    const spec = podSpec({}, ports({ containerPort: 8080, hostPort: 8080 }, { containerPort: 9090 }));
    const out = normalize(k8s, list(deployment(spec), pod('web-7d9f8c-abcde', 'n1', spec)));
    expect(out.node('Service', 'shop/web').properties).toMatchObject({
      host_port_exposed: true,
      host_ports: ['8080/TCP'],
    });
    expect(out.nodes.filter((n) => n.properties?.internet_exposed)).toEqual([]);
    // Twin: the same pod without the hostPort binds nothing on its node, and draws the same edges.
    const plain = podSpec({}, ports({ containerPort: 8080 }, { containerPort: 9090 }));
    const twin = normalize(k8s, list(deployment(plain), pod('web-7d9f8c-abcde', 'n1', plain)));
    expect(twin.node('Service', 'shop/web').properties).not.toHaveProperty('host_port_exposed');
    expect(twin.node('Service', 'shop/web').properties).not.toHaveProperty('host_ports');
    expect(twin.edges).toEqual(out.edges);
  });

  it('on the host network every container port is a host port (the API server sets it); not on loopback', () => {
    const hostNet = podSpec({ hostNetwork: true }, ports({ containerPort: 9100, protocol: 'UDP' }));
    expect(normalize(k8s, list(deployment(hostNet))).node('Service', 'shop/web').properties).toMatchObject({
      host_ports: ['9100/UDP'],
    });
    const loopback = podSpec({}, ports({ containerPort: 8080, hostPort: 8080, hostIP: '127.0.0.1' }));
    expect(
      normalize(k8s, list(deployment(loopback))).node('Service', 'shop/web').properties,
    ).not.toHaveProperty('host_port_exposed');
  });
});

describe('k8s: malformed objects', () => {
  it('reads fields of the wrong shape as absent instead of failing', () => {
    const odd = list(
      {
        kind: 'Pod',
        metadata: { name: 'odd', namespace: 'x', ownerReferences: 'nope', labels: 'x' },
        spec: {
          hostPID: true,
          containers: { name: 'not-a-list' },
          initContainers: [
            null,
            {
              name: 'i',
              image: 42,
              volumeMounts: 'x',
              securityContext: { capabilities: { add: 'SYS_ADMIN' } },
            },
          ],
          volumes: { hostPath: { path: '/' } },
        },
        status: { containerStatuses: 'x' },
      },
      {
        kind: 'Role',
        metadata: { name: 'r', namespace: 'x' },
        rules: [null, { apiGroups: 'apps', resources: '*', verbs: '*' }],
      },
      { kind: 'RoleBinding', metadata: { name: 'b', namespace: 'x' }, roleRef: 'r', subjects: 'all' },
      { kind: 'Ingress', metadata: { name: 'i', namespace: 'x' }, spec: { rules: 'x' } },
      { kind: 'Service', metadata: { name: 's', namespace: 'x' }, spec: { selector: 'app' } },
    );
    const out = normalize(k8s, odd);
    expect(out.names('Service')).toEqual(['x/odd']);
    // A string where the API writes a list of groups grants nothing (not every group).
    expect(out.edges.filter((e) => e.startsWith('CAN_ESCALATE_TO'))).toEqual([]);
  });
});
