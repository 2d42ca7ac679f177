// What a container-escape rule reads: a pod spec (a Pod's, or a controller's pod template). Each rule is
// one file in this folder, after one of KubeHound's container-escape and host-mount attacks, and is listed
// in container-escape.ts; a pod that any rule fires for escapes to its node (ATT&CK T1611).
import { podContainers } from './pod-containers.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a pod spec as the API returns it
export type PodSpec = Record<string, any>;

export interface EscapeRule {
  /** Our name for the rule, written on the escape edge. */
  name: string;
  /** The KubeHound attack it follows. */
  kubehound: string;
  /** The evidence (a container, a host path) when the rule fires, else an empty list. */
  fires(pod: PodView): string[];
}

export interface ContainerView {
  name: string;
  privileged: boolean;
  /** Added capabilities, upper case, without the `CAP_` prefix. */
  capabilities: ReadonlySet<string>;
  /** Whether the container may run as root (nothing in its or the pod's context says otherwise). */
  mayRunAsRoot: boolean;
}

export interface HostMount {
  /** The host path, normalized (no trailing slash, `/` for the root). */
  path: string;
  /** True when every container that mounts it mounts it read-only. */
  readOnly: boolean;
  /** Containers that mount it, and whether one of them may run as root. */
  containers: string[];
  rootMount: boolean;
}

export interface PodView {
  hostPID: boolean;
  containers: ContainerView[];
  /** hostPath volumes some container actually mounts. */
  hostMounts: HostMount[];
}

/** Reads the parts of a pod spec the escape rules look at. */
export function podView(spec: PodSpec): PodView {
  const podContext = spec.securityContext ?? {};
  // Init, app and ephemeral (`kubectl debug`) containers alike: each runs in the pod, on its node.
  const all = podContainers(spec);
  const containers = all.map((c): ContainerView => {
    const context = c.securityContext ?? {};
    const runAsNonRoot = context.runAsNonRoot ?? podContext.runAsNonRoot;
    const runAsUser = context.runAsUser ?? podContext.runAsUser;
    return {
      name: String(c.name ?? ''),
      privileged: context.privileged === true,
      capabilities: new Set(
        (Array.isArray(context.capabilities?.add) ? context.capabilities.add : []).map((cap: unknown) =>
          String(cap).toUpperCase().replace(/^CAP_/, ''),
        ),
      ),
      mayRunAsRoot: runAsNonRoot !== true && !(typeof runAsUser === 'number' && runAsUser > 0),
    };
  });
  const byVolume = new Map<string, string>();
  for (const volume of list(spec.volumes)) {
    const path = volume?.hostPath?.path;
    if (typeof volume?.name === 'string' && typeof path === 'string')
      byVolume.set(volume.name, normalize(path));
  }
  const mounts = new Map<string, HostMount>();
  all.forEach((c, i) => {
    for (const mount of list(c.volumeMounts)) {
      const path = byVolume.get(mount?.name);
      if (path === undefined) continue;
      const entry = mounts.get(path) ?? { path, readOnly: true, containers: [], rootMount: false };
      if (mount.readOnly !== true) entry.readOnly = false;
      entry.containers.push(containers[i].name);
      if (containers[i].mayRunAsRoot) entry.rootMount = true;
      mounts.set(path, entry);
    }
  });
  return { hostPID: spec.hostPID === true, containers, hostMounts: [...mounts.values()] };
}

function list(value: unknown): PodSpec[] {
  return Array.isArray(value) ? value : [];
}

function normalize(path: string): string {
  const trimmed = path.trim().replace(/\/+$/, '');
  return trimmed === '' ? '/' : trimmed.replace(/\/{2,}/g, '/');
}

/** Whether `mounted` gives access to `target`: the same path or one of its parents. */
export function covers(mounted: string, target: string): boolean {
  return mounted === '/' || target === mounted || target.startsWith(`${mounted}/`);
}

/** Containers holding a capability (or privileged, which holds them all). */
export function withCapability(pod: PodView, capability: string): string[] {
  return pod.containers
    .filter((c) => c.privileged || c.capabilities.has(capability) || c.capabilities.has('ALL'))
    .map((c) => c.name);
}

/** Whether a mount reaches into `target`: the path, a parent of it, or a part of it. */
export function overlaps(mounted: string, target: string): boolean {
  return covers(mounted, target) || covers(target, mounted);
}
