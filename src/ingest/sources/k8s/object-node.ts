// The node the k8s source draws for an object, by kind, namespace and name (for a `trivy k8s` report).
import type { NodeLabel } from '../../../graph/vocabulary.js';
import { CONTROLLER_KINDS } from './dump.js';

/** How the k8s source names the node of an object of each kind (before the cluster prefix), by label. */
const OBJECT_NODES: Readonly<
  Record<string, { label: NodeLabel; name: (namespace: string, name: string) => string }>
> = {
  ...Object.fromEntries(
    ['Pod', ...CONTROLLER_KINDS].map((kind) => [
      kind,
      { label: 'Service', name: (namespace: string, name: string) => `${namespace}/${name}` },
    ]),
  ),
  Service: { label: 'LoadBalancer', name: (namespace, name) => `${namespace}/service/${name}` },
  Ingress: { label: 'LoadBalancer', name: (namespace, name) => `${namespace}/ingress/${name}` },
  Route: { label: 'LoadBalancer', name: (namespace, name) => `${namespace}/route/${name}` },
  ServiceAccount: { label: 'ServiceAccount', name: (namespace, name) => `${namespace}/${name}` },
  Role: { label: 'IAM_Role', name: (namespace, name) => `${namespace}/role/${name}` },
  ClusterRole: { label: 'IAM_Role', name: (_namespace, name) => `clusterrole/${name}` },
  Secret: { label: 'Secret', name: (namespace, name) => `${namespace}/secret/${name}` },
  Node: { label: 'VirtualMachine', name: (_namespace, name) => `node/${name}` },
};

/**
 * The node this source draws for an object of a dump, as it names it (before the cluster prefix), for the
 * sources that name an object by its kind, namespace and name (a `trivy k8s` report): a workload for a Pod
 * or a controller no other controller owns, a load balancer for a Service or an Ingress, a role, an account,
 * a secret, a node. Undefined for the kinds it draws no node of their own for (ConfigMap, bindings,
 * NetworkPolicy, ...). A namespaced object without a namespace is in `default`, as in a dump.
 */
export function objectNode(
  kind: string,
  namespace: string,
  name: string,
): { label: NodeLabel; name: string } | undefined {
  const named = Object.hasOwn(OBJECT_NODES, kind) ? OBJECT_NODES[kind] : undefined;
  return named && { label: named.label, name: named.name(namespace || 'default', name) };
}
