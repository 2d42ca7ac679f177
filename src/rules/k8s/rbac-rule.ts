// What an RBAC escalation rule reads: a role's policy rules. Each primitive is one file in this folder and
// is listed in index.ts; a role granting any of them draws CAN_ESCALATE_TO to the synthetic cluster-admin.

export interface PolicyRule {
  apiGroups?: string[];
  resources?: string[];
  verbs?: string[];
  resourceNames?: string[];
}

export interface RbacPrimitive {
  name: string;
  grants(rules: readonly PolicyRule[], roleName: string): boolean;
}

/** Whether a rule allows `verb` on `resource` (wildcards honoured; a rule limited to names still counts). */
export function allows(rule: PolicyRule, verb: string, resource: string): boolean {
  const verbs = rule.verbs ?? [];
  const resources = rule.resources ?? [];
  return (
    (verbs.includes('*') || verbs.includes(verb)) && (resources.includes('*') || resources.includes(resource))
  );
}

export const anyRule = (rules: readonly PolicyRule[], verb: string, resource: string) =>
  rules.some((r) => allows(r, verb, resource));
