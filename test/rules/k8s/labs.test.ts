// Defects found by running public intentionally-vulnerable labs (Kubernetes Goat, BishopFox badPods) and
// real install manifests (kube-prometheus) through the k8s source; each case is a minimal manifest written
// here after the lab's shape, with a negative twin.
import { describe, expect, it } from 'vitest';
import { createK8sSource } from '../../../src/ingest/sources/k8s.js';
import { podEscapes } from '../../../src/rules/k8s/container-escape.js';
import type { PodSpec } from '../../../src/rules/k8s/escape-rule.js';
import { rbacEscalation, type PolicyRule } from '../../../src/rules/k8s/index.js';
import { yamlToList } from '../../../src/ingest/yaml.js';
import { normalize } from '../../helpers/normalize.js';
import { makeService } from '../../helpers/service.js';

const k8s = createK8sSource();
const rules = (spec: PodSpec) => podEscapes(spec).map((e) => e.rule);

/** One container mounting host paths, as root or not (runAsUser at the pod level, as node-exporter does). */
const mounting = (mounts: [string, boolean][], podContext: Record<string, unknown> = {}): PodSpec => ({
  securityContext: podContext,
  containers: [
    {
      name: 'app',
      image: 'alpine:3.19',
      volumeMounts: mounts.map(([, readOnly], i) => ({ name: `v${i}`, mountPath: `/host${i}`, readOnly })),
    },
  ],
  volumes: mounts.map(([path], i) => ({ name: `v${i}`, hostPath: { path } })),
});
const NON_ROOT = { runAsNonRoot: true, runAsUser: 65534 };

describe('escape rules on lab manifests', () => {
  it("a non-root exporter mounting the host's root read-only does not escape (kube-prometheus node-exporter)", () => {
    const exporter = mounting(
      [
        ['/', true],
        ['/proc', true],
        ['/sys', true],
      ],
      NON_ROOT,
    );
    expect(podEscapes(exporter)).toEqual([]);
    // Twin: the same mounts as root reach keys, the runtime socket and the kubelet's pod tokens.
    expect(rules(mounting([['/', true]]))).toEqual(
      expect.arrayContaining(['host-read', 'runtime-socket', 'kubelet-dirs']),
    );
  });

  it('a non-root container with a writable /etc, a runtime socket or /proc/sys/kernel does not escape', () => {
    for (const path of ['/etc', '/var/run/docker.sock', '/proc/sys/kernel', '/var/lib/kubelet'])
      expect(rules(mounting([[path, false]], NON_ROOT)), path).toEqual([]);
    expect(rules(mounting([['/etc', false]]))).toContain('host-write');
    expect(rules(mounting([['/var/run/docker.sock', false]]))).toContain('runtime-socket');
    expect(rules(mounting([['/proc/sys/kernel', false]]))).toContain('core-pattern');
    expect(rules(mounting([['/var/lib/kubelet', true]]))).toContain('kubelet-dirs');
  });

  it('host-read fires on key material and its parents only, not on other files under /etc, /proc or /home', () => {
    for (const path of ['/etc/passwd', '/etc/cni/net.d', '/proc/sys', '/proc/sys/kernel', '/home/alice/data'])
      expect(rules(mounting([[path, true]])), path).not.toContain('host-read');
    for (const path of [
      '/',
      '/etc',
      '/etc/ssh',
      '/root',
      '/root/.ssh',
      '/home',
      '/home/alice',
      '/home/alice/.ssh',
      '/proc',
      '/proc/1',
    ])
      expect(rules(mounting([[path, true]])), path).toContain('host-read');
  });

  it('a root kube-bench job reading the kubelet directory escapes (Kubernetes Goat kube-bench-security)', () => {
    expect(
      rules(
        mounting([
          ['/var/lib/kubelet', true],
          ['/etc/passwd', true],
        ]),
      ),
    ).toEqual(['kubelet-dirs']);
  });
});

describe('RBAC bound in one namespace does not reach cluster-scoped resources', () => {
  // Kubernetes Goat hunger-check: a Role reading every core resource of its namespace.
  const readAll: PolicyRule[] = [{ apiGroups: [''], resources: ['*'], verbs: ['get', 'watch', 'list'] }];

  it('a Role reading `*` in the core group reads secrets, but not nodes/proxy', () => {
    expect(rbacEscalation(readAll, 'secret-reader', 'namespace').primitives).toEqual(['read-secrets']);
    // Twin: the same rules cluster-wide reach the kubelet API of every node.
    expect(rbacEscalation(readAll, 'secret-reader', 'cluster').primitives).toEqual([
      'read-secrets',
      'nodes-proxy',
    ]);
  });

  it('impersonating users in one namespace is nothing; impersonating its service accounts is', () => {
    const users: PolicyRule[] = [{ apiGroups: [''], resources: ['users', 'groups'], verbs: ['impersonate'] }];
    const accounts: PolicyRule[] = [
      { apiGroups: [''], resources: ['serviceaccounts'], verbs: ['impersonate'] },
    ];
    expect(rbacEscalation(users, 'r', 'namespace').primitives).toEqual([]);
    expect(rbacEscalation(users, 'r', 'cluster').primitives).toEqual(['impersonate']);
    expect(rbacEscalation(accounts, 'r', 'namespace').primitives).toEqual(['impersonate']);
  });

  it('bind on ClusterRoles still counts in a namespace (checked in the RoleBinding namespace); escalate on them does not', () => {
    const bind: PolicyRule[] = [
      { apiGroups: ['rbac.authorization.k8s.io'], resources: ['rolebindings'], verbs: ['create'] },
      { apiGroups: ['rbac.authorization.k8s.io'], resources: ['clusterroles'], verbs: ['bind'] },
    ];
    const escalateClusterRoles: PolicyRule[] = [
      {
        apiGroups: ['rbac.authorization.k8s.io'],
        resources: ['clusterroles'],
        verbs: ['create', 'escalate'],
      },
    ];
    expect(rbacEscalation(bind, 'r', 'namespace').primitives).toEqual(['bind-or-escalate']);
    expect(rbacEscalation(escalateClusterRoles, 'r', 'namespace').primitives).toEqual([]);
    expect(rbacEscalation(escalateClusterRoles, 'r', 'cluster').primitives).toEqual(['bind-or-escalate']);
  });

  it('a ClusterRoleBinding names only ClusterRoles: writing one with `bind` on Roles is nothing (KubeHound crb-r-fail)', () => {
    const rbac = 'rbac.authorization.k8s.io';
    const crbWithRoles: PolicyRule[] = [
      { apiGroups: [rbac], resources: ['clusterrolebindings'], verbs: ['create'] },
      { apiGroups: [rbac], resources: ['roles'], verbs: ['bind'] },
    ];
    expect(rbacEscalation(crbWithRoles, 'r', 'cluster').primitives).toEqual([]);
    // Twins: with `bind` on ClusterRoles it binds cluster-admin; a RoleBinding may name a Role.
    expect(
      rbacEscalation(
        [crbWithRoles[0], { apiGroups: [rbac], resources: ['clusterroles'], verbs: ['bind'] }],
        'r',
        'cluster',
      ).primitives,
    ).toEqual(['bind-or-escalate']);
    expect(
      rbacEscalation(
        [{ apiGroups: [rbac], resources: ['rolebindings'], verbs: ['create'] }, crbWithRoles[1]],
        'r',
        'namespace',
      ).primitives,
    ).toEqual(['bind-or-escalate']);
    // Escalating is writing and `escalate` on the same kind of role.
    const mixed: PolicyRule[] = [
      { apiGroups: [rbac], resources: ['roles'], verbs: ['create'] },
      { apiGroups: [rbac], resources: ['clusterroles'], verbs: ['escalate'] },
    ];
    expect(rbacEscalation(mixed, 'r', 'cluster').primitives).toEqual([]);
    expect(
      rbacEscalation(
        [{ apiGroups: [rbac], resources: ['roles'], verbs: ['create', 'escalate'] }],
        'r',
        'namespace',
      ).primitives,
    ).toEqual(['bind-or-escalate']);
  });

  it('through the k8s source: the Goat secret-reader Role escalates by reading secrets only', () => {
    const dump = yamlToList(`
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: secret-reader, namespace: big-monolith}
rules:
- apiGroups: [""]
  resources: ["*"]
  verbs: ["get", "watch", "list"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: node-reader}
rules:
- apiGroups: [""]
  resources: ["*"]
  verbs: ["get"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: node-reader-here, namespace: big-monolith}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: node-reader}
subjects: [{kind: ServiceAccount, name: big-monolith-sa, namespace: big-monolith}]
`);
    const out = normalize(k8s, dump, { snapshot: 'cluster:goat' });
    expect(
      out.edgeProps('CAN_ESCALATE_TO', 'goat/big-monolith/role/secret-reader', 'goat/cluster-admin'),
    ).toMatchObject({ primitives: ['read-secrets'], scope: 'namespace' });
    // The ClusterRole bound in one namespace: secrets there, no nodes/proxy; cluster-wide, both.
    expect(
      out.edgeProps('CAN_ESCALATE_TO', 'goat/big-monolith/clusterrole/node-reader', 'goat/cluster-admin'),
    ).toMatchObject({ primitives: ['read-secrets'] });
    expect(
      out.edgeProps('CAN_ESCALATE_TO', 'goat/clusterrole/node-reader', 'goat/cluster-admin'),
    ).toMatchObject({ primitives: ['read-secrets', 'nodes-proxy'], scope: 'cluster' });
  });
});

describe('exposure of LoadBalancer Services', () => {
  const service = (annotations?: Record<string, string>) => ({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'api', namespace: 'shop', annotations },
    spec: { type: 'LoadBalancer', selector: { app: 'api' } },
  });
  const exposed = (annotations?: Record<string, string>) =>
    normalize(k8s, service(annotations), { cluster: 'c' }).node('LoadBalancer', 'c/shop/service/api')
      .properties;

  it('an internal load balancer (AWS, GKE, Azure annotations) is not an internet start', () => {
    const internal: Record<string, string>[] = [
      { 'service.beta.kubernetes.io/aws-load-balancer-internal': 'true' },
      { 'service.beta.kubernetes.io/aws-load-balancer-scheme': 'internal' },
      { 'networking.gke.io/load-balancer-type': 'Internal' },
      { 'service.beta.kubernetes.io/azure-load-balancer-internal': 'true' },
    ];
    for (const annotations of internal) {
      const props = exposed(annotations);
      expect(props?.internet_exposed, JSON.stringify(annotations)).toBeUndefined();
      expect(props?.internal_lb_annotation).toBe(Object.keys(annotations)[0]);
    }
  });

  it('source ranges that admit none of the internet (a VPC, an office) close it, as a security group does', () => {
    const ranged = (spec: Record<string, unknown>, annotations?: Record<string, string>) =>
      normalize(
        k8s,
        { ...service(annotations), spec: { type: 'LoadBalancer', selector: { app: 'api' }, ...spec } },
        { cluster: 'c' },
      ).node('LoadBalancer', 'c/shop/service/api').properties;
    const office = ranged({ loadBalancerSourceRanges: ['10.0.0.0/8', '203.0.113.0/24'] });
    expect(office?.internet_exposed).toBeUndefined();
    expect(office?.load_balancer_source_ranges).toEqual(['10.0.0.0/8', '203.0.113.0/24']);
    // The older annotation says the same, comma-separated.
    expect(
      ranged({}, { 'service.beta.kubernetes.io/load-balancer-source-ranges': '10.0.0.0/8, 172.16.0.0/12' })
        ?.internet_exposed,
    ).toBeUndefined();
    // Twin: a range of the whole internet (IPv4 or IPv6) leaves it open.
    for (const all of ['0.0.0.0/0', '::/0'])
      expect(ranged({ loadBalancerSourceRanges: ['10.0.0.0/8', all] })).toMatchObject({
        internet_exposed: true,
      });
  });

  it('twin: without them, or with them saying otherwise, it is', () => {
    expect(exposed()).toMatchObject({ internet_exposed: true, exposure_basis: 'service-type:LoadBalancer' });
    expect(
      exposed({ 'service.beta.kubernetes.io/aws-load-balancer-scheme': 'internet-facing' }),
    ).toMatchObject({ internet_exposed: true });
    expect(exposed({ 'service.beta.kubernetes.io/azure-load-balancer-internal': 'false' })).toMatchObject({
      internet_exposed: true,
    });
  });
});

describe('routes through the service on a lab-shaped cluster', () => {
  /** A privileged Deployment behind a LoadBalancer, its service account bound to cluster-admin. */
  const cluster = (automount: boolean) => `
apiVersion: v1
kind: ServiceAccount
metadata: {name: web, namespace: shop}
automountServiceAccountToken: ${automount}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      serviceAccountName: web
      nodeName: node-1
      containers:
      - {name: web, image: acme/web:1.0, securityContext: {privileged: true}}
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: shop}
spec: {type: LoadBalancer, selector: {app: web}}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: web-admin}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}
subjects: [{kind: ServiceAccount, name: web, namespace: shop}]
`;
  const routes = async (automount: boolean) => {
    const service = await makeService();
    try {
      const response = await service.ingestApp.inject({
        method: 'POST',
        url: '/ingest/k8s?snapshot=cluster:lab',
        headers: { 'content-type': 'application/yaml' },
        payload: cluster(automount),
      });
      expect(response.statusCode).toBe(202);
      await service.settle();
      const data = await service.graphql('{ attackPaths { target { name } nodes { name } } }');
      return data.attackPaths as { target: { name: string }; nodes: { name: string }[] }[];
    } finally {
      await service.dispose();
    }
  };

  it('reaches cluster-admin through the token the workload holds, not by a detour through its node', async () => {
    const paths = await routes(true);
    const admin = paths.find((p) => p.target.name === 'lab/cluster-admin');
    expect(admin?.nodes.map((n) => n.name)).toEqual([
      'lab/shop/service/web',
      'lab/shop/web',
      'lab/shop/web',
      'lab/clusterrole/cluster-admin',
      'lab/cluster-admin',
    ]);
    // The escape is its own route, to the node.
    expect(paths.map((p) => p.target.name)).toContain('lab/node/node-1');
  });

  it('twin: with the token not mounted, the escape remains and cluster-admin is out of reach', async () => {
    const paths = await routes(false);
    expect(paths.map((p) => p.target.name)).toEqual(['lab/node/node-1']);
  });
});
