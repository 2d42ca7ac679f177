// What an RBAC escalation rule reads: a role's policy rules, matched as the API server matches them (API
// group, resource with its subresource, verb, resourceNames). Each primitive is one file in this folder and
// is listed in index.ts; a role granting any of them draws CAN_ESCALATE_TO to the cluster's synthetic
// cluster-admin.

export interface PolicyRule {
  apiGroups?: string[];
  resources?: string[];
  verbs?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

/** How far a grant reaches: every object of the resource, or only the objects its rule names. */
export type Grant = 'any' | 'named';

/** Where the rules are bound: cluster-wide (a ClusterRoleBinding), or in one namespace (a Role, a RoleBinding). */
export type GrantScope = 'cluster' | 'namespace';

/**
 * Resources outside any namespace (`<group>/<resource>`, '' for the core group): rules bound in one namespace
 * never reach them, even through `*` (a Role's wildcard on the core group does not grant `nodes/proxy`).
 */
const CLUSTER_SCOPED = new Set([
  '/nodes',
  '/namespaces',
  '/persistentvolumes',
  '/users',
  '/groups',
  'authentication.k8s.io/userextras',
  'authentication.k8s.io/uids',
  'rbac.authorization.k8s.io/clusterroles',
  'rbac.authorization.k8s.io/clusterrolebindings',
  'certificates.k8s.io/certificatesigningrequests',
  'certificates.k8s.io/signers',
  'admissionregistration.k8s.io/mutatingwebhookconfigurations',
  'admissionregistration.k8s.io/validatingwebhookconfigurations',
]);

/** One API request a primitive needs: `group` is '' for the core group; `resource` may be `pods/exec`. */
export interface ApiRequest {
  group: string;
  resource: string;
  verb: string;
}

export interface RbacPrimitive {
  name: string;
  /** `rules` is undefined when the role is only named by a binding (the dump does not hold it). */
  grants(
    rules: readonly PolicyRule[] | undefined,
    roleName: string,
    scope: GrantScope,
    context?: RoleContext,
  ): Grant | undefined;
}

/** The other roles of the dump, for a primitive whose grant names them (`bind` limited by resourceNames). */
export interface RoleContext {
  /** Whether binding this role (a ClusterRole, or a Role of the grant's namespace) would escalate by itself. */
  escalates(kind: 'Role' | 'ClusterRole', name: string): boolean;
}

/** Whether one rule authorizes a request, as the API server's RBAC authorizer decides it. */
export function ruleGrant(rule: PolicyRule, request: ApiRequest): Grant | undefined {
  const read = readRule(rule);
  return read && readGrant(read, request);
}

/**
 * A policy rule's lists as the matcher reads them (strings only, wildcards found), read once per rule: a
 * role is judged by 12 primitives over about 60 requests, and reading the lists again for each request
 * allocated four arrays per (rule, request), 1.2 million on issue 14's 4,000-role dump.
 */
interface ReadRule {
  groups: string[];
  anyGroup: boolean;
  verbs: string[];
  anyVerb: boolean;
  resources: string[];
  anyResource: boolean;
  /** The subresources granted on any resource: `exec` for an entry `*\/exec`. */
  anySubresource: string[];
  named: boolean;
}

const readRules = new WeakMap<object, ReadRule>();

function readRule(rule: PolicyRule): ReadRule | undefined {
  if (!rule || typeof rule !== 'object') return undefined;
  let read = readRules.get(rule);
  if (read === undefined) {
    const groups = strings(rule.apiGroups);
    const verbs = strings(rule.verbs);
    const resources = strings(rule.resources);
    read = {
      groups,
      anyGroup: groups.includes('*'),
      verbs,
      anyVerb: verbs.includes('*'),
      resources,
      anyResource: resources.includes('*'),
      anySubresource: resources.filter((r) => r.startsWith('*/')).map((r) => r.slice(2)),
      named: strings(rule.resourceNames).length > 0,
    };
    readRules.set(rule, read);
  }
  return read;
}

function readGrant(rule: ReadRule, request: ApiRequest): Grant | undefined {
  if (!rule.anyGroup && !rule.groups.includes(request.group)) return undefined;
  if (!rule.anyVerb && !rule.verbs.includes(request.verb)) return undefined;
  if (!rule.anyResource && !rule.resources.includes(request.resource)) {
    if (!rule.anySubresource.length) return undefined;
    const slash = request.resource.indexOf('/');
    const subresource = slash >= 0 ? request.resource.slice(slash + 1) : '';
    if (subresource === '' || !rule.anySubresource.includes(subresource)) return undefined;
  }
  if (!rule.named) return 'any';
  // A create (or a collection delete) carries no object name, so a rule limited to names never allows it;
  // a create on a subresource (`serviceaccounts/token`, `pods/exec`) names its parent object, so it does.
  if ((request.verb === 'create' && !request.resource.includes('/')) || request.verb === 'deletecollection')
    return undefined;
  return 'named';
}

/**
 * Whether a request can be authorized by rules bound in that scope. In one namespace, cluster-scoped
 * resources are out of reach, except `bind` on ClusterRoles: the API server checks it in the namespace of
 * the RoleBinding being written.
 */
export function inScope(request: ApiRequest, scope: GrantScope): boolean {
  if (scope === 'cluster') return true;
  if (request.verb === 'bind' && request.resource === 'clusterroles') return true;
  const base = request.resource.split('/')[0];
  return !CLUSTER_SCOPED.has(`${request.group}/${base}`);
}

/** The widest grant any rule gives for any of the requests (in scope). */
export function grantOf(
  rules: readonly PolicyRule[] | undefined,
  requests: readonly ApiRequest[],
  scope: GrantScope = 'cluster',
): Grant | undefined {
  let best: Grant | undefined;
  const reachable = scope === 'cluster' ? requests : namespaceReachable(requests);
  for (const rule of rules ?? []) {
    const read = readRule(rule);
    if (!read) continue;
    for (const request of reachable) {
      const grant = readGrant(read, request);
      if (grant === 'any') return 'any';
      if (grant) best = grant;
    }
  }
  return best;
}

/**
 * The requests rules bound in one namespace can authorize. A primitive's request list is built once at
 * module load, so the filtered list is kept beside it rather than recomputed for every role of the dump.
 */
const reachableInNamespace = new WeakMap<readonly ApiRequest[], readonly ApiRequest[]>();
function namespaceReachable(requests: readonly ApiRequest[]): readonly ApiRequest[] {
  let reachable = reachableInNamespace.get(requests);
  if (!reachable) {
    reachable = requests.filter((r) => inScope(r, 'namespace'));
    reachableInNamespace.set(requests, reachable);
  }
  return reachable;
}

/** The narrower of two grants both needed (undefined when either is missing). */
export function both(a: Grant | undefined, b: Grant | undefined): Grant | undefined {
  if (!a || !b) return undefined;
  return a === 'any' && b === 'any' ? 'any' : 'named';
}

/** Requests for some verbs on some resources of one group. */
export function requests(
  group: string,
  resources: readonly string[],
  verbs: readonly string[],
): ApiRequest[] {
  return resources.flatMap((resource) => verbs.map((verb) => ({ group, resource, verb })));
}

/** A list the API writes as strings; anything else (a malformed dump) grants nothing. */
function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}
