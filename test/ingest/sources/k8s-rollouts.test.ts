// Argo Rollouts (the `Rollout` controller, argoproj.io): a Rollout is a workload like a Deployment, from its
// pod template; its pods, through its ReplicaSets, are the Rollout's. Each case with a twin.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readReport } from '../../../src/ingest/recognize.js';
import { createK8sSource } from '../../../src/ingest/sources/k8s.js';
import { normalize } from '../../helpers/normalize.js';

const k8s = createK8sSource();
const pod = (labels: Record<string, string>, owner?: { kind: string; name: string; uid?: string }) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name: 'web-6b7c9d8f5c-x2x9q',
    namespace: 'shop',
    labels,
    ownerReferences: owner && [{ apiVersion: 'apps/v1', controller: true, ...owner }],
  },
  spec: { containers: [{ name: 'web', image: 'acme/web:2' }] },
});
const workloads = (items: unknown[]) =>
  normalize(k8s, { apiVersion: 'v1', kind: 'List', items }).names('Service');

describe('Argo Rollouts', () => {
  it('the public examples: each Rollout with a pod template is one workload running its image, selected by its Service', () => {
    const dir = new URL('../../../fixtures/unseen/k8s/argo-rollouts/', import.meta.url);
    const text = ['rollout-canary.yaml', 'istio-istio-subset-split.yaml', 'workload-ref-workload-ref.yaml']
      .map((f) => readFileSync(new URL(f, dir), 'utf8'))
      .join('\n---\n');
    const out = normalize(k8s, readReport(text).body, { cluster: 'ar' });
    expect(out.node('Service', 'ar/default/rollout-canary').properties).toMatchObject({ kind: 'rollout' });
    expect(out.edges).toContain('DEPENDS_ON ar/default/rollout-canary -> argoproj/rollouts-demo:blue');
    expect(out.edges).toContain(
      'EXPOSES ar/default/service/istio-subset-split -> ar/default/istio-subset-split',
    );
    // A Rollout that borrows a Deployment's template (workloadRef) adds no second workload.
    expect(out.names('Service')).toEqual([
      'ar/default/istio-subset-split',
      'ar/default/rollout-canary',
      'ar/default/rollout-ref-deployment',
    ]);
  });

  it("a Rollout's pods, through a ReplicaSet the dump holds or not, are the Rollout's workload", () => {
    const rollout = {
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'Rollout',
      metadata: { name: 'web', namespace: 'shop', uid: 'r-1' },
      spec: {
        template: {
          metadata: { labels: { app: 'web' } },
          spec: { containers: [{ name: 'web', image: 'acme/web:2' }] },
        },
      },
    };
    const replicaSet = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: {
        name: 'web-6b7c9d8f5c',
        namespace: 'shop',
        uid: 'rs-1',
        ownerReferences: [
          { apiVersion: 'argoproj.io/v1alpha1', kind: 'Rollout', name: 'web', uid: 'r-1', controller: true },
        ],
      },
      spec: { template: rollout.spec.template },
    };
    const owned = pod(
      { app: 'web', 'rollouts-pod-template-hash': '6b7c9d8f5c' },
      { kind: 'ReplicaSet', name: 'web-6b7c9d8f5c', uid: 'rs-1' },
    );
    expect(workloads([rollout, replicaSet, owned])).toEqual(['shop/web']);
    // The ReplicaSet not in the dump: read from its name and the Rollout's hash label.
    expect(workloads([owned])).toEqual(['shop/web']);
  });

  it('twin: a ReplicaSet name that does not end with the hash label stays the ReplicaSet', () => {
    const stray = pod(
      { 'rollouts-pod-template-hash': 'aaaaaaaaaa' },
      { kind: 'ReplicaSet', name: 'web-6b7c9d8f5c' },
    );
    expect(workloads([stray])).toEqual(['shop/web-6b7c9d8f5c']);
  });
});
