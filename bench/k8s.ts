// Kubernetes dump ingest (BENCH_SUITES=k8s): a synthetic `kubectl get -o json` List of 50,000 objects
// (30,000 pods, 5,000 services, 2,000 ingresses, 5,000 service accounts, 4,000 roles, 4,000 bindings in
// 500 namespaces), through the k8s normalizer alone and through a running service.
import { createK8sSource } from '../src/ingest/sources/k8s.js';
import { timeOneReport } from './child.js';

export function syntheticClusterDump(namespaces = 500) {
  const items: Record<string, unknown>[] = [];

  for (let n = 0; n < namespaces; n++) {
    const ns = `team-${n}`;
    for (let s = 0; s < 10; s++) {
      items.push({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: `sa-${s}`, namespace: ns } });
      items.push({
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: `svc-${s}`, namespace: ns },
        spec: { selector: { app: `app-${s}` } },
      });
      for (let p = 0; p < 6; p++) {
        items.push({
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: {
            name: `app-${s}-7d4b9c8f6d-${String(p).padStart(5, 'x')}`,
            namespace: ns,
            labels: { app: `app-${s}` },
          },
          spec: {
            serviceAccountName: `sa-${s}`,
            nodeName: `node-${(n * 10 + s) % 200}`,
            containers: [
              {
                name: 'main',
                image: `ghcr.io/acme/app-${s}:1.${p}`,
                ...(p === 0 && s === 0 ? { securityContext: { privileged: true } } : {}),
              },
            ],
          },
        });
      }
    }
    for (let i = 0; i < 4; i++)
      items.push({
        apiVersion: 'networking.k8s.io/v1',
        kind: 'Ingress',
        metadata: { name: `ing-${i}`, namespace: ns },
        spec: { rules: [{ http: { paths: [{ backend: { service: { name: `svc-${i}` } } }] } }] },
      });
    for (let r = 0; r < 8; r++) {
      items.push({
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'Role',
        metadata: { name: `role-${r}`, namespace: ns },
        rules: [
          {
            apiGroups: [''],
            resources: r === 0 ? ['pods'] : ['configmaps'],
            verbs: r === 0 ? ['create'] : ['get', 'list'],
          },
        ],
      });
      items.push({
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name: `bind-${r}`, namespace: ns },
        subjects: [{ kind: 'ServiceAccount', name: `sa-${r}`, namespace: ns }],
        roleRef: { kind: 'Role', name: `role-${r}` },
      });
    }
  }
  return { apiVersion: 'v1', kind: 'List', items };
}

export async function runK8sBench(root: string, outDir: string): Promise<void> {
  // Only the text is kept: the dump's 50,000 objects, alive through the normalizer runs, would make every
  // full collection there mark them too, a cost of this bench and not of the normalizer.
  const { text, objects } = ((dump) => ({ text: JSON.stringify(dump), objects: dump.items.length }))(
    syntheticClusterDump(),
  );
  console.log(`k8s: synthetic cluster dump, ${objects} objects (${(text.length / 1048576).toFixed(1)} MiB)`);
  const k8s = createK8sSource();
  const times: number[] = [];
  let counts = { nodes: 0, edges: 0 };
  for (let i = 0; i < 5; i++) {
    const began = performance.now();
    const out = k8s.normalize({ body: JSON.parse(text), query: {}, receivedAt: new Date().toISOString() });
    times.push(performance.now() - began);
    counts = { nodes: out.envelopes[0].nodes.length, edges: out.envelopes[0].edges.length };
  }
  times.sort((a, b) => a - b);
  console.log(
    `  normalizer (JSON.parse + normalize): median ${times[2].toFixed(0)} ms (${counts.nodes} nodes, ${counts.edges} edges)`,
  );
  await timeOneReport(root, `${outDir}/data-k8s`, 'k8s', text, { again: true });
}
