// What a workload's pod specs say beyond its identity: the images it runs (and the properties of its
// DEPENDS_ON edges), the ports it binds on its node, its escapes merged over several specs.
import type { Escape } from '../../../rules/k8s/container-escape.js';
import type { EdgeOptions } from '../envelope-builder.js';
import type { K8sObject } from './dump.js';
import { append, NONE } from './workloads.js';
import { CONTAINER_FIELDS } from '../../../rules/k8s/pod-containers.js';

export const NO_IMAGES: ImageUse[] = NONE;

/** An image a workload runs, with the containers that run it. */
export interface ImageUse {
  raw: string;
  containers: string[];
  init: boolean;
}

/**
 * The options of a DEPENDS_ON edge from a workload to an image it runs. When one container of that name runs
 * it (most workloads), they are made once per container name and shared, frozen, properties and all (30,000
 * objects and arrays fewer on issue 14's dump, and as many options objects). Several containers get their own.
 */
const oneContainer = new Map<string, EdgeOptions>();
const oneInitContainer = new Map<string, EdgeOptions>();
export function runsImage(image: ImageUse): EdgeOptions {
  if (image.containers.length !== 1)
    return {
      properties: image.init
        ? { containers: image.containers, init_container: true }
        : { containers: image.containers },
      handOver: true,
    };
  const shared = image.init ? oneInitContainer : oneContainer;
  const container = image.containers[0];
  let options = shared.get(container);
  if (options === undefined) {
    options = Object.freeze({
      properties: Object.freeze(
        image.init
          ? { containers: Object.freeze([container]), init_container: true }
          : { containers: Object.freeze([container]) },
      ),
      handOver: true,
    });
    // Bounded: container names are chosen by the dump's authors, and a dump may name many.
    if (shared.size < 1024) shared.set(container, options);
  }
  return options;
}

/** Kinds lower-cased once each: `kind` is written on every workload, and toLowerCase makes a new string. */
const lowerKinds = new Map<string, string>();
export function lowerKind(kind: string): string {
  let lower = lowerKinds.get(kind);
  if (lower === undefined) {
    lower = kind.toLowerCase();
    if (lowerKinds.size < 64) lowerKinds.set(kind, lower);
  }
  return lower;
}

/** Adds the images of one container list to a workload's (a handful: a list scanned beats a Map). */
export function addImages(images: ImageUse[], containers: unknown, init: boolean): ImageUse[] {
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
export function runningDigest(digests: Map<string, string>, containers: string[]): string | undefined {
  for (const c of containers) {
    const digest = digests.get(c);
    if (digest) return digest;
  }
  return undefined;
}

/**
 * The ports a workload's pods bind on their node's address, as `<port>/<protocol>` (by port), or undefined
 * when none (most pods: nothing is allocated for them). A container port with a `hostPort` is one, unless
 * its `hostIP` is a loopback address (reached from the node alone); in a pod on the host's network every
 * container port is one (the API server sets its hostPort to its containerPort).
 */
export function hostPortsOf(specs: K8sObject[]): string[] | undefined {
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
export function mergeEscapes(lists: Escape[][]): Escape[] {
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
