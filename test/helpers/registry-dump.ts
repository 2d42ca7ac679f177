// A real Kubernetes example dump for end-to-end tests: ingress-nginx's docker-registry example (Deployment,
// Service, Ingress), its container running the image the real Trivy golden scanned and privileged
// (KubeHound's CE_PRIV_MOUNT container), so that the route from the ingress reaches the node.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { yamlToList } from '../../src/ingest/yaml.js';
import { REAL } from './normalize.js';

export type Json = Record<string, any>;

/** The image the real Trivy golden scanned (an archive saved as this reference), with a critical CVE. */
export const SCANNED = 'ghcr.io/aquasecurity/trivy-test-images:debian-buster';

/**
 * The real docker-registry example of ingress-nginx (Deployment, Service, Ingress), its container running
 * the scanned image and privileged (KubeHound's CE_PRIV_MOUNT container), so that the route reaches the
 * node; optionally with the Pod its ReplicaSet made, scheduled on a node.
 */
export function registryDump(options: { pod?: boolean } = {}): Json {
  const read = (file: string) => yamlToList(readFileSync(path.join(REAL, 'k8s/ingress-nginx', file), 'utf8'));
  const items = [
    ...read('examples-docker-registry-deployment.yaml').items,
    ...read('examples-docker-registry-ingress-with-tls.yaml').items,
  ] as Json[];
  const deployment = items.find((o) => o.kind === 'Deployment')!;
  const container = deployment.spec.template.spec.containers[0];
  container.image = SCANNED;
  container.securityContext = { privileged: true };
  if (options.pod) {
    items.push({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'docker-registry-6d5f7c9b8-x2k4q',
        namespace: 'docker-registry',
        labels: { ...deployment.spec.template.metadata.labels, 'pod-template-hash': '6d5f7c9b8' },
        ownerReferences: [
          { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'docker-registry-6d5f7c9b8', controller: true },
        ],
      },
      spec: { ...deployment.spec.template.spec, nodeName: 'ip-10-0-1-7' },
    });
  }
  return { apiVersion: 'v1', kind: 'List', items };
}
