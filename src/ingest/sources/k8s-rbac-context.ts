// What the k8s source tells the RBAC rules about the rest of the dump (DECISIONS "Kubernetes, as the API
// server decides"): which roles a `bind` limited to names would bind, and where a `serviceaccounts/token`
// grant limited to names leads (the accounts it mints tokens for).
import { rbacEscalation, type PolicyRule, type RoleContext } from '../../rules/k8s/index.js';
import type { EnvelopeBuilder } from './envelope-builder.js';
import { rulesOf } from './k8s-openshift.js';

type RoleRules = ReadonlyMap<string, { rules: PolicyRule[] }>;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kubernetes objects as the API returns them
type K8sObject = Record<string, any>;

/** Every role's rules by `clusterrole/<name>` or `<namespace>/role/<name>` (an aggregated one's as filled). */
export function rulesByRole(
  roles: readonly K8sObject[],
  aggregated: ReadonlyMap<K8sObject, { rules: PolicyRule[] }> | undefined,
): Map<string, { rules: PolicyRule[] }> {
  const out = new Map<string, { rules: PolicyRule[] }>();
  for (const o of roles) {
    const name = String(o.metadata?.name ?? '');
    const key =
      o.kind === 'ClusterRole'
        ? `clusterrole/${name}`
        : `${String(o.metadata?.namespace ?? 'default')}/role/${name}`;
    out.set(key, { rules: aggregated?.get(o)?.rules ?? (rulesOf(o) as PolicyRule[]) });
  }
  return out;
}

/**
 * The roles a grant bound in `namespace` (cluster-wide when undefined) may bind by name: a ClusterRole, or a
 * Role of that namespace. One the dump does not hold is judged by its name, as a binding to it is.
 */
export function roleContextOf(roles: RoleRules, namespace: string | undefined): RoleContext {
  return {
    escalates(kind, name) {
      const key = kind === 'ClusterRole' ? `clusterrole/${name}` : `${namespace ?? ''}/role/${name}`;
      if (kind === 'Role' && namespace === undefined) return false;
      const judged = rbacEscalation(
        roles.get(key)?.rules,
        name,
        namespace === undefined ? 'cluster' : 'namespace',
      );
      return judged.primitives.length > 0 || judged.tokenAccounts !== undefined;
    },
  };
}

/**
 * A role that mints tokens for named accounts CAN_ESCALATE_TO each of them: those of its namespace when bound
 * in one, else every account of that name the dump holds (drawn in the role's namespace when it holds none).
 * Resource-scoped: it reaches the accounts named, not the cluster.
 */
export function tokenEscalation(
  out: EnvelopeBuilder,
  roleId: string,
  names: readonly string[],
  namespace: string | undefined,
  accounts: readonly { id: string; namespace: string; name: string }[],
  account: (namespace: string, name: string) => string,
): void {
  for (const name of names) {
    const targets =
      namespace !== undefined
        ? [account(namespace, name)]
        : accounts.filter((a) => a.name === name).map((a) => a.id);
    for (const target of targets)
      out.edge('CAN_ESCALATE_TO', roleId, target, {
        resource_scoped: true,
        properties: {
          primitives: ['create-serviceaccount-token'],
          scope: namespace === undefined ? 'cluster' : 'namespace',
          namespace,
          resource_names: true,
        },
      });
  }
}
