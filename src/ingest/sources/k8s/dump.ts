// Reading a Kubernetes dump: its objects flattened out of Lists (typed lists too), then sorted by what
// reads them, in one pass. Shared by the mapping's phases.
import { MAX_BODY_DEPTH } from '../../body-guard.js';
import { isGatewayApiObject } from '../k8s-gateway-api.js';
import { isIstioIngressObject } from '../k8s-istio.js';
import {
  isOpenShiftBuildConfig,
  isOpenShiftRoute,
  isOpenShiftTemplate,
  processTemplate,
} from '../k8s-openshift.js';
import { reportProblem } from '../report-schema.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kubernetes objects as the API returns them
export type K8sObject = Record<string, any>;

const WORKLOAD_KINDS = new Set(['Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet', 'Job', 'CronJob']);
/**
 * Controllers whose pods are theirs (ReplicationController included: it owns pods the same way; so does an
 * Argo Rollout, through its ReplicaSets, from its own pod template or the Deployment its workloadRef names,
 * and an OpenShift DeploymentConfig, through its ReplicationControllers).
 */
export const CONTROLLER_KINDS = new Set([
  ...WORKLOAD_KINDS,
  'ReplicationController',
  'Rollout',
  'DeploymentConfig',
]);
const USED_KINDS = new Set<string>([
  ...CONTROLLER_KINDS,
  'Pod',
  'Service',
  'Ingress',
  'ServiceAccount',
  'Role',
  'ClusterRole',
  'RoleBinding',
  'ClusterRoleBinding',
  'Node',
  'Secret',
]);

/** The objects of a dump by what reads them, each list in dump order (one pass over the dump, not nine). */
export interface Sorted {
  serviceAccounts: K8sObject[];
  /** Pods and controllers, named. */
  podsAndControllers: K8sObject[];
  services: K8sObject[];
  ingresses: K8sObject[];
  roles: K8sObject[];
  bindings: K8sObject[];
  /** Nodes and secrets, named, as they interleave in the dump (their nodes are added in that order). */
  nodesAndSecrets: K8sObject[];
  /** Gateway API objects (k8s-gateway-api.ts), named; Namespaces for their listeners' selectors. */
  gatewayApi: K8sObject[];
  /** Istio Gateways and VirtualServices (k8s-istio.ts), named. */
  istio: K8sObject[];
  /** OpenShift Routes (k8s-openshift.ts), named. */
  routes: K8sObject[];
  /** OpenShift BuildConfigs (k8s-openshift.ts), named. */
  buildConfigs: K8sObject[];
  /** OpenShift Templates read (k8s-openshift.ts), and the parameters each left unresolved. */
  templates: { name: string; unresolved: string[] }[];
  namespaces: K8sObject[];
  /** The kinds the mapping does not use. */
  ignored: Set<string>;
  /** Trivy Operator reports in the dump (not mapped here: /ingest/trivy reads them). */
  operatorReports: number;
  /** Objects whose name, namespace or role reference is a map or a list (an unrendered Helm template's). */
  unnamed: number;
}

/**
 * Whether an object's names are names, not maps or lists: a template's `{{ .Values.name }}` parses as YAML
 * into a map, which would otherwise be named `[object Object]`. (A number is read as its digits, as before.)
 */
function namedByStrings(o: K8sObject): boolean {
  const metadata = o.metadata;
  if (
    metadata !== undefined &&
    metadata !== null &&
    (isCollection(metadata.name) || isCollection(metadata.namespace))
  )
    return false;
  return !isCollection(o.roleRef?.name);
}

export const isCollection = (value: unknown): boolean => typeof value === 'object' && value !== null;

export function sortObjects(objects: K8sObject[], into?: Sorted): Sorted {
  const sorted: Sorted = into ?? {
    serviceAccounts: [],
    podsAndControllers: [],
    services: [],
    ingresses: [],
    roles: [],
    bindings: [],
    nodesAndSecrets: [],
    gatewayApi: [],
    istio: [],
    routes: [],
    buildConfigs: [],
    templates: [],
    namespaces: [],
    ignored: new Set(),
    operatorReports: 0,
    unnamed: 0,
  };
  for (const o of objects) {
    if (!namedByStrings(o)) {
      sorted.unnamed++;
      continue;
    }
    const kind: string = o.kind;
    if (kind === 'RoleBinding' || kind === 'ClusterRoleBinding') {
      // Bindings need a roleRef, not a name.
      if (o.roleRef) sorted.bindings.push(o);
      continue;
    }
    if (!USED_KINDS.has(kind)) {
      if (isGatewayApiObject(o)) {
        if (nameOf(o)) sorted.gatewayApi.push(o);
        continue;
      }
      if (isIstioIngressObject(o)) {
        if (nameOf(o)) sorted.istio.push(o);
        continue;
      }
      if (isOpenShiftRoute(o)) {
        if (nameOf(o)) sorted.routes.push(o);
        continue;
      }
      if (isOpenShiftBuildConfig(o)) {
        if (nameOf(o)) sorted.buildConfigs.push(o);
        continue;
      }
      if (isOpenShiftTemplate(o)) {
        const { objects: rendered, unresolved } = processTemplate(o);
        sorted.templates.push({ name: nameOf(o), unresolved });
        sortObjects(flatten(rendered), sorted);
        continue;
      }
      // Namespaces are read only for a Gateway listener's selector: still reported as not used.
      if (kind === 'Namespace') sorted.namespaces.push(o);
      // Trivy Operator's reports are findings kept as objects: the trivy source reads them.
      if (String(o.apiVersion ?? '').startsWith('aquasecurity.github.io/')) sorted.operatorReports++;
      else sorted.ignored.add(kind);
      continue;
    }
    if (!nameOf(o)) continue;
    if (kind === 'Pod' || CONTROLLER_KINDS.has(kind)) sorted.podsAndControllers.push(o);
    else if (kind === 'ServiceAccount') sorted.serviceAccounts.push(o);
    else if (kind === 'Service') sorted.services.push(o);
    else if (kind === 'Ingress') sorted.ingresses.push(o);
    else if (kind === 'Role' || kind === 'ClusterRole') sorted.roles.push(o);
    else sorted.nodesAndSecrets.push(o); // Node, Secret
  }
  return sorted;
}

export const nsOf = (o: K8sObject) => String(o.metadata?.namespace ?? 'default');
export const nameOf = (o: K8sObject) => String(o.metadata?.name ?? '');

/** A field the API writes as a list; anything else (a malformed dump) reads as empty. */
export function list(value: unknown): K8sObject[] {
  return Array.isArray(value) ? value : [];
}

/**
 * Every object of a List (nested Lists too), or the object itself. Bodies are guarded at MAX_BODY_DEPTH
 * when parsed; the bound here keeps the recursion safe for any other caller. A typed list as the API server
 * or the kubelet returns it (`PodList`, `RoleBindingList`: `kubectl get --raw`, the kubelet's `/pods`) does
 * not repeat the kind on its items: they are of the list's kind. `items: null` is an empty list.
 */
export function flatten(
  body: unknown,
  depth = 0,
  into: K8sObject[] = [],
  parent = '',
  index = -1,
  listKind?: K8sObject,
): K8sObject[] {
  if (!body || typeof body !== 'object')
    throw reportProblem('k8s', [
      {
        pointer: pointerOf(parent, index) || '/',
        value: body,
        detail: 'expected a Kubernetes object or List',
      },
    ]);
  if (depth > MAX_BODY_DEPTH)
    throw reportProblem('k8s', [
      {
        pointer: pointerOf(parent, index) || '/',
        detail: `Lists nested deeper than ${MAX_BODY_DEPTH} levels`,
      },
    ]);
  let o = body as K8sObject;
  // One array filled in order, not one per object: a dump holds tens of thousands.
  const items = o.items;
  if (Array.isArray(items) || (items === null && typeof o.kind === 'string' && o.kind.endsWith('List'))) {
    const typed = typedList(o);
    const list: unknown[] = items ?? [];
    const path = `${pointerOf(parent, index)}/items`;
    for (let i = 0; i < list.length; i++) flatten(list[i], depth + 1, into, path, i, typed);
    return into;
  }
  if (Array.isArray(body)) {
    const path = pointerOf(parent, index);
    for (let i = 0; i < body.length; i++) flatten(body[i], depth + 1, into, path, i);
    return into;
  }
  if (o.kind === undefined && listKind) o = { ...listKind, ...o };
  if (typeof o.kind !== 'string')
    throw reportProblem('k8s', [
      {
        pointer: `${pointerOf(parent, index)}/kind`,
        value: o.kind ?? null,
        detail: 'a Kubernetes object names its kind',
      },
    ]);
  into.push(o);
  return into;
}

/** Where a value is in the body (written only when it is refused, or holds a list: no string per object). */
function pointerOf(parent: string, index: number): string {
  return index < 0 ? parent : `${parent}/${index}`;
}

/** The kind and apiVersion the items of a typed list have (`PodList` holds `Pod`s), else undefined. */
function typedList(list: K8sObject): K8sObject | undefined {
  const kind = list.kind;
  if (typeof kind !== 'string' || kind === 'List' || !kind.endsWith('List') || kind.length <= 4)
    return undefined;
  return typeof list.apiVersion === 'string'
    ? { kind: kind.slice(0, -4), apiVersion: list.apiVersion }
    : { kind: kind.slice(0, -4) };
}
