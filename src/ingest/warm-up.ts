// Runs the ingest path once on small synthetic reports (a Kubernetes dump and a raw envelope) into a
// throwaway graph, so that the first real report after a start finds the normalizers, the scrubber, the
// chunker, the journal's serializer and the graph writer already compiled by V8. Cold, the first 50,000-
// object cluster dump spent about a third of its time in code V8 had not optimized yet (docs/perf.md,
// "Kubernetes path truth"). Nothing here touches a tenant, the journal or a metric.
import { serializeRecord } from '../bus/memory.js';
import { GraphWriter } from '../graph/writer.js';
import { createTenantGraph } from '../graph/model.js';
import { nodeId } from '../graph/ids.js';
import { silentLog } from '../log/logger.js';
import { chunkEnvelope } from './chunk.js';
import { chunkRawEnvelope } from './chunk-raw.js';
import { envelopeJsonOf } from './envelope-json.js';
import { prepareEventsByItem } from './events-by-item.js';
import { parseJsonBody } from './json-body.js';
import { scrubEnvelope } from './scrub.js';
import type { IngestSource } from './sources/source.js';

/** Namespaces in the synthetic dump: about 25 objects each. */
const NAMESPACES = 12;
/** Assets in the synthetic envelope, four hops each. */
const ASSETS = 800;
/** V8 optimizes a function after enough calls; two rounds get the writer's per-item code there. */
export const ROUNDS = 2;
/**
 * The k8s normalizer's per-object code needs more: after two rounds of the 300-object dump the first 50,000-
 * object dump still ran 435–530 ms against 210–300 ms for the next ones (docs/perf.md, "Tenth session").
 * V8 optimizes a function once it has run enough of its own bytecode, and each new inline-cache state starts
 * that count again: after 20 rounds about 45 of the normalizer's functions (the RBAC rules, the per-dump
 * loops) were still unoptimized when the first real dump came, and compiling them then took the other core
 * from under it. 60 rounds (100–170 ms more at start) brought that first dump's main-thread time from
 * 300–440 ms to 246–311 ms (docs/perf.md, "The warm-up's rounds").
 */
export const NORMALIZE_ROUNDS = 60;

/** A small cluster that uses every kind and field the k8s normalizer maps. */
export function warmUpClusterDump(namespaces = NAMESPACES): {
  apiVersion: string;
  kind: string;
  items: object[];
} {
  const items: object[] = [
    { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-0' } },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'reader' },
      rules: [{ apiGroups: [''], resources: ['pods', 'secrets'], verbs: ['get', 'list'] }],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'reader' },
      subjects: [{ kind: 'Group', name: 'system:serviceaccounts:team-0' }],
      roleRef: { kind: 'ClusterRole', name: 'reader' },
    },
  ];
  for (let n = 0; n < namespaces; n++) {
    const namespace = `team-${n}`;
    const meta = (name: string, extra: object = {}) => ({ name, namespace, ...extra });
    const podSpec = (i: number) => ({
      serviceAccountName: `sa-${i % 2}`,
      nodeName: 'node-0',
      containers: [
        {
          name: 'main',
          image: `registry.example/team-${n}/app-${i}:1.${i}`,
          env: [{ name: 'DB', valueFrom: { secretKeyRef: { name: 'db', key: 'url' } } }],
          envFrom: [{ secretRef: { name: 'api' } }],
          ...(i === 0 && { securityContext: { privileged: true } }),
        },
      ],
      initContainers: [{ name: 'init', image: `registry.example/tools/init:${i}` }],
      volumes: [
        { name: 'certs', secret: { secretName: 'certs' } },
        ...(i === 1 ? [{ name: 'host', hostPath: { path: '/var/log' } }] : []),
      ],
      ...(i === 2 && { hostPID: true }),
    });
    items.push(
      { apiVersion: 'v1', kind: 'ServiceAccount', metadata: meta('sa-0') },
      {
        apiVersion: 'v1',
        kind: 'ServiceAccount',
        metadata: meta('sa-1'),
        automountServiceAccountToken: false,
      },
      { apiVersion: 'v1', kind: 'Secret', metadata: meta('db') },
      { apiVersion: 'v1', kind: 'Secret', metadata: meta('api') },
    );
    for (let i = 0; i < 3; i++) {
      const labels = { app: `app-${i}` };
      items.push(
        {
          apiVersion: 'v1',
          kind: 'Service',
          metadata: meta(`svc-${i}`),
          spec: { selector: labels, ...(i === 0 && { type: 'LoadBalancer' }) },
        },
        {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: meta(`app-${i}`, { uid: `d-${n}-${i}` }),
          spec: { selector: { matchLabels: labels }, template: { metadata: { labels }, spec: podSpec(i) } },
        },
        {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          metadata: meta(`app-${i}-5d8f7c`, {
            uid: `r-${n}-${i}`,
            labels: { ...labels, 'pod-template-hash': '5d8f7c' },
            ownerReferences: [{ kind: 'Deployment', name: `app-${i}`, uid: `d-${n}-${i}` }],
          }),
          spec: { template: { metadata: { labels }, spec: podSpec(i) } },
        },
      );
      for (let p = 0; p < 2; p++)
        items.push({
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: meta(`app-${i}-5d8f7c-${p}x`, {
            labels: { ...labels, 'pod-template-hash': '5d8f7c' },
            ownerReferences: [{ kind: 'ReplicaSet', name: `app-${i}-5d8f7c`, uid: `r-${n}-${i}` }],
          }),
          spec: podSpec(i),
          status: {
            containerStatuses: [
              { name: 'main', imageID: `registry.example/team-${n}/app-${i}@sha256:${'ab'.repeat(32)}` },
            ],
          },
        });
    }
    // As a pods-only listing (`kubectl get pods -A -o json`) gives them: no owner in the dump, so each Pod is
    // a workload of its own, and a Service selects them all (the selector loop of a dense namespace).
    for (let p = 0; p < 6; p++)
      items.push({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: meta(`web-7d4b9c8f6d-x2z4${p}`, { labels: { app: 'web' } }),
        spec: {
          serviceAccountName: 'sa-0',
          nodeName: 'node-0',
          // Containers of the shapes most pods have (the fuller one is in podSpec): code optimized on one
          // shape only is thrown away at the first dump that brings another (the helper's trace: seven
          // such deoptimizations, on a container with a security context).
          containers: [
            {
              name: 'main',
              image: `registry.example/team-${n}/web:1.${p % 2}`,
              ...(p % 3 === 1 && { securityContext: { runAsNonRoot: true } }),
              ...(p % 3 === 2 && { ports: [{ containerPort: 8080 }] }),
            },
          ],
        },
      });
    items.push({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: meta('web'),
      spec: { selector: { app: 'web' } },
    });
    items.push(
      {
        apiVersion: 'networking.k8s.io/v1',
        kind: 'Ingress',
        metadata: meta('web'),
        spec: { rules: [{ http: { paths: [{ backend: { service: { name: 'svc-1' } } }] } }] },
      },
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'Role',
        metadata: meta('deployer'),
        rules: [
          { apiGroups: ['apps'], resources: ['deployments'], verbs: ['create', 'patch'] },
          { apiGroups: [''], resources: ['secrets'], resourceNames: ['db'], verbs: ['get'] },
        ],
      },
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: meta('deployer'),
        subjects: [{ kind: 'ServiceAccount', name: 'sa-0', namespace }],
        roleRef: { kind: 'Role', name: 'deployer' },
      },
    );
  }
  return { apiVersion: 'v1', kind: 'List', items };
}

/** A raw envelope shaped like an estate: exposed load balancers, services, roles, secrets, CVEs. */
export function warmUpEnvelope(assets = ASSETS): object {
  const labels = ['LoadBalancer', 'Service', 'IAM_Role', 'Secret', 'CVE'] as const;
  const nodes: object[] = [];
  const ids: string[] = [];
  for (let i = 0; i < assets; i++) {
    const label = labels[i % labels.length];
    const name = label === 'CVE' ? `CVE-2099-${10000 + i}` : `warm-up-${i}`;
    ids.push(nodeId(label, name));
    nodes.push({
      id: ids[i],
      label,
      name,
      properties:
        label === 'LoadBalancer'
          ? { internet_exposed: true }
          : label === 'Secret'
            ? { crown_jewel: true }
            : {},
    });
  }
  const types = ['ROUTES_TO', 'ASSUMES', 'HAS_PERMISSION', 'EXPOSES'] as const;
  const edges: object[] = [];
  for (let i = 0; i + 1 < assets; i++)
    for (let d = 1; d <= 4 && i + d < assets; d++)
      edges.push({
        type: types[(i + d) % types.length],
        from: ids[i],
        to: ids[i + d],
        exploit_probability: 0.5,
      });
  return { source: 'warm-up', kind: 'asset', observed_at: new Date(0).toISOString(), nodes, edges };
}

/**
 * Normalizes the cluster dump `NORMALIZE_ROUNDS` times, then normalizes, scrubs, chunks, serializes and
 * applies the samples into a graph of its own, `ROUNDS` times. Returns the milliseconds it took. A source
 * missing from `sources` is skipped.
 */
export function warmUpIngest(sources: ReadonlyMap<string, IngestSource>): number {
  const began = performance.now();
  const samples: [string, string, () => object][] = [
    ['k8s', 'k8s:cluster/warm-up', () => warmUpClusterDump()],
    ['events', 'events:warm-up', () => warmUpEnvelope()],
  ];
  // The cluster dump alone first: the per-object code a large dump runs is the normalizer's.
  const k8s = sources.get('k8s');
  if (k8s) {
    const text = JSON.stringify(warmUpClusterDump());
    for (let round = 0; round < NORMALIZE_ROUNDS; round++)
      k8s.normalize({ body: JSON.parse(text) as unknown, query: {}, receivedAt: new Date().toISOString() });
  }
  for (let round = 0; round < ROUNDS; round++) {
    const writer = new GraphWriter(createTenantGraph(), { log: silentLog(), parkedTtlMs: 60_000 });
    for (const [name, scope, sample] of samples) {
      const source = sources.get(name);
      if (!source) continue;
      // As the ingest route gets it: parsed from text, the text kept (events cuts its chunks from it).
      const body = parseJsonBody(JSON.stringify(sample()), { keepText: true });
      const receivedAt = Date.now();
      const output = source.normalize({ body, query: {}, receivedAt: new Date(receivedAt).toISOString() });
      for (const [index, envelope] of output.envelopes.entries()) {
        scrubEnvelope(envelope);
        const raw = output.raw?.[index];
        const chunks = raw ? chunkRawEnvelope(envelope, raw, 64 * 1024) : chunkEnvelope(envelope, 64 * 1024);
        chunks.forEach((cut, chunk) => {
          serializeRecord({
            tenant: 'warm-up',
            ingestSource: name,
            batchId: 'b-warm-up',
            chunk,
            chunks: chunks.length,
            receivedAt,
            envelope: cut.envelope,
            envelopeJson: envelopeJsonOf(cut),
            scope,
          });
          writer.apply(cut.envelope, receivedAt, scope);
        });
      }
      writer.completeScope(scope);
    }
  }
  return performance.now() - began;
}

/**
 * Prepares the envelope sample item by item `ROUNDS` times, as an ingest worker reads a large events body
 * (events-by-item.ts): only a worker runs that path, so only a worker warms it (its checks' compile and two
 * rounds took about 80 ms, which the event loop's start need not pay). Returns the milliseconds it took.
 */
export function warmUpItemByItem(sources: ReadonlyMap<string, IngestSource>): number {
  const began = performance.now();
  const events = sources.get('events');
  if (events) {
    const text = JSON.stringify(warmUpEnvelope());
    for (let round = 0; round < ROUNDS; round++)
      prepareEventsByItem(events, text, {
        query: {},
        receivedAt: Date.now(),
        scrub: true,
        onChunk: () => {},
      });
  }
  return performance.now() - began;
}
