// CE_UMH_CORE_PATTERN: a writable host mount of /proc/sys/kernel (or a parent) lets a container set
// core_pattern to a program the kernel runs as root on the node at the next crash. Only root writes it
// (KubeHound asks for runAsUser 0).
import { covers, type EscapeRule } from './escape-rule.js';

const CORE_PATTERN = '/proc/sys/kernel/core_pattern';

export const corePattern: EscapeRule = {
  name: 'core-pattern',
  kubehound: 'CE_UMH_CORE_PATTERN',
  fires: (pod) =>
    pod.hostMounts
      .filter((m) => !m.readOnly && m.rootMount && m.path !== '/' && covers(m.path, CORE_PATTERN))
      .map((m) => `hostPath:${m.path}`),
};
