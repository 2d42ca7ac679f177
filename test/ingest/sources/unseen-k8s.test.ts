// Public manifests the k8s source had not seen (fixtures/unseen/k8s, provenance in fixtures/unseen/SOURCES.md)
// read as `pathgate ingestreal` reads them (readReport, recognizeReport) and mapped by the real normalizer:
// what each must mean (DECISIONS "Path truth across sources", KubeHound's attacks), edge by edge.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readReport, recognizeReport } from '../../../src/ingest/recognize.js';
import { createK8sSource } from '../../../src/ingest/sources/k8s.js';
import { normalize, type Normalized } from '../../helpers/normalize.js';

const k8s = createK8sSource();
const folder = (name: string) => new URL(`../../../fixtures/unseen/k8s/${name}/`, import.meta.url);

/** Every file of a folder as one multi-document YAML (what `kubectl apply -f` of each applies). */
function dump(name: string, files?: string[]): unknown {
  const dir = folder(name);
  const names = files ?? readdirSync(dir).sort();
  const text = names.map((f) => readFileSync(new URL(f, dir), 'utf8')).join('\n---\n');
  const { body, format } = readReport(text);
  expect(format).toBe('yaml');
  expect(recognizeReport(body)).toBe('k8s');
  return body;
}

/** The escape rules of a workload's CAN_ESCALATE_TO edge to a node, sorted (undefined: no escape). */
/** Every escape rule: what a privileged, hostPID pod with the host's root writable opens. */
const EVERY_ESCAPE = [
  'host-read',
  'host-write',
  'kubelet-dirs',
  'module-load',
  'nsenter',
  'privileged-mount',
  'runtime-socket',
  'sys-ptrace',
  'var-log-symlink',
];
const escapes = (out: Normalized, workload: string, node: string) =>
  (out.edgeProps('CAN_ESCALATE_TO', workload, node)?.rules as string[] | undefined)?.slice().sort();

describe('Kubernetes Goat, every plain manifest in one dump', () => {
  const out = normalize(k8s, dump('kubernetes-goat'), { cluster: 'goat' });
  const node = 'goat/node/unscheduled';

  it('links every workload to the image it runs, and only those', () => {
    const runs = out.edges.filter((e) => e.startsWith('DEPENDS_ON '));
    expect(runs).toEqual(
      [
        'goat/default/batch-check-job -> madhuakula/k8s-goat-batch-check',
        'goat/default/build-code-deployment -> madhuakula/k8s-goat-build-code',
        'goat/secure-middleware/cache-store-deployment -> madhuakula/k8s-goat-cache-store',
        'goat/default/health-check-deployment -> madhuakula/k8s-goat-health-check',
        'goat/big-monolith/hunger-check-deployment -> madhuakula/k8s-goat-hunger-check',
        'goat/default/internal-proxy-deployment -> madhuakula/k8s-goat-internal-api',
        'goat/default/internal-proxy-deployment -> madhuakula/k8s-goat-info-app',
        'goat/default/kubernetes-goat-home-deployment -> madhuakula/k8s-goat-home',
        'goat/default/poor-registry-deployment -> madhuakula/k8s-goat-poor-registry',
        'goat/default/system-monitor-deployment -> madhuakula/k8s-goat-system-monitor',
        'goat/default/hidden-in-layers -> madhuakula/k8s-goat-hidden-in-layers',
        'goat/default/docker-bench-security -> madhuakula/hacker-container',
        'goat/default/kube-bench-node -> aquasec/kube-bench:latest',
        'goat/default/kube-bench-master -> aquasec/kube-bench:latest',
      ]
        .map((e) => `DEPENDS_ON ${e}`)
        .sort(),
    );
    // A bare name stays a reference to be joined to its scan (docs/identity.md), pending until one lands.
    expect(out.node('Image', 'madhuakula/k8s-goat-system-monitor').properties).toMatchObject({
      resolve_ref: 'madhuakula/k8s-goat-system-monitor',
    });
  });

  it('system-monitor (privileged, hostPID, the host root writable) escapes by every route it opens', () => {
    expect(escapes(out, 'goat/default/system-monitor-deployment', node)).toEqual(EVERY_ESCAPE);
    // It is handed the goatvault secret (by name, never its value), which the dump lists.
    expect(
      out.edgeProps(
        'HAS_PERMISSION',
        'goat/default/system-monitor-deployment',
        'goat/default/secret/goatvault',
      ),
    ).toMatchObject({ access: 'read', via: ['env'] });
    expect(JSON.stringify(out.envelopes)).not.toContain('azhzLWdvYXQt');
  });

  it('health-check (privileged, containerd socket) and docker-bench-security (privileged hostPID, docker.sock) escape; nsenter only with hostPID', () => {
    expect(escapes(out, 'goat/default/health-check-deployment', node)).toEqual([
      'module-load',
      'privileged-mount',
      'runtime-socket',
    ]);
    expect(out.edgeProps('CAN_ESCALATE_TO', 'goat/default/health-check-deployment', node)?.reasons).toContain(
      'runtime-socket:hostPath:/run/containerd/containerd.sock',
    );
    expect(escapes(out, 'goat/default/docker-bench-security', node)).toEqual(
      [
        'host-read',
        'kubelet-dirs',
        'module-load',
        'nsenter',
        'privileged-mount',
        'runtime-socket',
        'sys-ptrace',
      ].sort(),
    );
  });

  it('the kube-bench jobs (root, the kubelet directory read-only, not privileged) reach the node through the kubelet only', () => {
    for (const job of ['kube-bench-node', 'kube-bench-master'])
      expect(escapes(out, `goat/default/${job}`, node), job).toEqual(['kubelet-dirs']);
  });

  it('benign workloads do not escape', () => {
    const escaping = out.edges
      .filter((e) => e.startsWith('CAN_ESCALATE_TO goat/') && e.endsWith(`-> ${node}`))
      .map((e) => e.split(' ')[1])
      .sort();
    expect(escaping).toEqual(
      [
        'goat/default/docker-bench-security',
        'goat/default/health-check-deployment',
        'goat/default/kube-bench-master',
        'goat/default/kube-bench-node',
        'goat/default/system-monitor-deployment',
      ].sort(),
    );
    expect(out.node('VirtualMachine', node).properties).toMatchObject({ crown_jewel: true, sensitive: true });
  });

  it('reads the RBAC scenarios: superadmin bound to cluster-admin, the secret-reader Role scoped to big-monolith', () => {
    expect(out.edges).toContain('ASSUMES goat/kube-system/superadmin -> goat/clusterrole/cluster-admin');
    expect(
      out.edgeProps('CAN_ESCALATE_TO', 'goat/clusterrole/cluster-admin', 'goat/cluster-admin'),
    ).toMatchObject({
      primitives: ['admin-named'],
      scope: 'cluster',
    });
    expect(out.edges).toContain(
      'ASSUMES goat/big-monolith/big-monolith-sa -> goat/big-monolith/role/secret-reader',
    );
    expect(
      out.edgeProps('CAN_ESCALATE_TO', 'goat/big-monolith/role/secret-reader', 'goat/cluster-admin'),
    ).toMatchObject({ primitives: ['read-secrets'], scope: 'namespace', namespace: 'big-monolith' });
    expect(out.edges).toContain(
      'ASSUMES goat/big-monolith/hunger-check-deployment -> goat/big-monolith/big-monolith-sa',
    );
  });

  it('only the NodePort service is an internet start; the Kyverno policy and Namespaces are reported unused', () => {
    const starts = out.nodes.filter((n) => n.properties?.internet_exposed).map((n) => n.name);
    expect(starts).toEqual(['goat/default/service/internal-proxy-info-app-service']);
    expect(out.warnings).toEqual(['k8s dump: kinds not used: ClusterPolicy, Namespace']);
  });
});

describe('BishopFox badPods', () => {
  const out = normalize(k8s, dump('badpods'), { cluster: 'bp' });
  const node = 'bp/node/unscheduled';

  it('escapes exactly where the pod asks for the host, each controller one workload', () => {
    expect(escapes(out, 'bp/default/everything-allowed-exec-pod', node)).toEqual(EVERY_ESCAPE);
    expect(escapes(out, 'bp/default/priv-and-hostpid-exec-deployment', node)).toEqual([
      'module-load',
      'nsenter',
      'privileged-mount',
      'sys-ptrace',
    ]);
    expect(escapes(out, 'bp/default/priv-exec-cronjob', node)).toEqual(['module-load', 'privileged-mount']);
    expect(escapes(out, 'bp/default/hostpath-exec-daemonset', node)).toEqual([
      'host-read',
      'host-write',
      'kubelet-dirs',
      'runtime-socket',
      'var-log-symlink',
    ]);
  });

  it('twins: hostPID, hostNetwork or hostIPC alone, and nothing allowed, do not escape', () => {
    for (const w of [
      'hostpid-exec-pod',
      'hostnetwork-exec-pod',
      'hostipc-exec-statefulset',
      'nothing-allowed-exec-deployment',
    ])
      expect(escapes(out, `bp/default/${w}`, node), w).toBeUndefined();
    expect(out.names('Service')).toHaveLength(8);
  });
});

describe('NeuVector on k3s', () => {
  it("the controller and the enforcer reach the node through k3s's containerd socket too", () => {
    const out = normalize(k8s, dump('neuvector'), { cluster: 'nv' });
    for (const workload of ['neuvector-controller-pod', 'neuvector-enforcer-pod']) {
      const escape = out.edgeProps('CAN_ESCALATE_TO', `nv/neuvector/${workload}`, 'nv/node/unscheduled');
      expect(escape?.reasons, workload).toContain(
        'runtime-socket:hostPath:/run/k3s/containerd/containerd.sock',
      );
    }
    // The manager, scanner and updater ask for nothing of the host.
    const escaping = out.edges
      .filter((e) => e.startsWith('CAN_ESCALATE_TO nv/neuvector/'))
      .map((e) => e.split(' ')[1]);
    expect(escaping.sort()).toEqual([
      'nv/neuvector/neuvector-controller-pod',
      'nv/neuvector/neuvector-enforcer-pod',
    ]);
  });
});

describe('kube-prometheus', () => {
  const out = normalize(k8s, dump('kube-prometheus'), { cluster: 'mon' });
  const admin = 'mon/cluster-admin';

  it('reads RBAC by API group: the operator creates StatefulSets and reads secrets; its monitoring.coreos.com wildcard is nothing', () => {
    expect(out.edgeProps('CAN_ESCALATE_TO', 'mon/clusterrole/prometheus-operator', admin)).toMatchObject({
      primitives: ['create-pods', 'read-secrets'],
      scope: 'cluster',
    });
    expect(out.edgeProps('CAN_ESCALATE_TO', 'mon/clusterrole/kube-state-metrics', admin)).toMatchObject({
      primitives: ['read-secrets'],
    });
  });

  it('twins: metrics.k8s.io wildcards, nodes/metrics and get on pods and services escalate to nothing', () => {
    const escalating = out.edges.filter(
      (e) => e.startsWith('CAN_ESCALATE_TO mon/') && e.endsWith(`-> ${admin}`),
    );
    expect(escalating).toEqual([
      `CAN_ESCALATE_TO mon/clusterrole/kube-state-metrics -> ${admin}`,
      `CAN_ESCALATE_TO mon/clusterrole/prometheus-operator -> ${admin}`,
    ]);
  });

  it('node-exporter (non-root, hostPID, the host root read-only) does not escape; grafana mounts no token', () => {
    expect(out.edges.filter((e) => e.startsWith('CAN_ESCALATE_TO mon/monitoring/'))).toEqual([]);
    expect(out.node('Service', 'mon/monitoring/grafana').properties).toMatchObject({
      token_not_mounted: ['grafana'],
    });
    expect(out.edges.some((e) => e.startsWith('ASSUMES mon/monitoring/grafana ->'))).toBe(false);
    expect(out.edges).toContain(
      'DEPENDS_ON mon/monitoring/node-exporter -> prometheus/node-exporter:v1.12.1',
    );
    expect(out.edges).toContain('DEPENDS_ON mon/monitoring/node-exporter -> brancz/kube-rbac-proxy:v0.22.1');
  });

  it("node-exporter's hostPort 9100 binds it on every node's address: marked, not an internet start", () => {
    expect(out.node('Service', 'mon/monitoring/node-exporter').properties).toMatchObject({
      host_port_exposed: true,
      host_ports: ['9100/TCP'],
    });
    expect(out.node('Service', 'mon/monitoring/node-exporter').properties?.internet_exposed).toBeUndefined();
    // Twin: kube-state-metrics declares container ports, none on its node.
    expect(out.node('Service', 'mon/monitoring/kube-state-metrics').properties).not.toHaveProperty(
      'host_port_exposed',
    );
  });
});

describe('Online Boutique (microservices-demo release manifests)', () => {
  it('links every Deployment to its images (init containers and digests too); only frontend-external is a start', () => {
    const out = normalize(k8s, dump('microservices-demo', ['kubernetes-manifests.yaml']), { cluster: 'ob' });
    expect(out.names('Service')).toHaveLength(12);
    expect(out.edges.filter((e) => e.startsWith('DEPENDS_ON '))).toHaveLength(13);
    expect(out.edgeProps('DEPENDS_ON', 'ob/default/loadgenerator', 'busybox:1.38.0')).toMatchObject({
      containers: ['frontend-check'],
      init_container: true,
    });
    expect(out.node('Image', 'busybox:1.38.0').properties?.digests).toEqual([
      'sha256:fd8d9aa63ba2f0982b5304e1ee8d3b90a210bc1ffb5314d980eb6962f1a9715d',
    ]);
    expect(out.edges).toContain('DEPENDS_ON ob/default/redis-cart -> redis:alpine');
    expect(out.nodes.filter((n) => n.properties?.internet_exposed).map((n) => n.name)).toEqual([
      'ob/default/service/frontend-external',
    ]);
    expect(out.edges.filter((e) => e.startsWith('CAN_ESCALATE_TO'))).toEqual([]);
  });

  it('with the Istio overlay, its Gateway API Gateway is a front door routing to frontend; its mesh VirtualService is none', () => {
    const out = normalize(k8s, dump('microservices-demo'), { cluster: 'ob' });
    expect(out.node('LoadBalancer', 'ob/default/gateway/istio-gateway').properties).toMatchObject({
      internet_exposed: true,
      exposure_basis: 'gateway',
      gateway_class: 'istio',
    });
    expect(
      out.edgeProps('ROUTES_TO', 'ob/default/gateway/istio-gateway', 'ob/default/service/frontend'),
    ).toEqual({
      route: 'HTTPRoute/frontend-route',
    });
    expect(out.edges).toContain('EXPOSES ob/default/service/frontend -> ob/default/frontend');
    // Its VirtualService names no gateway: mesh routing only, no front door.
    expect(out.names('LoadBalancer').filter((n) => n.includes('/istio-gateway/'))).toEqual([]);
    expect(out.warnings).toEqual(['k8s dump: kinds not used: ServiceEntry']);
  });
});

describe('Istio Bookinfo', () => {
  it("Istio's ingress Gateway is a front door; the VirtualService bound to it routes to productpage", () => {
    const out = normalize(
      k8s,
      dump('istio-bookinfo', ['platform-kube-bookinfo.yaml', 'networking-bookinfo-gateway.yaml']),
      { cluster: 'bi' },
    );
    expect(out.node('LoadBalancer', 'bi/default/istio-gateway/bookinfo-gateway').properties).toMatchObject({
      internet_exposed: true,
      exposure_basis: 'istio-gateway',
    });
    expect(out.edges.filter((e) => e.startsWith('ROUTES_TO '))).toEqual([
      'ROUTES_TO bi/default/istio-gateway/bookinfo-gateway -> bi/default/service/productpage',
    ]);
    expect(out.edges).toContain('EXPOSES bi/default/service/productpage -> bi/default/productpage-v1');
    // No other Service is a start: reviews, ratings and details are reached only inside the mesh.
    expect(out.nodes.filter((n) => n.properties?.internet_exposed).map((n) => n.name)).toEqual([
      'bi/default/istio-gateway/bookinfo-gateway',
    ]);
    expect(out.warnings).toEqual([]);
  });

  it('the Gateway API variant gives the same front door to productpage', () => {
    const out = normalize(
      k8s,
      dump('istio-bookinfo', ['platform-kube-bookinfo.yaml', 'gateway-api-bookinfo-gateway.yaml']),
      { cluster: 'bi' },
    );
    expect(
      out.edgeProps('ROUTES_TO', 'bi/default/gateway/bookinfo-gateway', 'bi/default/service/productpage'),
    ).toEqual({
      route: 'HTTPRoute/bookinfo',
    });
  });
});

describe('Knative Serving core', () => {
  const out = normalize(k8s, dump('knative-serving'), { cluster: 'kn' });

  it("the controller's aggregated ClusterRole has knative-serving-core's rules: it creates pods and reads secrets", () => {
    expect(out.node('IAM_Role', 'kn/clusterrole/knative-serving-admin').properties?.aggregated_from).toEqual([
      'knative-serving-activator-cluster',
      'knative-serving-core',
    ]);
    expect(
      out.edgeProps('CAN_ESCALATE_TO', 'kn/clusterrole/knative-serving-admin', 'kn/cluster-admin'),
    ).toMatchObject({
      primitives: ['create-pods', 'read-secrets', 'pod-patch', 'admission-webhooks'],
      scope: 'cluster',
    });
    expect(out.edges).toContain('ASSUMES kn/knative-serving/controller -> kn/knative-serving/controller');
    expect(out.edges).toContain(
      'ASSUMES kn/knative-serving/controller -> kn/clusterrole/knative-serving-admin',
    );
  });

  it('says which images are ko:// build placeholders rather than references, and links them to nothing', () => {
    expect(out.warnings).toContain(
      'k8s dump: container images that are not image references, not linked to any scan: "ko://knative.dev/serving/cmd/controller"',
    );
    expect(out.edges.filter((e) => e.startsWith('DEPENDS_ON '))).toEqual([]);
  });

  it('twin: the aggregated addressable resolver takes a read-only role and escalates to nothing', () => {
    expect(
      out.node('IAM_Role', 'kn/clusterrole/knative-serving-aggregated-addressable-resolver').properties
        ?.aggregated_from,
    ).toEqual(['knative-serving-addressable-resolver']);
    expect(
      out.edgeProps(
        'CAN_ESCALATE_TO',
        'kn/clusterrole/knative-serving-aggregated-addressable-resolver',
        'kn/cluster-admin',
      ),
    ).toBeUndefined();
  });
});

describe('Gateway API examples', () => {
  const out = normalize(k8s, dump('gateway-api'), { cluster: 'gw' });

  it('a shared Gateway admits the routes of the namespaces its selector picks, to their Services', () => {
    const shared = out.edges.filter((e) => e.startsWith('ROUTES_TO gw/infra-ns/gateway/shared-gateway'));
    expect(shared).toEqual(
      [
        'site-ns/service/home',
        'site-ns/service/login-v1',
        'site-ns/service/login-v2',
        'store-ns/service/store',
      ].map((s) => `ROUTES_TO gw/infra-ns/gateway/shared-gateway -> gw/${s}`),
    );
    // Selected by the namespace's name label, the Namespace object not in the dump.
    expect(out.edges).toContain(
      'ROUTES_TO gw/gateway-api-example-ns1/gateway/foo-gateway -> gw/gateway-api-example-ns2/service/foo-svc',
    );
  });

  it('TCP listeners carry TCPRoutes by section; a mirror target is reached too', () => {
    expect(
      out.edgeProps('ROUTES_TO', 'gw/default/gateway/my-tcp-gateway', 'gw/default/service/my-foo-service'),
    ).toEqual({
      route: 'TCPRoute/tcp-app-1',
    });
    expect(out.edges).toContain(
      'ROUTES_TO gw/default/gateway/my-tcp-gateway -> gw/default/service/my-bar-service',
    );
    expect(out.edges).toContain('ROUTES_TO gw/default/gateway/mirror-gateway -> gw/default/service/foo-v2');
    // A Gateway only named by a route is drawn, but not claimed exposed: its own dump says.
    expect(
      out.node('LoadBalancer', 'gw/default/gateway/mirror-gateway').properties?.internet_exposed,
    ).toBeUndefined();
    expect(out.mentioned).toContain(out.node('LoadBalancer', 'gw/default/gateway/mirror-gateway').id);
  });
});

describe('Apache Pekko Management, the rolling-update integration test', () => {
  const out = normalize(k8s, dump('pekko-management'), { cluster: 'pk' });
  const account = 'pk/pekko-rolling-update-demo-ns/default';

  it('its User subject system:serviceaccount:<ns>:default is that service account, which may patch pods', () => {
    expect(out.edges).toContain(`ASSUMES ${account} -> pk/default/role/pod-annotator`);
    expect(out.node('ServiceAccount', account).properties).toMatchObject({
      cluster: 'pk',
      namespace: 'pekko-rolling-update-demo-ns',
    });
    expect(out.names('User')).toEqual([]);
    expect(
      out.edgeProps('CAN_ESCALATE_TO', 'pk/default/role/pod-annotator', 'pk/cluster-admin'),
    ).toMatchObject({
      primitives: ['pod-patch'],
      scope: 'namespace',
    });
  });

  it('twin: its ServiceAccount subject binds the read-only pod-reader, which escalates to nothing', () => {
    expect(out.edges).toContain('ASSUMES pk/default/default -> pk/default/role/pod-reader');
    expect(
      out.edgeProps('CAN_ESCALATE_TO', 'pk/default/role/pod-reader', 'pk/cluster-admin'),
    ).toBeUndefined();
  });
});

describe("Kyverno policies' ephemeral-container test pods", () => {
  const pod = (file: string) => normalize(k8s, dump('kyverno-policies', [file]), { cluster: 'ky' });
  const node = 'ky/node/unscheduled';

  it('a privileged ephemeral container escapes to the node; its unprivileged twin does not', () => {
    const bad = pod('disallow-privileged-containers-bad-pod-ephemeral.yaml');
    expect(escapes(bad, 'ky/default/bad-pod-ephemeral', node)).toEqual(['module-load', 'privileged-mount']);
    expect(bad.edgeProps('CAN_ESCALATE_TO', 'ky/default/bad-pod-ephemeral', node)?.reasons).toContain(
      'privileged-mount:container:ephemeral-container',
    );
    // The debug container's image is the workload's too.
    expect(bad.edges).toContain('DEPENDS_ON ky/default/bad-pod-ephemeral -> busybox:latest');
    const good = pod('disallow-privileged-containers-good-pod-ephemeral.yaml');
    expect(good.edges.filter((e) => e.startsWith('CAN_ESCALATE_TO'))).toEqual([]);
  });

  it("the ephemeral container's writable /var/log plants the kubelet log symlink; read-only everywhere, nothing", () => {
    // /etc is mounted read-only by an init and an app container (SSH keys and the kubelet's kubeconfig, as
    // before); only the ephemeral container mounts /var/log writable.
    const bad = pod('ensure-readonly-hostpath-bad-pods-all.yaml');
    expect(escapes(bad, 'ky/default/bad-pods-all', node)).toEqual([
      'host-read',
      'kubelet-dirs',
      'var-log-symlink',
    ]);
    expect(bad.edgeProps('CAN_ESCALATE_TO', 'ky/default/bad-pods-all', node)?.reasons).toContain(
      'var-log-symlink:hostPath:/var/log',
    );
    // The twin (its pod is named bad-pods-all too) mounts /var/log read-only in every container.
    const good = pod('ensure-readonly-hostpath-good-pods-all.yaml');
    expect(good.edges.filter((e) => e.startsWith('CAN_ESCALATE_TO'))).toEqual([]);
  });
});

describe('ingress-nginx for kind (controller on hostPort 80 and 443)', () => {
  const out = normalize(k8s, dump('ingress-nginx-kind'), { cluster: 'kind' });
  const controller = 'kind/ingress-nginx/ingress-nginx-controller';

  it('the controller binds 80 and 443 on its node; its webhook port 8443 stays in the pod', () => {
    expect(out.node('Service', controller).properties).toMatchObject({
      host_port_exposed: true,
      host_ports: ['80/TCP', '443/TCP'],
    });
    // Exposure is its Service's to say, as before: the host ports add no start and no edge of their own.
    expect(out.nodes.filter((n) => n.properties?.internet_exposed).map((n) => n.name)).toEqual([
      'kind/ingress-nginx/service/ingress-nginx-controller',
    ]);
    expect(out.edges).toContain(
      `EXPOSES kind/ingress-nginx/service/ingress-nginx-controller -> ${controller}`,
    );
  });

  it('twin: the admission Jobs declare no port and bind nothing on their node', () => {
    for (const job of ['ingress-nginx-admission-create', 'ingress-nginx-admission-patch'])
      expect(out.node('Service', `kind/ingress-nginx/${job}`).properties, job).not.toHaveProperty(
        'host_port_exposed',
      );
  });
});
