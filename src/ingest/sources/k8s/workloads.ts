// One workload per controller: a dump's pods and controllers folded into their top owner, with what the
// mapping reads of them (pod specs, label sets, nodes, running digests, the names Falco gives their pods).
import { deploymentConfigOf, triggeredImages } from '../k8s-openshift.js';
import { ByNamespace } from './by-namespace.js';
import { CONTROLLER_KINDS, nameOf, nsOf, type K8sObject } from './dump.js';
import { workloadOf } from './names.js';

export interface Workload {
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
export const NONE = Object.freeze([]) as never[];

/** Who claims a name: the workloads by their own names, and how many workloads give each runtime name. */
export interface Claims {
  byName: ByNamespace<Workload>;
  runtimeNames: ByNamespace<number>;
}

/** The runtime names of a workload that are its alone (no other's, and no workload's own name), qualified. */
export function aliasesOf(w: Workload, claims: Claims, cluster: string | undefined): string[] | undefined {
  if (!w.runtimeNames.length) return undefined;
  let own: string[] | undefined;
  for (const n of w.runtimeNames)
    if (claims.runtimeNames.get(w.namespace, n) === 1 && claims.byName.get(w.namespace, n) === undefined)
      (own ??= []).push(n);
  // Sorted by name: the same order as the qualified `<namespace>/<name>`, which share their prefix.
  return own?.sort().map((n) => (cluster ? `${cluster}/${w.namespace}/${n}` : `${w.namespace}/${n}`));
}

/** The distinct values of a list, first seen first (the list itself when it has one). */
export function distinct(values: string[]): string[] {
  return values.length < 2 ? values : [...new Set(values)];
}

/**
 * A list with one more value. The first value makes a list of exactly one: a first push() into `[]` would
 * reserve room for 17 (about 150 bytes), and a workload's lists (specs, label sets, nodes, runtime names,
 * images, containers) mostly hold one; on issue 14's dump these lists were a fifth of the bytes allocated.
 */
export function append<T>(list: T[], value: T): T[] {
  if (!list.length) return [value];
  list.push(value);
  return list;
}

/** The digest a container status reports its image ran as (`...@sha256:<hex>`). */
const RUNNING_DIGEST = /@(sha256:[a-f0-9]{64})$/;

const NO_LABELS: Record<string, string> = Object.freeze({});

/** Pods and controllers (named) folded into one workload per top controller, first seen first. */
export function collectWorkloads(podsAndControllers: K8sObject[]): {
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

function templateOf(o: K8sObject): K8sObject | undefined {
  return o.kind === 'CronJob' ? o.spec?.jobTemplate?.spec?.template : o.spec?.template;
}
