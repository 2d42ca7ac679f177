// Every RBAC escalation primitive (src/rules/k8s/) on a minimal rule, each with a negative twin: the API
// group, the resourceNames and the verb decide, as the API server decides them.
import { describe, expect, it } from 'vitest';
import { RBAC_PRIMITIVES, rbacEscalation, type PolicyRule } from '../../../src/rules/k8s/index.js';
import { ruleGrant } from '../../../src/rules/k8s/rbac-rule.js';

const core = (verbs: string[], resources: string[], extra: Partial<PolicyRule> = {}): PolicyRule => ({
  apiGroups: [''],
  verbs,
  resources,
  ...extra,
});
const RBAC = 'rbac.authorization.k8s.io';
const CERTS = 'certificates.k8s.io';
const ADMISSION = 'admissionregistration.k8s.io';

// [primitive, rules that grant it, the negative twin]
const CASES: [string, PolicyRule[] | undefined, PolicyRule[] | undefined][] = [
  [
    'wildcard',
    [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }],
    [{ apiGroups: ['monitoring.coreos.com'], resources: ['*'], verbs: ['*'] }],
  ],
  ['admin-named', undefined, [core(['get'], ['configmaps'])]],
  ['create-pods', [core(['create'], ['pods'])], [core(['create'], ['pods'], { resourceNames: ['web'] })]],
  [
    'read-secrets',
    [core(['list'], ['secrets'])],
    [{ apiGroups: ['metrics.k8s.io'], resources: ['secrets'], verbs: ['get'] }],
  ],
  [
    'bind-or-escalate',
    [
      { apiGroups: [RBAC], resources: ['rolebindings'], verbs: ['create'] },
      { apiGroups: [RBAC], resources: ['clusterroles'], verbs: ['bind'] },
    ],
    [{ apiGroups: [RBAC], resources: ['rolebindings'], verbs: ['create'] }],
  ],
  ['impersonate', [core(['impersonate'], ['serviceaccounts'])], [core(['get'], ['serviceaccounts'])]],
  [
    'create-serviceaccount-token',
    [core(['create'], ['serviceaccounts/token'])],
    [core(['create'], ['serviceaccounts'])],
  ],
  ['pod-exec', [core(['create'], ['pods/exec'])], [core(['get'], ['pods/log'])]],
  [
    'pod-attach',
    [core(['create'], ['pods/attach'])],
    [{ apiGroups: ['apps'], resources: ['pods/attach'], verbs: ['create'] }],
  ],
  ['pod-patch', [core(['patch'], ['pods'])], [core(['patch'], ['pods/status'])]],
  [
    'ephemeral-containers',
    [core(['patch'], ['pods/ephemeralcontainers'])],
    [core(['get'], ['pods/ephemeralcontainers'])],
  ],
  ['nodes-proxy', [core(['get'], ['nodes/proxy'])], [core(['get'], ['nodes', 'nodes/stats'])]],
  [
    'approve-csr',
    [
      { apiGroups: [CERTS], resources: ['certificatesigningrequests'], verbs: ['create'] },
      { apiGroups: [CERTS], resources: ['certificatesigningrequests/approval'], verbs: ['update'] },
      {
        apiGroups: [CERTS],
        resources: ['signers'],
        verbs: ['approve'],
        resourceNames: ['kubernetes.io/kube-apiserver-client'],
      },
    ],
    // twin: approving without creating (the kube-controller-manager's csrapproving shape without `create`)
    [
      { apiGroups: [CERTS], resources: ['certificatesigningrequests/approval'], verbs: ['update'] },
      { apiGroups: [CERTS], resources: ['signers'], verbs: ['approve'] },
    ],
  ],
  [
    'admission-webhooks',
    [{ apiGroups: [ADMISSION], resources: ['mutatingwebhookconfigurations'], verbs: ['patch'] }],
    [
      {
        apiGroups: [ADMISSION],
        resources: ['mutatingwebhookconfigurations'],
        verbs: ['get', 'list', 'watch'],
      },
    ],
  ],
];

describe('k8s RBAC primitives: each fires on a minimal rule and not on its twin', () => {
  it('covers every rule file', () => {
    expect(CASES.map((c) => c[0]).sort()).toEqual(RBAC_PRIMITIVES.map((p) => p.name).sort());
  });

  it.each(CASES)('%s', (primitive, positive, negative) => {
    expect(rbacEscalation(positive, 'role-admin').primitives).toContain(primitive);
    expect(rbacEscalation(negative, 'role-admin').primitives).not.toContain(primitive);
  });

  it('judges a role the dump does not hold by its name: administrators and the built-in edit, not view', () => {
    expect(rbacEscalation(undefined, 'edit').primitives).toEqual(['admin-named']);
    expect(rbacEscalation(undefined, 'admin').primitives).toEqual(['admin-named']);
    expect(rbacEscalation(undefined, 'view').primitives).toEqual([]);
    expect(rbacEscalation(undefined, 'readmin-helper').primitives).toEqual([]);
  });

  it('counts controller creation (apps, batch) as pod creation, in its own API group only', () => {
    expect(
      rbacEscalation([{ apiGroups: ['apps'], resources: ['deployments'], verbs: ['create'] }], 'x')
        .primitives,
    ).toEqual(['create-pods']);
    expect(
      rbacEscalation([{ apiGroups: ['batch'], resources: ['cronjobs'], verbs: ['create'] }], 'x').primitives,
    ).toEqual(['create-pods']);
    expect(
      rbacEscalation([{ apiGroups: ['extensions'], resources: ['cronjobs'], verbs: ['create'] }], 'x')
        .primitives,
    ).toEqual([]);
  });

  it("reads prometheus-operator's monitoring.coreos.com wildcard as nothing", () => {
    expect(
      rbacEscalation(
        [{ apiGroups: ['monitoring.coreos.com'], resources: ['*'], verbs: ['*'] }],
        'prometheus-operator',
      ),
    ).toEqual({ primitives: [], named: false });
  });

  it('makes a grant limited to named objects resource-scoped', () => {
    expect(rbacEscalation([core(['get'], ['secrets'], { resourceNames: ['db-password'] })], 'x')).toEqual({
      primitives: ['read-secrets'],
      named: true,
    });
    expect(rbacEscalation([core(['get'], ['secrets'])], 'x').named).toBe(false);
  });

  it('matches subresources as the API server does (`*` and `*/<sub>`)', () => {
    expect(
      ruleGrant(core(['create'], ['*/exec']), { group: '', resource: 'pods/exec', verb: 'create' }),
    ).toBe('any');
    expect(
      ruleGrant(core(['create'], ['pods']), { group: '', resource: 'pods/exec', verb: 'create' }),
    ).toBeUndefined();
    expect(ruleGrant(core(['*'], ['*']), { group: '', resource: 'pods/exec', verb: 'create' })).toBe('any');
    expect(
      ruleGrant(
        { verbs: ['get'], nonResourceURLs: ['/metrics'] },
        { group: '', resource: 'secrets', verb: 'get' },
      ),
    ).toBeUndefined();
  });
});

describe('Kubernetes as the API server decides (DECISIONS third round)', () => {
  it('create serviceaccounts/token limited by resourceNames is allowed for those accounts (named); twin: create serviceaccounts named', () => {
    const named = [core(['create'], ['serviceaccounts/token'], { resourceNames: ['deployer'] })];
    // Not cluster-admin: the escalation is to the accounts named (k8s-api-server.test.ts draws it).
    expect(rbacEscalation(named, 'r')).toEqual({ primitives: [], named: false, tokenAccounts: ['deployer'] });
    expect(
      rbacEscalation([core(['create'], ['serviceaccounts'], { resourceNames: ['deployer'] })], 'r')
        .primitives,
    ).toEqual([]);
  });

  it('impersonating groups alone (or extras, uids) is nothing; twin: with users it is impersonation', () => {
    expect(rbacEscalation([core(['impersonate'], ['groups'])], 'r').primitives).toEqual([]);
    expect(
      rbacEscalation(
        [
          {
            apiGroups: ['authentication.k8s.io'],
            resources: ['userextras/scopes', 'uids'],
            verbs: ['impersonate'],
          },
        ],
        'r',
      ).primitives,
    ).toEqual([]);
    expect(rbacEscalation([core(['impersonate'], ['users', 'groups'])], 'r').primitives).toEqual([
      'impersonate',
    ]);
  });

  it('writing admission webhooks is escalation at the resource-scoped price', () => {
    expect(
      rbacEscalation(
        [{ apiGroups: [ADMISSION], resources: ['validatingwebhookconfigurations'], verbs: ['create'] }],
        'r',
      ),
    ).toEqual({ primitives: ['admission-webhooks'], named: true });
  });

  it('neither reaches from a namespace: CSRs and webhook configurations are cluster-scoped', () => {
    const webhook = [{ apiGroups: [ADMISSION], resources: ['mutatingwebhookconfigurations'], verbs: ['*'] }];
    expect(rbacEscalation(webhook, 'r', 'namespace').primitives).toEqual([]);
  });
});
