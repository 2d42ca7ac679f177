// The k8s ingest path's output pinned byte for byte (issue 14: the normalizer was made cheaper, and must
// yield what it yielded before). Each case is a dump (the bench's synthetic one, every real fixture, one
// seeded dump that reaches every branch of the mapping) and what it pins is the SHA-256 of the JSON of the
// normalizer's output, of the scrubbed envelope with its redactions, and of the bus chunks' JSON.
// test/ingest/k8s-output-stable.test.ts compares; scripts/k8s-golden.ts writes fixtures/k8s-golden.json
// (only ever from code whose output is known good). Issue 38 re-pinned the chunk digests of the five cases
// that split: slices are sized per field since, and the same items in the same order, each chunk within its
// limit, were checked against the previous chunker before the digests were written.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { syntheticClusterDump } from '../../bench/k8s.js';
import { chunkEnvelope } from '../../src/ingest/chunk.js';
import { scrubEnvelope } from '../../src/ingest/scrub.js';
import { createK8sSource } from '../../src/ingest/sources/k8s.js';
import { yamlToList } from '../../src/ingest/yaml.js';
import { REAL } from './normalize.js';
import { prng } from './random-estate.js';

export interface GoldenCase {
  name: string;
  body: () => unknown;
  query: Record<string, string>;
  /** Bus message limit for the chunk step: small ones make small dumps split too. */
  chunkLimit: number;
}

export interface GoldenDigest {
  nodes: number;
  edges: number;
  warnings: number;
  mentioned: number;
  redactions: number;
  chunks: number;
  /** SHA-256 of JSON.stringify of the normalizer's output ({ envelopes, warnings, mentioned }). */
  normalized: string;
  /** SHA-256 of the scrubbed envelopes and their redactions. */
  scrubbed: string;
  /** SHA-256 of the chunks' JSON, in order. */
  chunked: string;
}

const K8S = path.join(REAL, 'k8s');
const files = (dir: string): string[] =>
  readdirSync(dir)
    .sort()
    .flatMap((f) => {
      const full = path.join(dir, f);
      return statSync(full).isDirectory() ? files(full) : [full];
    });
const readFixture = (file: string): unknown => {
  const text = readFileSync(file, 'utf8');
  return file.endsWith('.json') ? JSON.parse(text) : yamlToList(text);
};

export function goldenCases(): GoldenCase[] {
  const real = files(K8S);
  return [
    { name: 'synthetic-50k', body: () => syntheticClusterDump(), query: {}, chunkLimit: 1024 * 1024 },
    {
      name: 'synthetic-50k cluster=prod',
      body: () => syntheticClusterDump(),
      query: { cluster: 'prod' },
      chunkLimit: 1024 * 1024,
    },
    {
      name: 'seeded-mixed',
      body: () => mixedDump(prng(14), 40),
      query: {},
      chunkLimit: 64 * 1024,
    },
    {
      name: 'seeded-mixed snapshot=cluster:east',
      body: () => mixedDump(prng(1414), 25),
      query: { snapshot: 'cluster:east' },
      chunkLimit: 16 * 1024,
    },
    {
      // Malformed names the API would refuse, which the mapping must still treat as it always has.
      name: 'odd-names',
      body: oddNames,
      query: {},
      chunkLimit: 4 * 1024,
    },
    ...real.map((file) => ({
      name: `real ${path.relative(K8S, file)}`,
      body: () => readFixture(file),
      query: {},
      chunkLimit: 8 * 1024,
    })),
    {
      // Roles in one file, bindings and pods in another: what the files say to one another.
      name: 'real all-in-one cluster=lab',
      body: () => ({ apiVersion: 'v1', kind: 'List', items: real.map(readFixture) }),
      query: { cluster: 'lab' },
      chunkLimit: 32 * 1024,
    },
  ];
}

const sha = (text: string) => createHash('sha256').update(text).digest('hex');

/** Runs one case through normalize, scrub and chunk; throws when the normalizer changed its input. */
export function digestCase(c: GoldenCase): GoldenDigest {
  const body = c.body();
  const before = JSON.stringify(body);
  const out = createK8sSource().normalize({ body, query: c.query, receivedAt: '2026-11-23T12:00:00.000Z' });
  if (JSON.stringify(body) !== before) throw new Error(`${c.name}: the normalizer changed its input`);
  const normalized = sha(JSON.stringify(out));
  const scrubs = out.envelopes.map((e) => scrubEnvelope(e));
  const scrubbed = sha(JSON.stringify(scrubs));
  const chunks = out.envelopes.flatMap((e) => chunkEnvelope(e, c.chunkLimit));
  const hash = createHash('sha256');
  for (const chunk of chunks) hash.update(chunk.json).update('\n');
  for (const chunk of chunks)
    if (JSON.stringify(chunk.envelope) !== chunk.json)
      throw new Error(`${c.name}: a chunk's JSON is not its envelope`);
  return {
    nodes: out.envelopes.reduce((s, e) => s + e.nodes.length, 0),
    edges: out.envelopes.reduce((s, e) => s + e.edges.length, 0),
    warnings: out.warnings?.length ?? 0,
    mentioned: out.mentioned?.length ?? 0,
    redactions: scrubs.reduce((s, r) => s + r.redactions.length, 0),
    chunks: chunks.length,
    normalized,
    scrubbed,
    chunked: hash.digest('hex'),
  };
}

/**
 * A seeded dump that reaches every branch the mapping has: controllers owning ReplicaSets owning pods (by
 * uid, by name, and through a ReplicaSet the dump lacks), StatefulSet, DaemonSet, Job and CronJob pods, bare
 * pods, init and ephemeral containers, running digests, secrets by env, envFrom, volumes and projected
 * volumes (with a secret-looking env value to scrub), every escape rule's trigger, service accounts with and
 * without automount, every Service type with internal annotations, ingresses through every backend form,
 * RBAC rules for each primitive, bindings of every subject kind and the built-in groups, nodes, secrets,
 * kinds the mapping does not use, and a few malformed objects.
 */
export function mixedDump(random: () => number, namespaces: number): { kind: 'List'; items: unknown[] } {
  const pick = <T>(from: readonly T[]): T => from[Math.floor(random() * from.length)];
  const chance = (p: number) => random() < p;
  const items: Record<string, unknown>[] = [];
  const hex = (n: number) =>
    Array.from({ length: n }, () => '0123456789abcdef'[Math.floor(random() * 16)]).join('');
  const images = [
    'nginx:1.25',
    'docker.io/library/alpine:3.19',
    'ghcr.io/acme/api:2.1',
    `registry.local:5000/team/job@sha256:${'a'.repeat(64)}`,
    'busybox',
    'not an image',
    '',
    'quay.io/org/agent:v3',
  ];
  const hostPaths = [
    '/',
    '/etc',
    '/var/log',
    '/var/run/docker.sock',
    '/run/containerd/containerd.sock',
    '/proc',
    '/var/lib/kubelet/pods',
    '/home/',
    '/tmp//x',
    '/sys',
  ];
  const caps = ['SYS_ADMIN', 'cap_sys_ptrace', 'SYS_MODULE', 'ALL', 'NET_ADMIN', 'DAC_READ_SEARCH'];
  const nodes = Array.from({ length: 6 }, (_, i) => `worker-${i}`);
  const container = (name: string) => {
    const c: Record<string, unknown> = { name, image: pick(images) };
    if (chance(0.3))
      c.env = [
        { name: 'A', value: 'plain' },
        { name: 'TOKEN', valueFrom: { secretKeyRef: { name: pick(['db', 'api-key', 'tls']), key: 'k' } } },
        { name: 'CFG', valueFrom: { configMapKeyRef: { name: 'cfg', key: 'k' } } },
        ...(chance(0.2) ? [{ name: 'AWS', value: 'AKIAABCDEFGHIJKLMNOP' }] : []),
      ];
    if (chance(0.15))
      c.envFrom = [{ secretRef: { name: pick(['db', 'env-secret']) } }, { configMapRef: { name: 'x' } }];
    if (chance(0.2)) {
      const context: Record<string, unknown> = {};
      if (chance(0.4)) context.privileged = chance(0.7);
      if (chance(0.5)) context.capabilities = { add: [pick(caps), ...(chance(0.3) ? [pick(caps)] : [])] };
      if (chance(0.3)) context.runAsNonRoot = true;
      if (chance(0.3)) context.runAsUser = pick([0, 1000]);
      c.securityContext = context;
    }
    if (chance(0.3))
      c.volumeMounts = [{ name: `host-${Math.floor(random() * 3)}`, mountPath: '/h', readOnly: chance(0.5) }];
    return c;
  };
  const podSpec = (ns: string) => {
    const spec: Record<string, unknown> = {
      containers: [container('main'), ...(chance(0.3) ? [container('sidecar')] : [])],
    };
    if (chance(0.2)) spec.initContainers = [container('init')];
    if (chance(0.05)) spec.ephemeralContainers = [{ name: 'debug', image: 'busybox:1.36' }];
    if (chance(0.7)) spec.serviceAccountName = `sa-${Math.floor(random() * 4)}`;
    else if (chance(0.3)) spec.serviceAccount = 'legacy';
    if (chance(0.1)) spec.automountServiceAccountToken = chance(0.5);
    if (chance(0.6)) spec.nodeName = pick(nodes);
    if (chance(0.08)) spec.hostPID = true;
    if (chance(0.1)) spec.securityContext = { runAsNonRoot: chance(0.5), runAsUser: 1000 };
    const volumes: unknown[] = [];
    for (let h = 0; h < 3; h++)
      if (chance(0.25)) volumes.push({ name: `host-${h}`, hostPath: { path: pick(hostPaths) } });
    if (chance(0.2))
      volumes.push({ name: 'sec', secret: { secretName: pick(['tls', 'db', `${ns}-certs`]) } });
    if (chance(0.1))
      volumes.push({
        name: 'proj',
        projected: { sources: [{ secret: { name: 'projected' } }, { configMap: { name: 'c' } }] },
      });
    if (volumes.length) spec.volumes = volumes;
    return spec;
  };
  const labels = () => ({
    app: `app-${Math.floor(random() * 5)}`,
    ...(chance(0.5) ? { tier: pick(['web', 'db']) } : {}),
  });
  const statusOf = (spec: Record<string, unknown>) => ({
    containerStatuses: (spec.containers as { name: string; image: string }[]).map((c) => ({
      name: c.name,
      imageID: chance(0.6) ? `${c.image}@sha256:${hex(64)}` : 'docker://abc',
    })),
  });

  for (let n = 0; n < namespaces; n++) {
    const ns = n === 0 ? 'kube-system' : `ns-${n}`;
    const meta = (name: string, extra: Record<string, unknown> = {}) => ({ name, namespace: ns, ...extra });
    for (let s = 0; s < 4; s++) {
      const sa: Record<string, unknown> = {
        apiVersion: 'v1',
        kind: 'ServiceAccount',
        metadata: meta(`sa-${s}`),
      };
      if (chance(0.3)) sa.automountServiceAccountToken = chance(0.5);
      items.push(sa);
    }
    // A Deployment, its ReplicaSet and pods (owners by uid; one pod by name only).
    for (let d = 0; d < 2; d++) {
      const template = { metadata: { labels: labels() }, spec: podSpec(ns) };
      const depUid = `dep-${n}-${d}`;
      const rsName = `web-${d}-${hex(10)}`;
      items.push({ kind: 'Deployment', metadata: meta(`web-${d}`, { uid: depUid }), spec: { template } });
      items.push({
        kind: 'ReplicaSet',
        metadata: meta(rsName, {
          uid: `rs-${n}-${d}`,
          ownerReferences: [{ kind: 'Deployment', name: `web-${d}`, uid: depUid, controller: true }],
        }),
        spec: { template },
      });
      for (let p = 0; p < 3; p++) {
        const spec = podSpec(ns);
        items.push({
          kind: 'Pod',
          metadata: meta(`${rsName}-${hex(5)}`, {
            labels: template.metadata.labels,
            ownerReferences: [
              p === 2
                ? { kind: 'ReplicaSet', name: rsName }
                : { kind: 'ReplicaSet', name: rsName, uid: `rs-${n}-${d}`, controller: true },
            ],
          }),
          spec,
          status: statusOf(spec),
        });
      }
    }
    // Pods of a ReplicaSet the dump does not hold (named by pod-template-hash).
    {
      const hash = hex(10);
      const spec = podSpec(ns);
      items.push({
        kind: 'Pod',
        metadata: meta(`orphan-${hash}-${hex(5)}`, {
          labels: { ...labels(), 'pod-template-hash': hash },
          ownerReferences: [{ kind: 'ReplicaSet', name: `orphan-${hash}` }],
        }),
        spec,
      });
    }
    // StatefulSet, DaemonSet, Job and CronJob with pods; a bare pod; a pod owned by a kind that is no controller.
    items.push({
      kind: 'StatefulSet',
      metadata: meta('db', { uid: `sts-${n}` }),
      spec: { template: { metadata: { labels: { app: 'db' } }, spec: podSpec(ns) } },
    });
    for (let p = 0; p < 2; p++) {
      const spec = podSpec(ns);
      items.push({
        kind: 'Pod',
        metadata: meta(`db-${p}`, {
          labels: { app: 'db' },
          ownerReferences: [{ kind: 'StatefulSet', name: 'db', uid: `sts-${n}`, controller: true }],
        }),
        spec,
        status: statusOf(spec),
      });
    }
    items.push({
      kind: 'DaemonSet',
      metadata: meta('agent', { uid: `ds-${n}` }),
      spec: { template: { metadata: { labels: { app: 'agent' } }, spec: podSpec(ns) } },
    });
    items.push({
      kind: 'Pod',
      metadata: meta(`agent-${hex(5)}`, {
        labels: { app: 'agent' },
        ownerReferences: [{ kind: 'DaemonSet', name: 'agent', uid: `ds-${n}` }],
      }),
      spec: podSpec(ns),
    });
    items.push({
      kind: 'CronJob',
      metadata: meta('nightly', { uid: `cj-${n}` }),
      spec: { jobTemplate: { spec: { template: { spec: podSpec(ns) } } } },
    });
    items.push({
      kind: 'Job',
      metadata: meta(`nightly-${hex(8)}`, {
        uid: `job-${n}`,
        ownerReferences: [{ kind: 'CronJob', name: 'nightly', uid: `cj-${n}`, controller: true }],
      }),
      spec: { template: { spec: podSpec(ns) } },
    });
    items.push({ kind: 'Pod', metadata: meta(`bare-${n}`, { labels: labels() }), spec: podSpec(ns) });
    items.push({
      kind: 'Pod',
      metadata: meta(`custom-${n}`, { ownerReferences: [{ kind: 'Rollout', name: 'r' }] }),
      spec: podSpec(ns),
    });
    // Services of every type; ingresses through every backend form, some to services the dump lacks.
    for (let s = 0; s < 3; s++) {
      const type = pick(['ClusterIP', 'LoadBalancer', 'NodePort', undefined]);
      const annotations = chance(0.3)
        ? { 'service.beta.kubernetes.io/aws-load-balancer-internal': pick(['true', 'false', ' TRUE ']) }
        : chance(0.2)
          ? { 'networking.gke.io/load-balancer-type': 'Internal' }
          : undefined;
      items.push({
        kind: 'Service',
        metadata: meta(`svc-${s}`, annotations ? { annotations } : {}),
        spec: {
          ...(type ? { type } : {}),
          ...(chance(0.8) ? { selector: chance(0.7) ? { app: `app-${s}` } : { app: 'db' } } : {}),
        },
      });
    }
    items.push({
      kind: 'Ingress',
      metadata: meta('main'),
      spec: {
        defaultBackend: { service: { name: 'svc-0' } },
        rules: [
          {
            http: {
              paths: [{ backend: { service: { name: 'svc-1' } } }, { backend: { serviceName: 'missing' } }],
            },
          },
          { host: 'x' },
        ],
      },
    });
    if (chance(0.5))
      items.push({ kind: 'Ingress', metadata: meta('legacy'), spec: { backend: { serviceName: 'svc-2' } } });
    // RBAC: a role per primitive now and then, bindings of every subject kind.
    const ruleSets = [
      [{ apiGroups: [''], resources: ['pods'], verbs: ['create'] }],
      [
        {
          apiGroups: [''],
          resources: ['secrets'],
          verbs: ['get', 'list'],
          ...(chance(0.5) ? { resourceNames: ['db'] } : {}),
        },
      ],
      [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }],
      [
        {
          apiGroups: ['rbac.authorization.k8s.io'],
          resources: ['clusterroles'],
          verbs: ['bind', 'escalate'],
        },
      ],
      [{ apiGroups: [''], resources: ['users', 'groups', 'serviceaccounts'], verbs: ['impersonate'] }],
      [{ apiGroups: [''], resources: ['serviceaccounts/token'], verbs: ['create'] }],
      [{ apiGroups: [''], resources: ['pods/exec', 'pods/attach'], verbs: ['create', 'get'] }],
      [
        { apiGroups: [''], resources: ['pods'], verbs: ['patch'] },
        { apiGroups: [''], resources: ['pods/ephemeralcontainers'], verbs: ['update'] },
      ],
      [{ apiGroups: [''], resources: ['nodes/proxy'], verbs: ['get'] }],
      [
        { apiGroups: [''], resources: ['configmaps'], verbs: ['get'] },
        { nonResourceURLs: ['/healthz'], verbs: ['get'] },
      ],
      'not a list',
    ];
    for (let r = 0; r < 3; r++)
      items.push({ kind: 'Role', metadata: meta(`role-${r}`), rules: pick(ruleSets) });
    items.push({ kind: 'Role', metadata: meta('admin'), rules: [] });
    const subjects = () => [
      {
        kind: 'ServiceAccount',
        name: `sa-${Math.floor(random() * 5)}`,
        ...(chance(0.5) ? { namespace: ns } : {}),
      },
      ...(chance(0.3) ? [{ kind: 'User', name: pick(['alice', 'bob']) }] : []),
      ...(chance(0.2)
        ? [
            {
              kind: 'Group',
              name: pick([
                'system:authenticated',
                'system:serviceaccounts',
                `system:serviceaccounts:${ns}`,
                'system:unauthenticated',
                'devs',
              ]),
            },
          ]
        : []),
      ...(chance(0.1) ? [{ kind: 'ServiceAccount' }, null] : []),
    ];
    for (let b = 0; b < 3; b++)
      items.push({
        kind: 'RoleBinding',
        metadata: meta(`bind-${b}`),
        roleRef: { kind: 'Role', name: pick(['role-0', 'role-1', 'role-2', 'gone', 'admin']) },
        subjects: subjects(),
      });
    items.push({
      kind: 'RoleBinding',
      metadata: meta('to-cluster'),
      roleRef: { kind: 'ClusterRole', name: pick(['edit', 'view', 'escalator', 'absent-admin']) },
      subjects: subjects(),
    });
    items.push({
      kind: 'Secret',
      metadata: meta(pick(['db', 'tls', 'other'])),
      type: pick(['Opaque', 'kubernetes.io/tls', 7]),
    });
    items.push({ kind: 'ConfigMap', metadata: meta('cfg'), data: { a: 'b' } });
    if (chance(0.2)) items.push({ kind: 'Pod', metadata: { namespace: ns }, spec: podSpec(ns) });
    if (chance(0.2)) items.push({ kind: 'Service', metadata: meta('') });
  }
  items.push(
    {
      kind: 'ClusterRole',
      metadata: { name: 'edit' },
      rules: [{ apiGroups: [''], resources: ['pods/exec'], verbs: ['create'] }],
    },
    {
      kind: 'ClusterRole',
      metadata: { name: 'view' },
      rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }],
    },
    {
      kind: 'ClusterRole',
      metadata: { name: 'escalator' },
      rules: [
        { apiGroups: [''], resources: ['nodes'], verbs: ['*'] },
        { apiGroups: ['rbac.authorization.k8s.io'], resources: ['clusterroles'], verbs: ['bind'] },
      ],
    },
    {
      kind: 'ClusterRoleBinding',
      metadata: { name: 'crb' },
      roleRef: { kind: 'ClusterRole', name: 'escalator' },
      subjects: [
        { kind: 'Group', name: 'system:authenticated' },
        { kind: 'ServiceAccount', name: 'sa-1', namespace: 'ns-1' },
      ],
    },
    {
      kind: 'ClusterRoleBinding',
      metadata: { name: 'unauth' },
      roleRef: { kind: 'ClusterRole', name: 'view' },
      subjects: [{ kind: 'Group', name: 'system:unauthenticated' }],
    },
    {
      kind: 'ClusterRoleBinding',
      metadata: { name: 'gone' },
      roleRef: { kind: 'ClusterRole', name: 'cluster-admin' },
      subjects: [{ kind: 'User', name: 'root' }],
    },
    ...nodes.map((name) => ({ kind: 'Node', metadata: { name } })),
    { kind: 'Namespace', metadata: { name: 'ns-1' } },
    { kind: 'List', items: [{ kind: 'NetworkPolicy', metadata: { name: 'np', namespace: 'ns-1' } }] },
  );
  return { kind: 'List', items };
}

/**
 * Names the API server would refuse: namespaces and names holding `/` (so `<namespace>/<name>` keys of two
 * different objects meet), names differing only in case (one node id), numbers for names, duplicate objects.
 */
function oddNames(): unknown {
  const pod = (namespace: unknown, name: unknown, extra: Record<string, unknown> = {}) => ({
    kind: 'Pod',
    metadata: { namespace, name, labels: { app: 'x' } },
    spec: {
      serviceAccountName: 'b/c',
      nodeName: 'n1',
      containers: [{ name: 'c', image: 'nginx:1', securityContext: { privileged: true } }],
      volumes: [{ name: 's', secret: { secretName: 'x/y' } }],
      ...extra,
    },
  });
  return {
    kind: 'List',
    items: [
      {
        kind: 'ServiceAccount',
        metadata: { namespace: 'a', name: 'b/c' },
        automountServiceAccountToken: false,
      },
      { kind: 'ServiceAccount', metadata: { namespace: 'a/b', name: 'c' } },
      { kind: 'Secret', metadata: { namespace: 'a/x', name: 'y' } },
      pod('a', 'web-0'),
      pod('a/web-0', 'x'),
      pod('a', 'Web-0'),
      pod('a', 'web-0-7d4b9c8f6d-abcde'),
      pod('a', 'web'),
      pod('a', 42, { nodeName: 'n2' }),
      pod(7, 'p'),
      pod('a', 'web-0'),
      {
        kind: 'Service',
        metadata: { namespace: 'a', name: 'svc/x' },
        spec: { selector: { app: 'x' }, type: 'NodePort' },
      },
      { kind: 'Service', metadata: { namespace: 'a/svc', name: 'y' }, spec: { selector: { app: 'x' } } },
      {
        kind: 'Ingress',
        metadata: { namespace: 'a', name: 'i' },
        spec: {
          rules: [
            {
              http: {
                paths: [
                  { backend: { service: { name: 'svc/x' } } },
                  { backend: { service: { name: 'svc/y' } } },
                ],
              },
            },
          ],
        },
      },
      {
        kind: 'Role',
        metadata: { namespace: 'a', name: 'r/1' },
        rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['create'] }],
      },
      {
        kind: 'RoleBinding',
        metadata: { namespace: 'a', name: 'b' },
        roleRef: { kind: 'Role', name: 'r/1' },
        subjects: [
          { kind: 'ServiceAccount', name: 'c', namespace: 'a/b' },
          { kind: 'Group', name: 'system:serviceaccounts:a/b' },
        ],
      },
      {
        kind: 'RoleBinding',
        metadata: { namespace: 'a/x', name: 'b2' },
        roleRef: { kind: 'Role', name: 'r/1' },
        subjects: [{ kind: 'ServiceAccount', name: 'b/c', namespace: 'a' }],
      },
    ],
  };
}
