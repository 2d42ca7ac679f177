// ClusterRole aggregation (`aggregationRule.clusterRoleSelectors`): the controller manager fills an aggregated
// ClusterRole's rules with the rules of every other ClusterRole one of its selectors matches, and aggregated
// roles aggregate in turn (the built-in admin takes edit's, which takes view's). A live dump holds the filled
// rules; a manifest holds none (`rules: []`, or no key: Knative's `knative-serving-admin`), so a binding to
// it read alone would grant nothing. The rules are read here as the controller fills them, kept with the
// role's own (a live dump's, possibly from ClusterRoles the dump does not hold).
import { selects } from './label-selector.js';
import type { PolicyRule } from './rbac-rule.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- ClusterRoles as the API returns them
type ClusterRole = Record<string, any>;

export interface Aggregated {
  /** The role's own rules and those of every ClusterRole it aggregates. */
  rules: PolicyRule[];
  /** The names of the ClusterRoles it aggregates, sorted. */
  from: string[];
}

/**
 * The rules of each aggregated ClusterRole of a dump, or undefined when none aggregates (most dumps: the
 * roles are only scanned once for an `aggregationRule`).
 */
export function aggregateClusterRoles(
  roles: readonly ClusterRole[],
): Map<ClusterRole, Aggregated> | undefined {
  const aggregating = roles.filter(
    (r) => r.kind === 'ClusterRole' && Array.isArray(r.aggregationRule?.clusterRoleSelectors),
  );
  if (!aggregating.length) return undefined;
  const clusterRoles = roles.filter((r) => r.kind === 'ClusterRole');
  // The roles each one takes directly, then until nothing changes: an aggregated role takes what the
  // roles it aggregates take (cycles included), never itself (the controller skips its own name).
  const sources = new Map<ClusterRole, Set<ClusterRole>>();
  for (const role of aggregating) {
    const taken = new Set<ClusterRole>();
    for (const selector of role.aggregationRule.clusterRoleSelectors as unknown[])
      for (const other of clusterRoles)
        if (other !== role && nameOf(other) !== nameOf(role) && selects(selector, other.metadata?.labels))
          taken.add(other);
    sources.set(role, taken);
  }
  for (let changed = true; changed;) {
    changed = false;
    for (const [role, taken] of sources)
      for (const other of [...taken])
        for (const further of sources.get(other) ?? [])
          if (further !== role && !taken.has(further)) {
            taken.add(further);
            changed = true;
          }
  }
  const out = new Map<ClusterRole, Aggregated>();
  for (const [role, taken] of sources) {
    const rules = new Set<PolicyRule>(ownRules(role));
    for (const other of taken) for (const rule of ownRules(other)) rules.add(rule);
    out.set(role, { rules: [...rules], from: [...taken].map(nameOf).sort() });
  }
  return out;
}

const nameOf = (role: ClusterRole) => String(role.metadata?.name ?? '');

function ownRules(role: ClusterRole): PolicyRule[] {
  return Array.isArray(role.rules) ? role.rules : [];
}
