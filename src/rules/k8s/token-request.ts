// Minting a service-account token (create on serviceaccounts/token) acts as that service account. A rule
// limited by resourceNames allows it for those accounts only (the request names its parent account): their
// tokens are the escalation, drawn to the accounts themselves rather than to cluster-admin (DECISIONS
// "Kubernetes, as the API server decides").
import { grantOf, requests, ruleGrant, type PolicyRule, type RbacPrimitive } from './rbac-rule.js';

const REQUESTS = requests('', ['serviceaccounts/token'], ['create']);

export const tokenRequest: RbacPrimitive = {
  name: 'create-serviceaccount-token',
  grants: (rules, _role, scope) => grantOf(rules, REQUESTS, scope),
};

/** The accounts a named token grant may mint tokens for (the resourceNames of the rules that grant it). */
export function tokenAccounts(rules: readonly PolicyRule[] | undefined): string[] {
  const names = new Set<string>();
  for (const rule of rules ?? [])
    if (ruleGrant(rule, REQUESTS[0]) === 'named')
      for (const name of rule.resourceNames ?? []) if (typeof name === 'string' && name) names.add(name);
  return [...names].sort();
}
