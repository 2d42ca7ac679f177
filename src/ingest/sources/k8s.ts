// Source `k8s`: a Kubernetes dump as `kubectl get ... -o json` writes it (a `List` of mixed kinds, or a
// per-kind list, its items of the list's kind when they do not say, as the API server and the kubelet write
// them) or multi-document YAML (parsed at the listener). Mapping and meaning: DECISIONS.md
// "Kubernetes mapping" and "Path truth across sources".
// - One workload (`Service`) per controller: a Pod owned (ownerReferences) by a ReplicaSet owned by a
//   Deployment is the Deployment's workload; so are StatefulSet, DaemonSet, Job, CronJob and Argo Rollout
//   pods.
// - Each container, init container and ephemeral (`kubectl debug`) container draws `Service DEPENDS_ON
//   Image`, a reference the graph writer joins to the scanned image (digest from the pod's status when it
//   has one, else tag, else bare name); every kind is read (src/rules/k8s/pod-containers.ts), by the
//   escape rules too.
// - Ingress ROUTES_TO Service, Service EXPOSES workload (selector); only a LoadBalancer or NodePort Service
//   is a start of its own. Gateway API Gateways (k8s-gateway-api.ts) and Istio Gateways (k8s-istio.ts) are
//   front doors like an Ingress, routing to the Services of the routes bound to them. A host port (a
//   container port's `hostPort`, or any container port on the host's network) only marks its workload
//   `host_port_exposed`: it is exposed as far as its node is, which the dump does not say. The workload
//   ASSUMES its service account unless its token is not mounted.
// - RBAC (src/rules/k8s/): roles granting an escalation primitive draw CAN_ESCALATE_TO the cluster's
//   synthetic cluster-admin; bindings to service accounts, users and groups (system:serviceaccounts[:ns],
//   system:authenticated, system:unauthenticated) draw ASSUMES; a User named
//   `system:serviceaccount:<ns>:<name>` is that service account (its token's username). An aggregated
//   ClusterRole has the rules of the ClusterRoles its selectors match (aggregation.ts), as the controller
//   manager fills them.
// - Container escape (T1611, one rule file each) leads to the pod's node, a target; a known node holds
//   the tokens of the service accounts of the pods scheduled on it (T1528).
// - Secrets a workload is given (env, envFrom, secret volumes) are Secret nodes it can read: names only.
// - OpenShift (k8s-openshift.ts): a Route is a front door like an Ingress, a DeploymentConfig a controller
//   (its ImageChange triggers' images read), a Template rendered as `oc process` renders it by default, a
//   legacy `authorization.openshift.io` binding read as that API reads it.
// Names: `<namespace>/<name>` for workloads and service accounts, `<namespace>/<kind>/<name>` for
// ingresses, services, roles and secrets (`gateway`, `istio-gateway`, `route` for the other front doors),
// `clusterrole/<name>`, `node/<name>`, `group/<name>`; with a cluster (`?cluster=`,
// `snapshot=cluster:<name>`) every name is prefixed by `<cluster>/`.
import type { NodeLabel } from '../../graph/vocabulary.js';
import { parseImageRef } from '../../identity/image-ref.js';
import { repositoryFromUrl } from '../../identity/repository-name.js';
import {
  escapePrice,
  GROUP_MEMBERSHIP_PROBABILITY,
  NODE_TOKEN_THEFT_PROBABILITY,
  WORKLOAD_SECRET_PROBABILITY,
} from '../../model/probability.js';
import { ProblemError } from '../../http/problems.js';
import { aggregateClusterRoles, type Aggregated } from '../../rules/k8s/aggregation.js';
import { asksForHost, podEscapes, type Escape } from '../../rules/k8s/container-escape.js';
import { CONTAINER_FIELDS } from '../../rules/k8s/pod-containers.js';
import { rbacEscalation, type PolicyRule, type RoleContext } from '../../rules/k8s/index.js';
import { MAX_BODY_DEPTH } from '../body-guard.js';
import { EnvelopeBuilder, type EdgeOptions } from './envelope-builder.js';
import { admits, backendsOf, isGatewayApiObject, parentRefsOf } from './k8s-gateway-api.js';
import { destinationsOf, gatewaysOf, isIstioIngressObject } from './k8s-istio.js';
import {
  bindingSubjects,
  buildOutputOf,
  deploymentConfigOf,
  isOpenShiftBuildConfig,
  isOpenShiftRoute,
  isOpenShiftTemplate,
  processTemplate,
  roleRefKind,
  rulesOf,
  routeServices,
  triggeredImageStreamTags,
  triggeredImages,
} from './k8s-openshift.js';
import { roleContextOf, rulesByRole, tokenEscalation } from './k8s-rbac-context.js';
import { secretsRead, tokenSecretAccount, TOKEN_SECRET } from './k8s-secrets.js';
import { reportProblem } from './report-schema.js';
import type { IngestSource, NormalizeOutput } from './source.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kubernetes objects as the API returns them
type K8sObject = Record<string, any>;

const WORKLOAD_KINDS = new Set(['Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet', 'Job', 'CronJob']);
/**
 * Controllers whose pods are theirs (ReplicationController included: it owns pods the same way; so does an
 * Argo Rollout, through its ReplicaSets, from its own pod template or the Deployment its workloadRef names,
 * and an OpenShift DeploymentConfig, through its ReplicationControllers).
 */
const CONTROLLER_KINDS = new Set([...WORKLOAD_KINDS, 'ReplicationController', 'Rollout', 'DeploymentConfig']);
export const CLUSTER_ADMIN = 'cluster-admin';
export const UNSCHEDULED_NODE = 'unscheduled';
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
const CLUSTER_NAME = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,252}$/;

interface Workload {
  /** Its Service node, once drawn. */
  id: string;
  name: string;
  kind: string;
  namespace: string;
  specs: K8sObject[];
  /** Label sets of its pods and pod template, for Service selectors. */
  labelSets: Record<string, string>[];
  /** Nodes its pods are scheduled on, first seen first (a list: most workloads run on one). */
  nodes: string[];
  /** Image digests the pods' status reports, by container name (made when a status reports one). */
  digests?: Map<string, string>;
  pods: number;
  /**
   * The names Falco gives its pods' workload when they are not the controller's (`web-0`, `agent-x7k2p`),
   * as they come, repeats included: made distinct once, when the claims are counted.
   */
  runtimeNames: string[];
}

/** An empty list to start from: append() makes a new list for the first value, so this one is never written. */
const NONE = Object.freeze([]) as never[];
const NO_IMAGES: ImageUse[] = NONE;

/** An image a workload runs, with the containers that run it. */
interface ImageUse {
  raw: string;
  containers: string[];
  init: boolean;
}

/**
 * Values by namespace, then name: lookups hash the two strings the dump already holds instead of building
 * a `<namespace>/<name>` key each time (a fresh string, hashed once and dropped; ~100,000 of them on issue
 * 14's 50,000-object dump). Keys are what `<namespace>/<name>` was, to the letter: a namespace holding a `/`
 * (a malformed dump) is split at its first one, as that string would have been.
 */
class ByNamespace<T> {
  private readonly byNamespace = new Map<string, Map<string, T>>();

  get(namespace: string, name: string): T | undefined {
    const slash = namespace.indexOf('/');
    if (slash >= 0) return this.get(namespace.slice(0, slash), `${namespace.slice(slash + 1)}/${name}`);
    return this.byNamespace.get(namespace)?.get(name);
  }

  set(namespace: string, name: string, value: T): void {
    const slash = namespace.indexOf('/');
    if (slash >= 0)
      return this.set(namespace.slice(0, slash), `${namespace.slice(slash + 1)}/${name}`, value);
    let names = this.byNamespace.get(namespace);
    if (!names) this.byNamespace.set(namespace, (names = new Map()));
    names.set(name, value);
  }
}

/** The objects of a dump by what reads them, each list in dump order (one pass over the dump, not nine). */
interface Sorted {
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

const isCollection = (value: unknown): boolean => typeof value === 'object' && value !== null;

function sortObjects(objects: K8sObject[], into?: Sorted): Sorted {
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

export function createK8sSource(): IngestSource {
  return {
    name: 'k8s',
    version: '3',
    description:
      'Kubernetes dumps (JSON List or YAML): one workload per controller, its images, ingress exposure, RBAC escalation, container escape to the node.',
    snapshots: 'query',
    normalize({ body, query, receivedAt }) {
      const cluster = clusterOf(query);
      return new DumpMapping(cluster, receivedAt).map(flatten(body));
    },
  };
}

const nsOf = (o: K8sObject) => String(o.metadata?.namespace ?? 'default');
const nameOf = (o: K8sObject) => String(o.metadata?.name ?? '');

/**
 * One report's mapping, phase by phase, in the order its nodes and edges are drawn. A class, not closures
 * made inside normalize() for each report: V8 compiles these methods one by one with stable call targets,
 * where the one large function, its closures new on every report, deoptimized on "wrong call target" and
 * was recompiled (0.3 to 1.5 s of compile thread on issue 14's dump, on a 2-core host).
 */
class DumpMapping {
  private readonly out: EnvelopeBuilder;
  private readonly mentioned = new Set<string>();
  private readonly accountAutomount = new ByNamespace<boolean>();
  private readonly accounts = new ByNamespace<string>();
  /** Every account drawn, in the order drawn (group membership goes through them in that order). */
  private readonly accountList: { id: string; namespace: string; name: string }[] = [];
  /** Secrets the dump lists: `true`, or the account a service-account token Secret holds the token of. */
  private readonly listedSecrets = new ByNamespace<true | string>();
  private readonly imageIds = new Map<string, string | undefined>();
  /** Container images that are no image reference (`ko://...`, an unrendered `${IMAGE}`): said, not joined. */
  private readonly unreadImages = new Set<string>();
  private readonly tokensOnNode = new Map<string, Set<string>>();
  private admin: string | undefined;
  /** Binding subjects whose name or namespace is a map or a list (an unrendered template's). */
  private unnamedSubjects = 0;

  constructor(
    private readonly cluster: string | undefined,
    receivedAt: string,
  ) {
    this.out = new EnvelopeBuilder('k8s', 'asset', receivedAt);
  }

  map(objects: K8sObject[]): NormalizeOutput {
    const sorted = sortObjects(objects);

    // Service accounts first: whether they mount their token decides the workloads' ASSUMES.
    for (const o of sorted.serviceAccounts) {
      const namespace = nsOf(o);
      const saName = nameOf(o);
      this.account(namespace, saName);
      if (typeof o.automountServiceAccountToken === 'boolean')
        this.accountAutomount.set(namespace, saName, o.automountServiceAccountToken);
    }
    for (const o of sorted.nodesAndSecrets)
      if (o.kind === 'Secret') this.listedSecrets.set(nsOf(o), nameOf(o), tokenSecretAccount(o) ?? true);

    // One workload per controller: pods and controllers fold into the top owner the dump names.
    const { workloads, byName } = collectWorkloads(sorted.podsAndControllers);
    // A runtime name is an alias only when it is one workload's and no workload's own name: bare pods
    // named like a Deployment's (`app-7d4b9c8f6d-abcde`, `app-7d4b9c8f6d-fghij`) would otherwise claim one.
    const claims: Claims = { byName, runtimeNames: new ByNamespace<number>() };
    for (const w of workloads) {
      w.runtimeNames = distinct(w.runtimeNames);
      for (const n of w.runtimeNames)
        claims.runtimeNames.set(w.namespace, n, (claims.runtimeNames.get(w.namespace, n) ?? 0) + 1);
    }
    for (const w of workloads) this.workload(w, claims);

    // A known node holds the tokens of the pods scheduled on it (T1528).
    for (const [host, tokens] of this.tokensOnNode) {
      const nodeId = this.out.node('VirtualMachine', this.q(`node/${host}`), {
        cluster: this.cluster,
        k8s_node: true,
      });
      for (const sa of tokens) this.out.edge('ASSUMES', nodeId, sa, NODE_TOKEN_THEFT);
    }

    // Services select workloads (of their namespace); Ingresses route to services.
    const services = this.services(sorted.services, workloads);
    this.ingresses(sorted.ingresses, services);
    if (sorted.routes.length) this.routes(sorted.routes, services);
    if (sorted.buildConfigs.length) this.builds(sorted.buildConfigs, sorted.podsAndControllers);
    if (sorted.gatewayApi.length) this.gatewayApi(sorted.gatewayApi, sorted.namespaces, services);
    if (sorted.istio.length) this.istio(sorted.istio, services);

    // RBAC: roles, their escalation, and who is bound to them.
    const roleRules = new Map<string, { id: string; rules: PolicyRule[]; name: string }>();
    // An aggregated ClusterRole's rules are those of the roles it aggregates (a manifest writes none).
    const aggregated = aggregateClusterRoles(sorted.roles);
    // Every role's rules are known before any is judged: a `bind` limited to names is judged by the roles it names.
    this.rulesByRole = rulesByRole(sorted.roles, aggregated);
    for (const o of sorted.roles) this.role(o, roleRules, aggregated?.get(o));
    const boundGroups = new Map<string, string>();
    for (const o of sorted.bindings) this.binding(o, roleRules, boundGroups);
    this.groups(boundGroups, workloads);

    // Nodes and secrets the dump lists on their own (a secret by name and type only).
    for (const o of sorted.nodesAndSecrets) {
      if (o.kind === 'Node')
        this.out.node('VirtualMachine', this.q(`node/${nameOf(o)}`), {
          cluster: this.cluster,
          k8s_node: true,
        });
      else
        this.out.node('Secret', this.q(`${nsOf(o)}/secret/${nameOf(o)}`), {
          cluster: this.cluster,
          namespace: nsOf(o),
          k8s_kind: 'Secret',
          secret_type: typeof o.type === 'string' ? o.type : undefined,
        });
    }
    const ignored = [...sorted.ignored];
    const warnings = ignored.length ? [`k8s dump: kinds not used: ${ignored.sort().join(', ')}`] : [];
    if (sorted.unnamed || this.unnamedSubjects)
      warnings.push(
        `k8s dump: ${sorted.unnamed} object(s) and ${this.unnamedSubjects} binding subject(s) whose name, ` +
          'namespace or role reference is a map or a list skipped (an unrendered Helm or Go template? render ' +
          'it with `helm template` first)',
      );
    if (sorted.operatorReports)
      warnings.push(
        `k8s dump: ${sorted.operatorReports} Trivy Operator report(s) not read here: they are findings, which ` +
          '/ingest/trivy reads (pathgate ingestreal sends them there)',
      );
    if (this.unreadImages.size) {
      const unread = [...this.unreadImages].sort();
      const shown = unread.slice(0, 5).map((i) => JSON.stringify(i));
      if (unread.length > 5) shown.push(`and ${unread.length - 5} more`);
      warnings.push(
        `k8s dump: container images that are not image references, not linked to any scan: ${shown.join(', ')}`,
      );
    }
    for (const { name, unresolved } of sorted.templates)
      warnings.push(
        `k8s dump: OpenShift Template ${JSON.stringify(name)} read as \`oc process\` renders it with its ` +
          "parameters' defaults" +
          (unresolved.length
            ? `; left unrendered (generated, required or undeclared): ${unresolved.join(', ')}`
            : ''),
      );
    return { envelopes: [this.out.build()], warnings, mentioned: [...this.mentioned] };
  }

  /** A name within the cluster: `<cluster>/<name>` when the report names one. */
  private q(name: string): string {
    return this.cluster ? `${this.cluster}/${name}` : name;
  }

  private account(namespace: string, saName: string): string {
    const known = this.accounts.get(namespace, saName);
    if (known !== undefined) return known;
    const id = this.out.node('ServiceAccount', this.q(`${namespace}/${saName}`), {
      cluster: this.cluster,
      namespace,
    });
    this.accounts.set(namespace, saName, id);
    this.accountList.push({ id, namespace, name: saName });
    return id;
  }

  /** Image references, one node per reference as the dump writes it (and the digest a pod runs). */
  private imageNode(raw: string, runningDigest: string | undefined): string | undefined {
    const key = runningDigest ? `${raw}@@${runningDigest}` : raw;
    if (this.imageIds.has(key)) return this.imageIds.get(key);
    const ref = parseImageRef(raw);
    let id: string | undefined;
    if (ref) {
      const digest = ref.digest ?? runningDigest;
      id = this.out.node('Image', ref.canonical, {
        image_ref: ref.raw,
        registry: ref.registry,
        digests: digest ? [digest] : undefined,
        resolve_ref: digest && !ref.digest ? `${ref.raw}@${digest}` : ref.raw,
      });
    } else if (this.unreadImages.size < 1000) this.unreadImages.add(raw);
    this.imageIds.set(key, id);
    return id;
  }

  /** A workload, its images, service accounts, secrets and escapes. */
  private workload(w: Workload, claims: Claims): void {
    const { out, cluster } = this;
    let images: ImageUse[] = NO_IMAGES;
    // Every kind of container; an init or ephemeral container's image is marked `init_container`, as before.
    for (const spec of w.specs)
      for (const field of CONTAINER_FIELDS) images = addImages(images, spec[field], field !== 'containers');
    // Built without undefined values (rather than a literal the builder copies without them): one
    // object per workload instead of two.
    const props: Record<string, unknown> = {};
    if (cluster !== undefined) props.cluster = cluster;
    props.namespace = w.namespace;
    props.kind = lowerKind(w.kind);
    if (images.length) props.image = images[0].raw;
    if (images.length > 1) props.images = images.map((i) => i.raw);
    if (w.nodes.length === 1) props.node_name = w.nodes[0];
    else if (w.nodes.length > 1) props.node_names = [...w.nodes].sort();
    if (w.pods) props.pods = w.pods;
    // Bound on its node's address: exposed as far as the node is, which a dump does not say (no start).
    const hostPorts = hostPortsOf(w.specs);
    if (hostPorts) {
      props.host_port_exposed = true;
      props.host_ports = hostPorts;
    }
    // A Falco alert names a StatefulSet, DaemonSet or Job pod by the pod: it lands on this workload.
    const aliases = aliasesOf(w, claims, cluster);
    if (aliases) props.aliases = aliases;
    const id = out.node('Service', this.q(`${w.namespace}/${w.name}`), props, true);
    w.id = id;

    // Workload runs image: a reference the writer joins to the scan (DECISIONS "Workload runs image").
    for (const image of images) {
      const imageId = this.imageNode(image.raw, w.digests && runningDigest(w.digests, image.containers));
      if (imageId === undefined) continue;
      out.edge('DEPENDS_ON', id, imageId, { properties: runsImage(image), handOver: true });
    }

    // Its service accounts, when their token is mounted.
    let unmounted: string[] | undefined;
    for (const spec of w.specs) {
      // An empty name is none (`serviceAccount: ''` in OpenShift's templates): the namespace's default.
      const saName = String(spec.serviceAccountName || spec.serviceAccount || 'default');
      const sa = this.account(w.namespace, saName);
      const automount =
        typeof spec.automountServiceAccountToken === 'boolean'
          ? spec.automountServiceAccountToken
          : (this.accountAutomount.get(w.namespace, saName) ?? true);
      if (!automount) {
        (unmounted ??= []).push(saName);
        continue;
      }
      // Its token is a secret it is handed (a projected volume): as easy to read as any other it is given,
      // never harder than stealing it from the node (T1528), which would make routes detour through one.
      out.edge('ASSUMES', id, sa, MOUNTED_TOKEN);
      if (typeof spec.nodeName === 'string' && spec.nodeName) {
        let tokens = this.tokensOnNode.get(spec.nodeName);
        if (!tokens) this.tokensOnNode.set(spec.nodeName, (tokens = new Set()));
        tokens.add(sa);
      }
    }
    if (unmounted) out.stamp(id, { token_not_mounted: [...new Set(unmounted)] });

    // Secrets it is given: names only, never values.
    const secrets = secretsRead(w.specs);
    if (secrets)
      for (const [secret, via] of secrets) {
        const secretId = out.node('Secret', this.q(`${w.namespace}/secret/${secret}`), {
          cluster,
          namespace: w.namespace,
          k8s_kind: 'Secret',
        });
        const listed = this.listedSecrets.get(w.namespace, secret);
        if (!listed) this.mentioned.add(secretId);
        // A service-account token Secret it mounts: it holds that account's token, as if it ran as it.
        else if (listed !== true) out.edge('ASSUMES', id, this.account(w.namespace, listed), TOKEN_SECRET);
        out.edge('HAS_PERMISSION', id, secretId, {
          exploit_probability: WORKLOAD_SECRET_PROBABILITY,
          weight_basis: 'heuristic',
          properties: { access: 'read', via: [...via].sort() },
          handOver: true,
        });
      }

    // Container escape to the node(s) its pods run on (asked first: most pods ask for nothing).
    if (!w.specs.some(asksForHost)) return;
    const escapes =
      w.specs.length === 1 ? podEscapes(w.specs[0]) : mergeEscapes(w.specs.map((spec) => podEscapes(spec)));
    if (!escapes.length) return;
    const hosts = w.nodes.length ? w.nodes : [UNSCHEDULED_NODE];
    for (const host of hosts) {
      const nodeId = out.node('VirtualMachine', this.q(`node/${host}`), {
        cluster,
        k8s_node: true,
        crown_jewel: true,
        crown_jewel_basis: 'k8s:node-root',
        sensitive: true,
        ...(host === UNSCHEDULED_NODE && { unscheduled: true }),
      });
      if (host === UNSCHEDULED_NODE) this.mentioned.add(nodeId);
      out.edge('CAN_ESCALATE_TO', id, nodeId, {
        exploit_probability: escapePrice(escapes.map((e) => e.rule)),
        weight_basis: 'heuristic',
        properties: {
          attack: 'T1611',
          technique: 'Escape to Host',
          rules: escapes.map((e) => e.rule),
          kubehound: escapes.map((e) => e.kubehound),
          reasons: escapes.flatMap((e) => e.evidence.map((x) => `${e.rule}:${x}`)),
        },
        handOver: true,
      });
    }
  }

  /** Services, and the workloads of their namespace they select; returns their ids by namespace and name. */
  private services(objects: K8sObject[], workloads: Workload[]): ByNamespace<string> {
    const { out, cluster } = this;
    const byNamespace = new Map<string, Workload[]>();
    for (const w of workloads) {
      const list = byNamespace.get(w.namespace);
      if (list) list.push(w);
      else byNamespace.set(w.namespace, [w]);
    }
    const services = new ByNamespace<string>();
    for (const o of objects) {
      const namespace = nsOf(o);
      const serviceName = nameOf(o);
      const type = o.spec?.type ?? 'ClusterIP';
      const internal = type === 'LoadBalancer' ? internalLoadBalancer(o.metadata?.annotations) : undefined;
      const ranges = type === 'LoadBalancer' ? sourceRanges(o) : undefined;
      // Source ranges that admit no address of the internet at large (a VPC's, an office's) close it, as a
      // security group open only to them does (cloudnet: only 0.0.0.0/0 or ::/0 opens one).
      const confined = ranges !== undefined && !ranges.some((r) => r === '0.0.0.0/0' || r === '::/0');
      const id = out.node('LoadBalancer', this.q(`${namespace}/service/${serviceName}`), {
        cluster,
        namespace,
        k8s_kind: 'Service',
        service_type: type,
        internal_lb_annotation: internal,
        load_balancer_source_ranges: ranges,
        ...((type === 'LoadBalancer' || type === 'NodePort') &&
          !internal &&
          !confined && {
            internet_exposed: true,
            exposure_basis: `service-type:${type}`,
          }),
      });
      services.set(namespace, serviceName, id);
      const selector = Object.entries((o.spec?.selector ?? {}) as Record<string, string>);
      if (!selector.length) continue;
      // Plain loops: this runs for every workload of the namespace, for every service in it.
      for (const w of byNamespace.get(namespace) ?? []) {
        if (selects(selector, w.labelSets)) out.edge('EXPOSES', id, w.id);
      }
    }
    return services;
  }

  private ingresses(objects: K8sObject[], services: ByNamespace<string>): void {
    const { out, cluster } = this;
    for (const o of objects) {
      const namespace = nsOf(o);
      const id = out.node('LoadBalancer', this.q(`${namespace}/ingress/${nameOf(o)}`), {
        cluster,
        namespace,
        k8s_kind: 'Ingress',
        internet_exposed: true,
        exposure_basis: 'ingress',
      });
      const backends = [
        o.spec?.defaultBackend,
        o.spec?.backend,
        ...list(o.spec?.rules).flatMap((r: K8sObject) =>
          list(r?.http?.paths).map((p: K8sObject) => p?.backend),
        ),
      ];
      for (const backend of backends) {
        const service = backend?.service?.name ?? backend?.serviceName;
        if (typeof service === 'string') this.routeTo(id, namespace, service, services);
      }
    }
  }

  /**
   * A front door's ROUTES_TO a Service of the cluster: the dump's, or one drawn as only mentioned for its own
   * dump to describe. The Service is reached through the front door, not a second start (DECISIONS "One
   * start per exposure").
   */
  private routeTo(
    frontDoor: string,
    namespace: string,
    service: string,
    services: ByNamespace<string>,
    route?: string,
  ): void {
    const { out } = this;
    let target = services.get(namespace, service);
    if (!target) {
      target = out.node('LoadBalancer', this.q(`${namespace}/service/${service}`), {
        cluster: this.cluster,
        namespace,
        k8s_kind: 'Service',
      });
      this.mentioned.add(target);
    }
    out.stamp(target, { behind_ingress: true });
    out.edge('ROUTES_TO', frontDoor, target, route === undefined ? undefined : { properties: { route } });
  }

  /**
   * OpenShift BuildConfigs: the image a build pushed is BUILT_FROM its git repository (code to cloud, as CI
   * provenance says it), whether it pushes to a registry (`DockerImage`) or to an ImageStreamTag a
   * DeploymentConfig's trigger deployed (the image it last deployed, the one its pods run).
   */
  private builds(buildConfigs: K8sObject[], podsAndControllers: K8sObject[]): void {
    const deployed = new Map<string, string[]>();
    for (const o of podsAndControllers)
      if (o.kind === 'DeploymentConfig')
        for (const [tag, image] of triggeredImageStreamTags(o, nsOf(o)))
          deployed.set(tag, [...(deployed.get(tag) ?? []), image]);
    for (const o of buildConfigs) {
      const output = buildOutputOf(o, nsOf(o), repositoryFromUrl);
      if (!output) continue;
      const images = output.image ? [output.image] : (deployed.get(output.imageStreamTag!) ?? []);
      for (const raw of images) {
        const image = this.imageNode(raw, undefined);
        if (image === undefined) continue;
        const repository = this.out.node('Repository', output.repository, {});
        this.out.edge('BUILT_FROM', image, repository, { properties: { via: `BuildConfig/${nameOf(o)}` } });
      }
    }
  }

  /** OpenShift Routes: published by the cluster's router like an Ingress (k8s-openshift.ts). */
  private routes(objects: K8sObject[], services: ByNamespace<string>): void {
    for (const o of objects) {
      const namespace = nsOf(o);
      const id = this.out.node('LoadBalancer', this.q(`${namespace}/route/${nameOf(o)}`), {
        cluster: this.cluster,
        namespace,
        k8s_kind: 'Route',
        k8s_api: 'route.openshift.io',
        host: typeof o.spec?.host === 'string' && o.spec.host ? o.spec.host : undefined,
        internet_exposed: true,
        exposure_basis: 'openshift-route',
      });
      for (const service of routeServices(o)) this.routeTo(id, namespace, service, services);
    }
  }

  /**
   * Gateway API front doors: a Gateway is exposed like an Ingress and ROUTES_TO the Services of the routes
   * it admits (k8s-gateway-api.ts). A Gateway a route names that the dump does not hold is drawn without
   * exposure, for its own dump to describe.
   */
  private gatewayApi(objects: K8sObject[], namespaces: K8sObject[], services: ByNamespace<string>): void {
    const { out, cluster } = this;
    const gateways = new ByNamespace<{ object: K8sObject; id: string }>();
    const grants = new Map<string, K8sObject[]>();
    for (const o of objects) {
      const namespace = nsOf(o);
      if (o.kind === 'ReferenceGrant') {
        const list = grants.get(namespace);
        if (list) list.push(o);
        else grants.set(namespace, [o]);
        continue;
      }
      if (o.kind !== 'Gateway') continue;
      const internal = internalLoadBalancer(o.spec?.infrastructure?.annotations);
      const id = out.node('LoadBalancer', this.q(`${namespace}/gateway/${nameOf(o)}`), {
        cluster,
        namespace,
        k8s_kind: 'Gateway',
        gateway_class: typeof o.spec?.gatewayClassName === 'string' ? o.spec.gatewayClassName : undefined,
        internal_lb_annotation: internal,
        ...(!internal && { internet_exposed: true, exposure_basis: 'gateway' }),
      });
      gateways.set(namespace, nameOf(o), { object: o, id });
    }
    const namespaceLabels = new Map<string, unknown>(
      namespaces.map((n) => [nameOf(n), n.metadata?.labels ?? {}]),
    );
    for (const o of objects) {
      if (o.kind === 'Gateway' || o.kind === 'ReferenceGrant') continue;
      const namespace = nsOf(o);
      const backends = backendsOf(o, namespace, grants);
      if (!backends.length) continue;
      for (const parent of parentRefsOf(o, namespace)) {
        const gateway = gateways.get(parent.namespace, parent.name);
        let gatewayId = gateway?.id;
        if (gateway) {
          const route = { kind: String(o.kind), namespace, sectionName: parent.sectionName };
          if (!admits(gateway.object, parent.namespace, route, namespaceLabels)) continue;
        } else {
          gatewayId = out.node('LoadBalancer', this.q(`${parent.namespace}/gateway/${parent.name}`), {
            cluster,
            namespace: parent.namespace,
            k8s_kind: 'Gateway',
          });
          this.mentioned.add(gatewayId);
        }
        for (const backend of backends)
          this.routeTo(gatewayId!, backend.namespace, backend.name, services, `${o.kind}/${nameOf(o)}`);
      }
    }
  }

  /**
   * Istio's ingress: a Gateway is exposed like an Ingress and ROUTES_TO the Services of the VirtualServices
   * bound to it (k8s-istio.ts). A Gateway a VirtualService names that the dump does not hold is drawn
   * without exposure, for its own dump to describe.
   */
  private istio(objects: K8sObject[], services: ByNamespace<string>): void {
    const { out, cluster } = this;
    const gateways = new ByNamespace<string>();
    for (const o of objects) {
      if (o.kind !== 'Gateway') continue;
      const namespace = nsOf(o);
      gateways.set(
        namespace,
        nameOf(o),
        out.node('LoadBalancer', this.q(`${namespace}/istio-gateway/${nameOf(o)}`), {
          cluster,
          namespace,
          k8s_kind: 'Gateway',
          k8s_api: 'networking.istio.io',
          internet_exposed: true,
          exposure_basis: 'istio-gateway',
        }),
      );
    }
    for (const o of objects) {
      if (o.kind !== 'VirtualService') continue;
      const namespace = nsOf(o);
      const destinations = destinationsOf(o, namespace);
      if (!destinations.length) continue;
      for (const gateway of gatewaysOf(o, namespace)) {
        let gatewayId = gateways.get(gateway.namespace, gateway.name);
        if (gatewayId === undefined) {
          gatewayId = out.node('LoadBalancer', this.q(`${gateway.namespace}/istio-gateway/${gateway.name}`), {
            cluster,
            namespace: gateway.namespace,
            k8s_kind: 'Gateway',
            k8s_api: 'networking.istio.io',
          });
          this.mentioned.add(gatewayId);
        }
        for (const destination of destinations)
          this.routeTo(
            gatewayId,
            destination.namespace,
            destination.name,
            services,
            `VirtualService/${nameOf(o)}`,
          );
      }
    }
  }

  /** Whether a role's rules escalate (bound cluster-wide, or in `scope`'s namespace): CAN_ESCALATE_TO cluster-admin. */
  private escalate(roleId: string, rules: PolicyRule[] | undefined, roleName: string, scope?: string): void {
    const { primitives, named, tokenAccounts } = rbacEscalation(
      rules,
      roleName,
      scope === undefined ? 'cluster' : 'namespace',
      this.roleContext(scope),
    );
    // Tokens of named accounts: the escalation is to them (k8s-rbac-context.ts).
    if (tokenAccounts)
      tokenEscalation(this.out, roleId, tokenAccounts, scope, this.accountList, this.account.bind(this));
    if (!primitives.length) return;
    // Drawn once: later escalations would only merge the same properties into it again.
    if (this.admin === undefined) {
      this.admin = this.out.node('IAM_Role', this.q(CLUSTER_ADMIN), {
        cluster: this.cluster,
        synthetic: true,
        crown_jewel: true,
        crown_jewel_basis: 'synthetic:cluster-admin',
      });
      this.mentioned.add(this.admin);
    }
    // Bound in one namespace: resource-scoped, except kube-system, which holds the cluster's own powers.
    const scoped = named || (scope !== undefined && scope !== 'kube-system');
    this.out.edge('CAN_ESCALATE_TO', roleId, this.admin, {
      resource_scoped: scoped,
      properties: {
        primitives,
        scope: scope === undefined ? 'cluster' : 'namespace',
        namespace: scope,
        resource_names: named || undefined,
      },
      handOver: true,
    });
  }

  private role(
    o: K8sObject,
    roleRules: Map<string, { id: string; rules: PolicyRule[]; name: string }>,
    aggregated: Aggregated | undefined,
  ): void {
    const clusterWide = o.kind === 'ClusterRole';
    const roleName = clusterWide ? `clusterrole/${nameOf(o)}` : `${nsOf(o)}/role/${nameOf(o)}`;
    const rules = aggregated?.rules ?? (rulesOf(o) as PolicyRule[]);
    const id = this.out.node('IAM_Role', this.q(roleName), {
      cluster: this.cluster,
      k8s_kind: o.kind,
      ...(clusterWide ? {} : { namespace: nsOf(o) }),
      ...(aggregated && { aggregated_from: aggregated.from }),
    });
    roleRules.set(roleName, { id, rules, name: nameOf(o) });
    this.escalate(id, rules, nameOf(o), clusterWide ? undefined : nsOf(o));
  }

  private rulesByRole = new Map<string, { rules: PolicyRule[] }>();

  /** The dump's roles, for a `bind` grant limited to names bound in `namespace` (cluster-wide when undefined). */
  private roleContext(namespace: string | undefined): RoleContext {
    return roleContextOf(this.rulesByRole, namespace);
  }

  private binding(
    o: K8sObject,
    roleRules: Map<string, { id: string; rules: PolicyRule[]; name: string }>,
    boundGroups: Map<string, string>,
  ): void {
    const { out, cluster } = this;
    const refKind = roleRefKind(o);
    const toClusterRole = refKind === 'ClusterRole';
    const refName = String(o.roleRef.name);
    let role: string;
    if (o.kind === 'RoleBinding' && toClusterRole) {
      // A ClusterRole bound in one namespace grants its rules there only.
      const bound = roleRules.get(`clusterrole/${refName}`);
      role = out.node('IAM_Role', this.q(`${nsOf(o)}/clusterrole/${refName}`), {
        cluster,
        k8s_kind: 'ClusterRole',
        namespace: nsOf(o),
        bound_in_namespace: true,
      });
      this.escalate(role, bound?.rules, refName, nsOf(o));
    } else {
      const roleName = toClusterRole ? `clusterrole/${refName}` : `${nsOf(o)}/role/${refName}`;
      const known = roleRules.get(roleName);
      role = known?.id ?? out.node('IAM_Role', this.q(roleName), { cluster, k8s_kind: refKind });
      if (!known) {
        this.mentioned.add(role);
        // A binding to a role the dump does not hold: judged by its name alone.
        this.escalate(role, undefined, refName, toClusterRole ? undefined : nsOf(o));
      }
    }
    const binding = { binding: `${o.kind}/${nameOf(o)}` };
    for (const subject of bindingSubjects(o) as K8sObject[]) {
      if (isCollection(subject?.name) || isCollection(subject?.namespace)) {
        this.unnamedSubjects++;
        continue;
      }
      if (typeof subject?.name !== 'string' || !subject.name) continue;
      let who: string | undefined;
      if (subject.kind === 'ServiceAccount')
        who = this.account(String(subject.namespace ?? nsOf(o)), subject.name);
      else if (subject.kind === 'User') {
        // An account's token authenticates as `system:serviceaccount:<ns>:<name>`: that User is the account.
        const sa = serviceAccountOfUser(subject.name);
        who = sa
          ? this.account(sa.namespace, sa.name)
          : out.node('User', this.q(`user/${subject.name}`), { cluster, k8s_user: subject.name });
      } else if (subject.kind === 'Group') {
        who = out.node('User', this.q(`group/${subject.name}`), { cluster, k8s_group: subject.name });
        boundGroups.set(subject.name, who);
      }
      if (who) out.edge('ASSUMES', who, role, { properties: binding });
    }
  }

  /**
   * Group subjects: every service account the dump holds is a member of the groups it belongs to; anyone
   * who reaches the API server (every workload) is `system:unauthenticated` when it sends no token.
   */
  private groups(boundGroups: Map<string, string>, workloads: Workload[]): void {
    for (const [groupName, group] of boundGroups) {
      if (groupName === 'system:unauthenticated') {
        for (const w of workloads) this.member(w.id, group);
        continue;
      }
      const everyAccount = groupName === 'system:authenticated' || groupName === 'system:serviceaccounts';
      // `system:serviceaccounts:<namespace>`: the accounts of that namespace.
      const namespace = groupName.startsWith(SERVICEACCOUNTS_OF)
        ? groupName.slice(SERVICEACCOUNTS_OF.length)
        : undefined;
      for (const sa of this.accountList)
        if (everyAccount || sa.namespace === namespace) this.member(sa.id, group);
    }
  }

  private member(who: string, group: string): void {
    this.out.edge('ASSUMES', who, group, {
      exploit_probability: GROUP_MEMBERSHIP_PROBABILITY,
      weight_basis: 'heuristic',
      properties: { membership: true },
      handOver: true,
    });
  }
}

const SERVICEACCOUNTS_OF = 'system:serviceaccounts:';

/**
 * Edge options shared by every edge of that kind. Their properties are frozen and handed over: one object
 * for the 30,000 ASSUMES edges of issue 14's dump rather than a copy each (the builder keeps them as they
 * are; nothing mutates an envelope's properties in place, and being frozen, nothing can).
 */
const MOUNTED_TOKEN: EdgeOptions = Object.freeze({
  exploit_probability: WORKLOAD_SECRET_PROBABILITY,
  weight_basis: 'heuristic',
  properties: Object.freeze({ via: 'mounted token' }),
  handOver: true,
});
const NODE_TOKEN_THEFT: EdgeOptions = Object.freeze({
  exploit_probability: NODE_TOKEN_THEFT_PROBABILITY,
  weight_basis: 'heuristic',
  properties: Object.freeze({
    attack: 'T1528',
    technique: 'Steal Application Access Token',
    via: 'kubelet pod volumes',
  }),
  handOver: true,
});

/**
 * The properties of a DEPENDS_ON edge from a workload whose one container of that name runs the image:
 * made once per container name and shared, frozen (most workloads: 30,000 objects and arrays fewer on
 * issue 14's dump). Several containers get their own.
 */
const oneContainer = new Map<string, Readonly<Record<string, unknown>>>();
const oneInitContainer = new Map<string, Readonly<Record<string, unknown>>>();
function runsImage(image: ImageUse): Record<string, unknown> {
  if (image.containers.length !== 1)
    return image.init
      ? { containers: image.containers, init_container: true }
      : { containers: image.containers };
  const shared = image.init ? oneInitContainer : oneContainer;
  const container = image.containers[0];
  let properties = shared.get(container);
  if (properties === undefined) {
    properties = Object.freeze(
      image.init
        ? { containers: Object.freeze([container]), init_container: true }
        : { containers: Object.freeze([container]) },
    );
    // Bounded: container names are chosen by the dump's authors, and a dump may name many.
    if (shared.size < 1024) shared.set(container, properties);
  }
  return properties;
}

/** Whether a Service selector matches one of a workload's label sets (every pair equal). */
function selects(selector: [string, string][], labelSets: Record<string, string>[]): boolean {
  for (const labels of labelSets) {
    let all = true;
    // Indexed, not destructured: `[key, value]` of each pair went through the iterator protocol (a result
    // object per pair, 300,000 pairs on issue 14's dump).
    for (let i = 0; i < selector.length; i++) {
      if (labels[selector[i][0]] !== selector[i][1]) {
        all = false;
        break;
      }
    }
    if (all) return true;
  }
  return false;
}

/**
 * The annotations by which a cloud's controller makes a LoadBalancer Service an internal (VPC-only) load
 * balancer, with the values that mean it (compared case-insensitively).
 */
const INTERNAL_LB_ANNOTATIONS: Record<string, readonly string[]> = {
  'service.beta.kubernetes.io/aws-load-balancer-internal': ['true', '0.0.0.0/0'],
  'service.beta.kubernetes.io/aws-load-balancer-scheme': ['internal'],
  'networking.gke.io/load-balancer-type': ['internal'],
  'cloud.google.com/load-balancer-type': ['internal'],
  'service.beta.kubernetes.io/azure-load-balancer-internal': ['true'],
  'service.beta.kubernetes.io/oci-load-balancer-internal': ['true'],
  'service.kubernetes.io/ibm-load-balancer-cloud-provider-ip-type': ['private'],
};

/** The annotation that makes a LoadBalancer Service internal, when it has one (no internet start then). */
function internalLoadBalancer(annotations: unknown): string | undefined {
  if (!annotations || typeof annotations !== 'object') return undefined;
  for (const [key, values] of Object.entries(INTERNAL_LB_ANNOTATIONS)) {
    const value = (annotations as Record<string, unknown>)[key];
    if (typeof value === 'string' && values.includes(value.trim().toLowerCase())) return key;
  }
  return undefined;
}

/**
 * The client ranges a LoadBalancer Service admits (`spec.loadBalancerSourceRanges`, else the older
 * `service.beta.kubernetes.io/load-balancer-source-ranges` annotation, comma-separated); undefined when it
 * names none (every client).
 */
function sourceRanges(o: K8sObject): string[] | undefined {
  const spec: unknown = o.spec?.loadBalancerSourceRanges;
  const annotation: unknown =
    o.metadata?.annotations?.['service.beta.kubernetes.io/load-balancer-source-ranges'];
  const ranges = (Array.isArray(spec) ? spec : typeof annotation === 'string' ? annotation.split(',') : [])
    .filter((r): r is string => typeof r === 'string')
    .map((r) => r.trim())
    .filter(Boolean);
  return ranges.length ? ranges : undefined;
}

/** Whether a value may name a cluster: it is the first part of every qualified name, so no `/`. */
export function isClusterName(value: string): boolean {
  return CLUSTER_NAME.test(value);
}

/**
 * The cluster a report describes: `?cluster=`, or the one `snapshot=cluster:<name>` names (400 naming
 * `/query/cluster` when malformed or contradicting). Shared by the sources that name cluster objects (k8s, falco).
 */
export function clusterOf(query: Record<string, string | undefined>): string | undefined {
  const fromSnapshot = query.snapshot?.startsWith('cluster:')
    ? query.snapshot.slice('cluster:'.length)
    : undefined;
  const given = query.cluster;
  if (given !== undefined && !CLUSTER_NAME.test(given)) {
    throw new ProblemError('invalid-query', `/query/cluster: expected a cluster name`, {
      errors: [
        {
          pointer: '/query/cluster',
          value: given,
          detail: 'expected a cluster name (letters, digits, `.`, `_`, `:` and `-`, no `/`)',
        },
      ],
    });
  }
  // The snapshot's cluster is the same first part of every name: no `/` there either.
  if (fromSnapshot !== undefined && !CLUSTER_NAME.test(fromSnapshot)) {
    throw new ProblemError('invalid-query', `/query/snapshot: expected cluster:<name>`, {
      errors: [
        {
          pointer: '/query/snapshot',
          value: query.snapshot,
          detail: 'expected cluster:<name> (letters, digits, `.`, `_`, `:` and `-`, no `/`)',
        },
      ],
    });
  }
  if (given !== undefined && fromSnapshot !== undefined && given !== fromSnapshot) {
    throw new ProblemError('invalid-query', `/query/cluster: names another cluster than snapshot`, {
      errors: [
        {
          pointer: '/query/cluster',
          value: given,
          detail: `snapshot=cluster:${fromSnapshot} names another cluster`,
        },
      ],
    });
  }
  return given ?? fromSnapshot;
}

/** A namespace's name (a DNS-1123 label) and an account's (a DNS-1123 subdomain), as the API checks them. */
const NAMESPACE_NAME = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const SERVICE_ACCOUNT_USER = 'system:serviceaccount:';

/**
 * The service account a username is, when it is one: the API server authenticates an account's token as
 * exactly `system:serviceaccount:<namespace>:<name>`, and splits such a name back only when it has those two
 * parts, each a valid name (serviceaccount.SplitUsername). A binding's User subject of that name, or an audit
 * event's user, is therefore that account; anything else (too few or too many parts, the plural group
 * prefix `system:serviceaccounts`) is not. Shared by the sources that read usernames (k8s, falco).
 */
export function serviceAccountOfUser(username: string): { namespace: string; name: string } | undefined {
  if (!username.startsWith(SERVICE_ACCOUNT_USER)) return undefined;
  const parts = username.slice(SERVICE_ACCOUNT_USER.length).split(':');
  if (parts.length !== 2) return undefined;
  const [namespace, name] = parts;
  if (!NAMESPACE_NAME.test(namespace) || name.length > 253 || !SUBDOMAIN.test(name)) return undefined;
  return { namespace, name };
}

/**
 * The alphabet of the names Kubernetes generates (k8s.io/apimachinery/pkg/util/rand: no vowels, no `0`, `1`,
 * `3`, so that no word and no look-alike is ever spelt): a pod's random suffix (`generateName`, 5 of them) and
 * a Deployment's pod-template-hash (a 32-bit hash written in decimal, each digit mapped into it: 10 at most,
 * 5 or more in all but a handful of the hashes a Deployment can have).
 */
const GENERATED = '[bcdfghjklmnpqrstvwxz2456789]';
/**
 * What a controller appends to the pods it names, its own name before it: a Deployment's ReplicaSet and pod
 * (`<deployment>-<pod-template-hash>-<5>`), or a CronJob's Job and pod (`<cronjob>-<minutes since 1970>-<5>`).
 * Nothing else is stripped: a DaemonSet's or a Job's `-<5>` is a static pod's `-<node>` too
 * (`kube-apiserver-node1`), and a StatefulSet's `-<ordinal>` a name's own number; the k8s source aliases
 * those pods on their workloads by their whole names.
 */
const CONTROLLER_POD_SUFFIX = new RegExp(`-(?:${GENERATED}{5,10}|[0-9]{8,10})-${GENERATED}{5}$`);

/**
 * The workload Falco names for a pod, from its name alone: a Deployment's pod `checkout-7d4b9c8f6d-x2x9q`
 * is `checkout`; any other pod (`kube-scheduler-bpnn6`, `web-0`, `reviews-v1-abcde`) is itself.
 */
export function workloadOf(pod: string): string {
  return pod.replace(CONTROLLER_POD_SUFFIX, '');
}

/**
 * The Deployment a ReplicaSet named `<deployment>-<pod-template-hash>` belongs to, read from its name alone
 * (a report that names the ReplicaSet, not the dump that holds its owner): the hash in the generated alphabet,
 * or in decimal as Kubernetes wrote it before 1.8. Undefined for a name with no such suffix.
 */
export function controllerOfReplicaSet(name: string): string | undefined {
  const owner = name.replace(REPLICA_SET_SUFFIX, '');
  return owner !== name && owner !== '' ? owner : undefined;
}
const REPLICA_SET_SUFFIX = new RegExp(`-(?:${GENERATED}{5,10}|[0-9]{6,10})$`);

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

/** Who claims a name: the workloads by their own names, and how many workloads give each runtime name. */
interface Claims {
  byName: ByNamespace<Workload>;
  runtimeNames: ByNamespace<number>;
}

/** The runtime names of a workload that are its alone (no other's, and no workload's own name), qualified. */
function aliasesOf(w: Workload, claims: Claims, cluster: string | undefined): string[] | undefined {
  if (!w.runtimeNames.length) return undefined;
  let own: string[] | undefined;
  for (const n of w.runtimeNames)
    if (claims.runtimeNames.get(w.namespace, n) === 1 && claims.byName.get(w.namespace, n) === undefined)
      (own ??= []).push(n);
  // Sorted by name: the same order as the qualified `<namespace>/<name>`, which share their prefix.
  return own?.sort().map((n) => (cluster ? `${cluster}/${w.namespace}/${n}` : `${w.namespace}/${n}`));
}

/** The distinct values of a list, first seen first (the list itself when it has one). */
function distinct(values: string[]): string[] {
  return values.length < 2 ? values : [...new Set(values)];
}

/** Kinds lower-cased once each: `kind` is written on every workload, and toLowerCase makes a new string. */
const lowerKinds = new Map<string, string>();
function lowerKind(kind: string): string {
  let lower = lowerKinds.get(kind);
  if (lower === undefined) {
    lower = kind.toLowerCase();
    if (lowerKinds.size < 64) lowerKinds.set(kind, lower);
  }
  return lower;
}

/**
 * A list with one more value. The first value makes a list of exactly one: a first push() into `[]` would
 * reserve room for 17 (about 150 bytes), and a workload's lists (specs, label sets, nodes, runtime names,
 * images, containers) mostly hold one; on issue 14's dump these lists were a fifth of the bytes allocated.
 */
function append<T>(list: T[], value: T): T[] {
  if (!list.length) return [value];
  list.push(value);
  return list;
}

/** Adds the images of one container list to a workload's (a handful: a list scanned beats a Map). */
function addImages(images: ImageUse[], containers: unknown, init: boolean): ImageUse[] {
  if (!Array.isArray(containers)) return images;
  for (const c of containers) {
    if (typeof c?.image !== 'string' || !c.image.trim()) continue;
    let entry: ImageUse | undefined;
    for (const known of images) if (known.raw === c.image) entry = known;
    const containerName = String(c.name);
    if (!entry) images = append(images, { raw: c.image, containers: [containerName], init });
    else if (!entry.containers.includes(containerName))
      entry.containers = append(entry.containers, containerName);
    if (entry && !init) entry.init = false;
  }
  return images;
}

/** The digest the pods' status reports for the first of these containers that has one. */
function runningDigest(digests: Map<string, string>, containers: string[]): string | undefined {
  for (const c of containers) {
    const digest = digests.get(c);
    if (digest) return digest;
  }
  return undefined;
}

/** The digest a container status reports its image ran as (`...@sha256:<hex>`). */
const RUNNING_DIGEST = /@(sha256:[a-f0-9]{64})$/;

const NO_LABELS: Record<string, string> = Object.freeze({});

/** Pods and controllers (named) folded into one workload per top controller, first seen first. */
function collectWorkloads(podsAndControllers: K8sObject[]): {
  workloads: Workload[];
  byName: ByNamespace<Workload>;
} {
  const byUid = new Map<string, K8sObject>();
  const byKey = new Map<string, K8sObject>();
  for (const o of podsAndControllers) {
    if (o.kind === 'Pod') continue;
    if (typeof o.metadata?.uid === 'string') byUid.set(o.metadata.uid, o);
    byKey.set(`${nsOf(o)}/${o.kind}/${nameOf(o)}`, o);
  }
  /**
   * The top controller of an object, as far as the dump (or a pod-template-hash) tells: an object of the
   * dump (the object itself when it names no owner, as most pods do: nothing is allocated for those), or
   * one made up for an owner the dump does not hold.
   */
  const topOwner = (o: K8sObject): K8sObject => {
    let current = o;
    // The cycle guard is only built once an owner is followed.
    let seen: Set<K8sObject> | undefined;
    for (;;) {
      const refs: K8sObject[] | undefined = current.metadata?.ownerReferences;
      if (!Array.isArray(refs) || !refs.length) return current;
      (seen ??= new Set()).add(current);
      const ref =
        refs.find((r) => r?.controller === true && CONTROLLER_KINDS.has(r.kind)) ??
        refs.find((r) => CONTROLLER_KINDS.has(r?.kind));
      if (!ref || typeof ref.name !== 'string') return current;
      const owner =
        (typeof ref.uid === 'string' ? byUid.get(ref.uid) : undefined) ??
        byKey.get(`${nsOf(current)}/${ref.kind}/${ref.name}`);
      if (owner && !seen.has(owner)) {
        current = owner;
        continue;
      }
      // A ReplicaSet the dump does not hold is named `<deployment>-<pod-template-hash>` (an Argo Rollout's,
      // `<rollout>-<rollouts-pod-template-hash>`).
      const labels = current.metadata?.labels;
      const hash = labels?.['pod-template-hash'];
      if (ref.kind === 'ReplicaSet' && typeof hash === 'string' && ref.name.endsWith(`-${hash}`))
        return { kind: 'Deployment', metadata: { name: ref.name.slice(0, -hash.length - 1) } };
      const rolloutHash = labels?.['rollouts-pod-template-hash'];
      if (
        ref.kind === 'ReplicaSet' &&
        typeof rolloutHash === 'string' &&
        ref.name.endsWith(`-${rolloutHash}`)
      )
        return { kind: 'Rollout', metadata: { name: ref.name.slice(0, -rolloutHash.length - 1) } };
      // A DeploymentConfig's ReplicationController `<deploymentconfig>-<version>` (k8s-openshift.ts).
      const deploymentConfig =
        ref.kind === 'ReplicationController' ? deploymentConfigOf(current, ref.name) : undefined;
      if (deploymentConfig) return { kind: 'DeploymentConfig', metadata: { name: deploymentConfig } };
      return { kind: String(ref.kind), metadata: { name: ref.name } };
    }
  };
  const byName = new ByNamespace<Workload>();
  const workloads: Workload[] = [];
  for (const o of podsAndControllers) {
    const isPod = o.kind === 'Pod';
    const template = isPod ? undefined : templateOf(o);
    let spec = isPod ? o.spec : template?.spec;
    if (o.kind === 'DeploymentConfig' && spec && typeof spec === 'object') spec = triggeredImages(o, spec);
    if (!spec || typeof spec !== 'object') continue;
    const top = topOwner(o);
    const namespace = nsOf(o);
    const topName = nameOf(top);
    let w = byName.get(namespace, topName);
    if (!w) {
      w = {
        id: '',
        name: topName,
        kind: String(top.kind),
        namespace,
        specs: NONE,
        labelSets: NONE,
        nodes: NONE,
        pods: 0,
        runtimeNames: NONE,
      };
      byName.set(namespace, topName, w);
      workloads.push(w);
    }
    w.specs = append(w.specs, spec);
    const labels = (isPod ? o.metadata?.labels : template?.metadata?.labels) ?? NO_LABELS;
    if (labels && typeof labels === 'object') w.labelSets = append(w.labelSets, labels);
    // A pod template may pin its node too (`nodeName` in a controller's template): its pods run there.
    if (typeof spec.nodeName === 'string' && spec.nodeName && !w.nodes.includes(spec.nodeName))
      w.nodes = append(w.nodes, spec.nodeName);
    if (isPod) {
      w.pods++;
      const runtimeName = workloadOf(nameOf(o));
      if (runtimeName !== w.name) w.runtimeNames = append(w.runtimeNames, runtimeName);
      readDigests(w, o.status?.initContainerStatuses);
      readDigests(w, o.status?.containerStatuses);
      readDigests(w, o.status?.ephemeralContainerStatuses);
    }
    // A DeploymentConfig's ReplicationController (`web-3`) is what Falco names its pods by (`k8s.rc.name`):
    // the dump's, the one its pods name, or the latest deployment's (`status.latestVersion`).
    if (w.kind === 'DeploymentConfig') {
      const rc = replicationControllerOf(o);
      if (rc !== undefined && rc !== w.name) w.runtimeNames = append(w.runtimeNames, rc);
    }
  }
  return { workloads, byName };
}

/**
 * A ReplicationController's own name, the one a pod's controller reference names, or a DeploymentConfig's
 * latest (`<name>-<status.latestVersion>`, the one that runs its pods).
 */
function replicationControllerOf(o: K8sObject): string | undefined {
  if (o.kind === 'ReplicationController') return nameOf(o);
  if (o.kind === 'DeploymentConfig') {
    const version: unknown = o.status?.latestVersion;
    return typeof version === 'number' && Number.isInteger(version) && version > 0
      ? `${nameOf(o)}-${version}`
      : undefined;
  }
  const refs: unknown = o.metadata?.ownerReferences;
  if (!Array.isArray(refs)) return undefined;
  const ref = refs.find((r) => r?.kind === 'ReplicationController' && typeof r.name === 'string');
  return ref?.name;
}

/** Records the image digests a pod's container statuses report. */
function readDigests(w: Workload, statuses: unknown): void {
  if (!Array.isArray(statuses)) return;
  for (const status of statuses) {
    const digest = RUNNING_DIGEST.exec(String(status?.imageID ?? ''))?.[1];
    if (digest && typeof status.name === 'string') (w.digests ??= new Map()).set(status.name, digest);
  }
}

/**
 * The ports a workload's pods bind on their node's address, as `<port>/<protocol>` (by port), or undefined
 * when none (most pods: nothing is allocated for them). A container port with a `hostPort` is one, unless
 * its `hostIP` is a loopback address (reached from the node alone); in a pod on the host's network every
 * container port is one (the API server sets its hostPort to its containerPort).
 */
function hostPortsOf(specs: K8sObject[]): string[] | undefined {
  let out: Set<string> | undefined;
  for (const spec of specs) {
    const hostNetwork = spec.hostNetwork === true;
    for (const field of CONTAINER_FIELDS) {
      const containers = spec[field];
      if (!Array.isArray(containers)) continue;
      for (const c of containers) {
        const ports = c?.ports;
        if (!Array.isArray(ports)) continue;
        for (const port of ports) {
          const bound = isPort(port?.hostPort)
            ? port.hostPort
            : hostNetwork
              ? port?.containerPort
              : undefined;
          if (!isPort(bound) || isLoopback(port.hostIP)) continue;
          (out ??= new Set()).add(`${bound}/${typeof port.protocol === 'string' ? port.protocol : 'TCP'}`);
        }
      }
    }
  }
  // By port number, then protocol.
  return out && [...out].sort((a, b) => parseInt(a, 10) - parseInt(b, 10) || (a < b ? -1 : a > b ? 1 : 0));
}

const isPort = (value: unknown): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value > 0 && value < 65536;

const isLoopback = (ip: unknown): boolean =>
  typeof ip === 'string' && (ip.startsWith('127.') || ip === '::1');

/** Escapes over several specs of one workload, one entry per rule. */
function mergeEscapes(lists: Escape[][]): Escape[] {
  const byRule = new Map<string, Escape>();
  for (const list of lists) {
    for (const e of list) {
      const known = byRule.get(e.rule);
      if (known) known.evidence = [...new Set([...known.evidence, ...e.evidence])];
      else byRule.set(e.rule, { ...e, evidence: [...e.evidence] });
    }
  }
  return [...byRule.values()];
}

/** A field the API writes as a list; anything else (a malformed dump) reads as empty. */
function list(value: unknown): K8sObject[] {
  return Array.isArray(value) ? value : [];
}

function templateOf(o: K8sObject): K8sObject | undefined {
  return o.kind === 'CronJob' ? o.spec?.jobTemplate?.spec?.template : o.spec?.template;
}

/**
 * Every object of a List (nested Lists too), or the object itself. Bodies are guarded at MAX_BODY_DEPTH
 * when parsed; the bound here keeps the recursion safe for any other caller. A typed list as the API server
 * or the kubelet returns it (`PodList`, `RoleBindingList`: `kubectl get --raw`, the kubelet's `/pods`) does
 * not repeat the kind on its items: they are of the list's kind. `items: null` is an empty list.
 */
function flatten(
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
