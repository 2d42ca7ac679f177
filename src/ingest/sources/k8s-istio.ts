// Istio's own ingress (networking.istio.io), read by the k8s source beside the Gateway API: an Istio
// `Gateway` configures the mesh's ingress gateway, a front door like an Ingress, and a `VirtualService` bound
// to it (`spec.gateways`) carries its traffic to the Services its routes name (`http`, `tcp`, `tls` routes'
// `destination.host`, and `http` mirrors). What a VirtualService means is read as Istio reads it:
// - a gateway named `<name>` is in the VirtualService's namespace, `<namespace>/<name>` in another; the
//   reserved `mesh` is the sidecars, not a front door, and a VirtualService naming no gateway is mesh-only;
// - a host `reviews` is the Service of the VirtualService's namespace, `reviews.<ns>.svc.<cluster domain>`
//   the Service of that namespace; Istio qualifies no other name (`reviews.prod` matches no Service).
// A Gateway's `servers[].hosts` namespace restrictions are not read: every VirtualService naming it binds.

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kubernetes objects as the API returns them
type K8sObject = Record<string, any>;

const ISTIO_NETWORKING = 'networking.istio.io/';
const ISTIO_KINDS = new Set(['Gateway', 'VirtualService']);

/** Whether an object is an Istio Gateway or VirtualService. */
export function isIstioIngressObject(o: K8sObject): boolean {
  return (
    ISTIO_KINDS.has(o.kind) && typeof o.apiVersion === 'string' && o.apiVersion.startsWith(ISTIO_NETWORKING)
  );
}

const list = (value: unknown): K8sObject[] => (Array.isArray(value) ? value : []);

/** The ingress gateways a VirtualService binds to, as `{namespace, name}` (`mesh` left out). */
export function gatewaysOf(service: K8sObject, namespace: string): { namespace: string; name: string }[] {
  const out: { namespace: string; name: string }[] = [];
  for (const ref of list(service.spec?.gateways) as unknown[]) {
    if (typeof ref !== 'string' || !ref || ref === 'mesh') continue;
    const slash = ref.indexOf('/');
    out.push(
      slash > 0 ? { namespace: ref.slice(0, slash), name: ref.slice(slash + 1) } : { namespace, name: ref },
    );
  }
  return out;
}

/** The Services of the cluster a VirtualService's routes and mirrors send traffic to, each once. */
export function destinationsOf(service: K8sObject, namespace: string): { namespace: string; name: string }[] {
  const hosts: unknown[] = [];
  for (const protocol of ['http', 'tcp', 'tls'])
    for (const route of list(service.spec?.[protocol])) {
      for (const destination of list(route?.route)) hosts.push(destination?.destination?.host);
      if (protocol === 'http') hosts.push(route?.mirror?.host);
    }
  const out: { namespace: string; name: string }[] = [];
  const seen = new Set<string>();
  for (const host of hosts) {
    const target = serviceOfHost(host, namespace);
    if (!target) continue;
    const key = `${target.namespace}/${target.name}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(target);
  }
  return out;
}

/** The Service a host names in the cluster (undefined: a host outside it, or a wildcard). */
function serviceOfHost(host: unknown, namespace: string): { namespace: string; name: string } | undefined {
  if (typeof host !== 'string' || !host || host.includes('*')) return undefined;
  const parts = host.toLowerCase().split('.');
  if (parts.length === 1) return { namespace, name: parts[0] };
  // Istio qualifies only a short name; any other is a fully qualified name (`<name>.<ns>.svc.<domain>`).
  if (parts.length >= 4 && parts[2] === 'svc') return { namespace: parts[1], name: parts[0] };
  return undefined;
}
