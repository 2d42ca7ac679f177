// DECISIONS "Kubernetes, as the API server decides", through the k8s source. The manifests are the
// Kubernetes documentation's own examples (kubernetes/website, CC BY 4.0): "Configure Service Accounts for
// Pods" (the `build-robot-secret` service-account token Secret), "Using RBAC Authorization" ("Restrictions on
// role binding creation or update": the `role-grantor` ClusterRole binding `admin`, `edit`, `view` by name),
// "Certificates and Certificate Signing Requests" (the `csr-approver` ClusterRole), each with a negative twin.
import { describe, expect, it } from 'vitest';
import { createK8sSource } from '../../../src/ingest/sources/k8s.js';
import { normalize } from '../../helpers/normalize.js';

const k8s = createK8sSource();
const list = (...items: Record<string, unknown>[]) => ({ apiVersion: 'v1', kind: 'List', items });
const RBAC = 'rbac.authorization.k8s.io';

const buildRobotSecret = {
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: {
    name: 'build-robot-secret',
    annotations: { 'kubernetes.io/service-account.name': 'build-robot' },
  },
  type: 'kubernetes.io/service-account-token',
};
const pod = (secret: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'ci-runner', namespace: 'default' },
  spec: {
    serviceAccountName: 'runner',
    containers: [{ name: 'ci', image: 'ghcr.io/acme/ci:1', volumeMounts: [{ name: 't', mountPath: '/t' }] }],
    volumes: [{ name: 't', secret: { secretName: secret } }],
  },
});

describe("a pod that mounts another account's token Secret", () => {
  it('holds that account: the workload ASSUMES build-robot (before: a dead-end Secret)', () => {
    const out = normalize(k8s, list(buildRobotSecret, pod('build-robot-secret')));
    expect(out.edges).toContain('ASSUMES default/ci-runner -> default/build-robot');
    expect(out.edgeProps('ASSUMES', 'default/ci-runner', 'default/build-robot')).toEqual({
      via: 'service-account token secret',
    });
  });

  it('twin: an Opaque Secret of the same name, or a token Secret it does not mount, reaches no account', () => {
    const opaque = { ...buildRobotSecret, type: 'Opaque' };
    expect(normalize(k8s, list(opaque, pod('build-robot-secret'))).edges).not.toContain(
      'ASSUMES default/ci-runner -> default/build-robot',
    );
    expect(normalize(k8s, list(buildRobotSecret, pod('other-secret'))).edges).not.toContain(
      'ASSUMES default/ci-runner -> default/build-robot',
    );
  });
});

describe('create serviceaccounts/token limited by resourceNames', () => {
  const minter = (names: string[] | undefined) =>
    list(
      {
        apiVersion: `${RBAC}/v1`,
        kind: 'Role',
        metadata: { name: 'token-minter', namespace: 'ci' },
        rules: [
          {
            apiGroups: [''],
            resources: ['serviceaccounts/token'],
            verbs: ['create'],
            ...(names && { resourceNames: names }),
          },
        ],
      },
      { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'deployer', namespace: 'ci' } },
    );

  it('escalates to the accounts it names (resource-scoped), not to cluster-admin', () => {
    const out = normalize(k8s, minter(['deployer']));
    const escalations = out.edges.filter((e) => e.startsWith('CAN_ESCALATE_TO'));
    expect(escalations).toEqual(['CAN_ESCALATE_TO ci/role/token-minter -> ci/deployer']);
    const edge = out.envelopes[0].edges.find((e) => e.type === 'CAN_ESCALATE_TO')!;
    expect(edge.resource_scoped).toBe(true);
  });

  it('twin: a create on serviceaccounts limited to the same name mints nothing', () => {
    const out = normalize(
      k8s,
      list({
        apiVersion: `${RBAC}/v1`,
        kind: 'Role',
        metadata: { name: 'token-minter', namespace: 'ci' },
        rules: [
          { apiGroups: [''], resources: ['serviceaccounts'], verbs: ['create'], resourceNames: ['deployer'] },
        ],
      }),
    );
    expect(out.edges.filter((e) => e.startsWith('CAN_ESCALATE_TO'))).toEqual([]);
  });
});

describe('bind limited by resourceNames: the docs role-grantor', () => {
  const grantor = (names: string[], extra: Record<string, unknown>[] = []) =>
    list(
      {
        apiVersion: `${RBAC}/v1`,
        kind: 'ClusterRole',
        metadata: { name: 'role-grantor' },
        rules: [
          { apiGroups: [RBAC], resources: ['rolebindings'], verbs: ['create'] },
          { apiGroups: [RBAC], resources: ['clusterroles'], verbs: ['bind'], resourceNames: names },
        ],
      },
      {
        apiVersion: `${RBAC}/v1`,
        kind: 'RoleBinding',
        metadata: { name: 'role-grantor-binding', namespace: 'user-1-namespace' },
        roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'role-grantor' },
        subjects: [{ apiGroup: RBAC, kind: 'User', name: 'user-1' }],
      },
      ...extra,
    );
  const escalations = (body: unknown) =>
    normalize(k8s, body).edges.filter((e) => e.startsWith('CAN_ESCALATE_TO'));

  it('binding admin, edit, view by name escalates (admin and edit escalate themselves)', () => {
    expect(escalations(grantor(['admin', 'edit', 'view']))).toContain(
      'CAN_ESCALATE_TO user-1-namespace/clusterrole/role-grantor -> cluster-admin',
    );
  });

  it('twin: binding only view (or a dump-held role that reads pods) is nothing', () => {
    expect(escalations(grantor(['view']))).toEqual([]);
    const podReader = {
      apiVersion: `${RBAC}/v1`,
      kind: 'ClusterRole',
      metadata: { name: 'pod-reader' },
      rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'watch', 'list'] }],
    };
    expect(escalations(grantor(['pod-reader'], [podReader]))).toEqual([]);
  });
});

describe('approving CSRs and writing admission webhooks', () => {
  const CERTS = 'certificates.k8s.io';
  // The docs' csr-approver, bound cluster-wide.
  const approver = (extraRules: Record<string, unknown>[], signer: string) =>
    list({
      apiVersion: `${RBAC}/v1`,
      kind: 'ClusterRole',
      metadata: { name: 'csr-approver' },
      rules: [
        { apiGroups: [CERTS], resources: ['certificatesigningrequests'], verbs: ['get', 'list', 'watch'] },
        { apiGroups: [CERTS], resources: ['certificatesigningrequests/approval'], verbs: ['update'] },
        { apiGroups: [CERTS], resources: ['signers'], resourceNames: [signer], verbs: ['approve'] },
        ...extraRules,
      ],
    });
  const escalations = (body: unknown) =>
    normalize(k8s, body).edges.filter((e) => e.startsWith('CAN_ESCALATE_TO'));
  const create = { apiGroups: [CERTS], resources: ['certificatesigningrequests'], verbs: ['create'] };

  it('creating and approving CSRs for the API server client signer escalates', () => {
    expect(escalations(approver([create], 'kubernetes.io/kube-apiserver-client'))).toEqual([
      'CAN_ESCALATE_TO clusterrole/csr-approver -> cluster-admin',
    ]);
  });

  it("twin: the docs' own approver (no create, its own example.com signer) is nothing", () => {
    expect(escalations(approver([], 'example.com/my-signer-name'))).toEqual([]);
    expect(escalations(approver([create], 'example.com/my-signer-name'))).toEqual([]);
  });

  it('patching mutating webhook configurations escalates, resource-scoped; twin: reading them', () => {
    const role = (verbs: string[]) =>
      list({
        apiVersion: `${RBAC}/v1`,
        kind: 'ClusterRole',
        metadata: { name: 'webhook-admin' },
        rules: [
          {
            apiGroups: ['admissionregistration.k8s.io'],
            resources: ['mutatingwebhookconfigurations'],
            verbs,
          },
        ],
      });
    const out = normalize(k8s, role(['get', 'update']));
    expect(out.envelopes[0].edges.find((e) => e.type === 'CAN_ESCALATE_TO')?.resource_scoped).toBe(true);
    expect(escalations(role(['get', 'list', 'watch']))).toEqual([]);
  });

  it('impersonating groups alone is refused by the API server: nothing; twin: users and groups', () => {
    const role = (resources: string[]) =>
      list({
        apiVersion: `${RBAC}/v1`,
        kind: 'ClusterRole',
        metadata: { name: 'impersonator' },
        rules: [{ apiGroups: [''], resources, verbs: ['impersonate'] }],
      });
    expect(escalations(role(['groups']))).toEqual([]);
    expect(escalations(role(['users', 'groups']))).toEqual([
      'CAN_ESCALATE_TO clusterrole/impersonator -> cluster-admin',
    ]);
  });
});
