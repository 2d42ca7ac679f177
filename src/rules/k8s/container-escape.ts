// Container escape (ATT&CK T1611): the rules, one file each after KubeHound's container-escape and
// host-mount attacks. hostNetwork and hostIPC alone are not escapes (DECISIONS.md "Escape goes somewhere").
import { corePattern } from './ce-core-pattern.js';
import { moduleLoad } from './ce-module-load.js';
import { nsenter } from './ce-nsenter.js';
import { privilegedMount } from './ce-priv-mount.js';
import { sysPtrace } from './ce-sys-ptrace.js';
import { varLogSymlink } from './ce-var-log-symlink.js';
import { podView, type EscapeRule, type PodSpec } from './escape-rule.js';
import { CONTAINER_FIELDS } from './pod-containers.js';
import { hostRead } from './host-read.js';
import { hostWrite } from './host-write.js';
import { kubeletDirs } from './kubelet-dirs.js';
import { runtimeSocket } from './runtime-socket.js';

export const ESCAPE_RULES: readonly EscapeRule[] = [
  moduleLoad,
  nsenter,
  privilegedMount,
  sysPtrace,
  corePattern,
  varLogSymlink,
  runtimeSocket,
  hostWrite,
  hostRead,
  kubeletDirs,
];

export interface Escape {
  rule: string;
  kubehound: string;
  evidence: string[];
}

/** Every escape rule that fires for a pod spec, with its evidence. */
export function podEscapes(spec: PodSpec): Escape[] {
  // Most pods ask for nothing any rule reads: answer them without building the view.
  if (!asksForHost(spec)) return [];
  const pod = podView(spec);
  const out: Escape[] = [];
  for (const rule of ESCAPE_RULES) {
    const evidence = rule.fires(pod);
    if (evidence.length)
      out.push({ rule: rule.name, kubehound: rule.kubehound, evidence: [...new Set(evidence)] });
  }
  return out;
}

/**
 * Whether a pod spec holds anything an escape rule reads: hostPID, a hostPath volume, a security context
 * (of any container: init, app or ephemeral) that is privileged or adds capabilities. False means
 * podEscapes finds nothing (the k8s normalizer asks this first, so that the 30,000 plain pods of issue 14's
 * dump allocate no empty list).
 */
export function asksForHost(spec: PodSpec): boolean {
  if (spec.hostPID === true) return true;
  const volumes = spec.volumes;
  if (Array.isArray(volumes)) for (const v of volumes) if (v?.hostPath) return true;
  for (const field of CONTAINER_FIELDS) if (contextAsks(spec[field])) return true;
  return false;
}

function contextAsks(containers: unknown): boolean {
  if (!Array.isArray(containers)) return false;
  for (const c of containers) {
    const context = c?.securityContext;
    if (context && (context.privileged === true || context.capabilities?.add)) return true;
  }
  return false;
}
