// The Gateway API (gateway.networking.k8s.io), Ingress's successor, read by the k8s source: a Gateway is a
// front door like an Ingress, and a route (HTTPRoute, GRPCRoute, TLSRoute, TCPRoute, UDPRoute) attached to
// it carries its traffic to Services. What attaches and where it leads is read as the Gateway API defines it:
// - a route names its Gateways in `parentRefs` (namespace: the route's by default; `sectionName`: one
//   listener), and a listener admits routes of its own namespace only unless `allowedRoutes` says `All`
//   or `Selector` (matched against the Namespace's labels when the dump holds it, or its name label), and
//   only the kinds its protocol carries (or `allowedRoutes.kinds`);
// - a route's `backendRefs` (and `requestMirror` targets) are Services (kind `Service` in the core group
//   by default), in the route's namespace unless a ReferenceGrant of the Service's namespace admits it.
// Istio's own `Gateway` (networking.istio.io) is another kind of object and is not read here.
import { selects } from '../../rules/k8s/label-selector.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kubernetes objects as the API returns them
type K8sObject = Record<string, any>;

export const GATEWAY_API_GROUP = 'gateway.networking.k8s.io';
export const ROUTE_KINDS = new Set(['HTTPRoute', 'GRPCRoute', 'TLSRoute', 'TCPRoute', 'UDPRoute']);
const GATEWAY_API_KINDS = new Set([...ROUTE_KINDS, 'Gateway', 'ReferenceGrant']);

/** The route kinds a listener of each protocol carries when `allowedRoutes.kinds` does not say. */
const KINDS_BY_PROTOCOL: Record<string, readonly string[]> = {
  HTTP: ['HTTPRoute', 'GRPCRoute'],
  HTTPS: ['HTTPRoute', 'GRPCRoute'],
  TLS: ['TLSRoute', 'TCPRoute'],
  TCP: ['TCPRoute'],
  UDP: ['UDPRoute'],
};

/** Whether an object is one of the Gateway API's that the mapping reads (not Istio's `Gateway`). */
export function isGatewayApiObject(o: K8sObject): boolean {
  return (
    GATEWAY_API_KINDS.has(o.kind) &&
    typeof o.apiVersion === 'string' &&
    o.apiVersion.startsWith(`${GATEWAY_API_GROUP}/`)
  );
}

/** A Service a route sends traffic to. */
export interface Backend {
  namespace: string;
  name: string;
}

/** A Gateway a route names as its parent. */
export interface ParentRef {
  namespace: string;
  name: string;
  sectionName?: string;
}

const list = (value: unknown): K8sObject[] => (Array.isArray(value) ? value : []);

/** The Gateways a route names (other parent kinds, such as a mesh's Service, are not front doors). */
export function parentRefsOf(route: K8sObject, namespace: string): ParentRef[] {
  const out: ParentRef[] = [];
  for (const ref of list(route.spec?.parentRefs)) {
    if (typeof ref?.name !== 'string' || !ref.name) continue;
    if ((ref.group ?? GATEWAY_API_GROUP) !== GATEWAY_API_GROUP || (ref.kind ?? 'Gateway') !== 'Gateway')
      continue;
    out.push({
      namespace: typeof ref.namespace === 'string' && ref.namespace ? ref.namespace : namespace,
      name: ref.name,
      sectionName: typeof ref.sectionName === 'string' ? ref.sectionName : undefined,
    });
  }
  return out;
}

/**
 * The Services a route sends traffic to (its backends and mirrors), each once; one in another namespace only
 * when a ReferenceGrant there admits the route (`grants`: the ReferenceGrants by namespace).
 */
export function backendsOf(
  route: K8sObject,
  namespace: string,
  grants: ReadonlyMap<string, K8sObject[]>,
): Backend[] {
  const refs: K8sObject[] = [];
  for (const rule of list(route.spec?.rules)) {
    refs.push(...list(rule?.backendRefs));
    for (const filter of list(rule?.filters))
      if (filter?.requestMirror?.backendRef) refs.push(filter.requestMirror.backendRef);
    for (const backend of list(rule?.backendRefs))
      for (const filter of list(backend?.filters))
        if (filter?.requestMirror?.backendRef) refs.push(filter.requestMirror.backendRef);
  }
  const out: Backend[] = [];
  const seen = new Set<string>();
  for (const ref of refs) {
    if (typeof ref?.name !== 'string' || !ref.name) continue;
    if (!['', 'core'].includes(ref.group ?? '') || (ref.kind ?? 'Service') !== 'Service') continue;
    const backendNamespace = typeof ref.namespace === 'string' && ref.namespace ? ref.namespace : namespace;
    if (
      backendNamespace !== namespace &&
      !granted(grants.get(backendNamespace), route.kind, namespace, ref.name)
    )
      continue;
    const key = `${backendNamespace}/${ref.name}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ namespace: backendNamespace, name: ref.name });
  }
  return out;
}

const NAME_LABEL = 'kubernetes.io/metadata.name';

function onlyNameLabel(selector: K8sObject): boolean {
  const keys = [
    ...Object.keys(selector?.matchLabels ?? {}),
    ...list(selector?.matchExpressions).map((e) => e?.key),
  ];
  return keys.length > 0 && keys.every((k) => k === NAME_LABEL);
}

/** Whether a ReferenceGrant of the Service's namespace admits a route of that kind and namespace to it. */
function granted(
  grants: K8sObject[] | undefined,
  routeKind: string,
  routeNamespace: string,
  service: string,
): boolean {
  for (const grant of grants ?? []) {
    const from = list(grant.spec?.from).some(
      (f) => f?.group === GATEWAY_API_GROUP && f?.kind === routeKind && f?.namespace === routeNamespace,
    );
    const to = list(grant.spec?.to).some(
      (t) =>
        (t?.group ?? '') === '' && t?.kind === 'Service' && (t?.name === undefined || t?.name === service),
    );
    if (from && to) return true;
  }
  return false;
}

/**
 * Whether a Gateway admits a route of that kind from that namespace on some listener (the one `sectionName`
 * names, when it names one). `namespaceLabels`: the labels of the dump's Namespaces; a `Selector` listener
 * admits a namespace the dump does not describe (its labels unknown, the route is not dropped on a guess).
 */
export function admits(
  gateway: K8sObject,
  gatewayNamespace: string,
  route: { kind: string; namespace: string; sectionName?: string },
  namespaceLabels: ReadonlyMap<string, unknown>,
): boolean {
  const listeners = list(gateway.spec?.listeners).filter(
    (l) => route.sectionName === undefined || l?.name === route.sectionName,
  );
  for (const listener of listeners) {
    const allowed = listener?.allowedRoutes;
    const from = allowed?.namespaces?.from ?? 'Same';
    if (from === 'Same' && route.namespace !== gatewayNamespace) continue;
    if (from === 'Selector') {
      const selector = allowed.namespaces.selector ?? {};
      const known = namespaceLabels.get(route.namespace);
      // Every namespace carries its name as a label (Kubernetes 1.22 on): a selector on it alone is
      // decided without the Namespace object.
      const labels = { ...(known as object), [NAME_LABEL]: route.namespace };
      if ((known !== undefined || onlyNameLabel(selector)) && !selects(selector, labels)) continue;
    } else if (from !== 'Same' && from !== 'All') continue;
    const kinds = list(allowed?.kinds);
    if (kinds.length) {
      if (!kinds.some((k) => (k?.group ?? GATEWAY_API_GROUP) === GATEWAY_API_GROUP && k?.kind === route.kind))
        continue;
    } else {
      const carried = KINDS_BY_PROTOCOL[String(listener?.protocol)];
      // A protocol of the implementation's own (`example.com/...`): its kinds are not known, so any.
      if (carried && !carried.includes(route.kind)) continue;
    }
    return true;
  }
  return false;
}
