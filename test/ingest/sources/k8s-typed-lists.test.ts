// Typed lists as the API server and the kubelet return them (`PodList`, `RoleBindingList`: `kubectl get
// --raw`, the kubelet's `/pods`): their items do not repeat their kind. Each case with a twin.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readReport, recognizeReport } from '../../../src/ingest/recognize.js';
import { createK8sSource } from '../../../src/ingest/sources/k8s.js';
import { normalize, rejection } from '../../helpers/normalize.js';

const k8s = createK8sSource();
const kubelet = (name: string) =>
  readReport(readFileSync(new URL(`../../../fixtures/unseen/k8s/kubelet/${name}`, import.meta.url), 'utf8'))
    .body;

describe('typed lists', () => {
  it("a kubelet's /pods answer (Datadog's test capture): every pod read as a Pod, escapes to the nodes they run on", () => {
    const body = kubelet('podlist_1.8-2.json');
    expect(recognizeReport(body)).toBe('k8s');
    const out = normalize(k8s, body, { cluster: 'kl' });
    expect(out.names('Service')).toEqual([
      'kl/default/nginx-99d8b564',
      'kl/default/redis-75586d7d7c',
      'kl/kube-system/kube-apiserver-my-node-name',
      'kl/kube-system/kube-controller-manager',
      'kl/kube-system/kube-proxy',
      'kl/kube-system/kube-proxy-gke-haissam-default-pool-be5066f1-wnvn',
      'kl/kube-system/kube-scheduler',
    ]);
    // kube-proxy, privileged, by its DaemonSet owner; its node holds the tokens of the pods scheduled there.
    expect(
      out.edgeProps('CAN_ESCALATE_TO', 'kl/kube-system/kube-proxy', 'kl/node/my-node-name'),
    ).toMatchObject({
      rules: ['module-load', 'privileged-mount'],
    });
    expect(out.edges).toContain('ASSUMES kl/node/my-node-name -> kl/default/default');
    // The API server's static pod writes /etc/kubernetes/secrets: nothing the node runs, no escape.
    expect(
      out.edgeProps('CAN_ESCALATE_TO', 'kl/kube-system/kube-apiserver-my-node-name', 'kl/node/my-node-name'),
    ).toBeUndefined();
    // The pod status's digest pins the image reference.
    expect(out.node('Image', 'nginx:latest').properties?.digests).toEqual([
      'sha256:285b49d42c703fdf257d1e2422765c4ba9d3e37768d6ea83d7fe2043dad6e63d',
    ]);
  });

  it('a RoleBindingList without item kinds binds as RoleBindings do', () => {
    const list = {
      kind: 'RoleBindingList',
      apiVersion: 'rbac.authorization.k8s.io/v1',
      items: [
        {
          metadata: { name: 'ops', namespace: 'kube-system' },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
          subjects: [{ kind: 'ServiceAccount', name: 'ops', namespace: 'kube-system' }],
        },
      ],
    };
    expect(recognizeReport(list)).toBe('k8s');
    expect(normalize(k8s, list, { cluster: 'c' }).edges).toContain(
      'ASSUMES c/kube-system/ops -> c/kube-system/clusterrole/cluster-admin',
    );
  });

  it("twins: a plain List's item without a kind, and a null pod in a PodList, are refused by pointer", () => {
    expect(rejection(k8s, { kind: 'List', apiVersion: 'v1', items: [{ metadata: { name: 'x' } }] })).toEqual([
      { pointer: '/items/0/kind', value: null, detail: 'a Kubernetes object names its kind' },
    ]);
    expect(rejection(k8s, kubelet('podlist_null_pod.json'))).toEqual([
      { pointer: '/items/0', value: null, detail: 'expected a Kubernetes object or List' },
    ]);
  });

  it('an empty typed list (`items: null`) holds nothing', () => {
    expect(normalize(k8s, { kind: 'PodList', apiVersion: 'v1', items: null }).nodes).toEqual([]);
  });
});
