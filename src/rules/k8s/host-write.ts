// EXPLOIT_HOST_WRITE: a writable mount of a host directory the node executes or trusts (the root, /etc, a
// root or user home, cron, the kubelet's static pod manifests, binaries) gives code execution on the node.
// Those directories are root's: a container that cannot run as root writes none of them.
import { overlaps, type EscapeRule } from './escape-rule.js';

// The root itself is covered: a mount of `/` reaches every one of these.
const WRITABLE_TARGETS = [
  '/etc',
  '/root',
  '/home',
  '/bin',
  '/sbin',
  '/usr',
  '/lib',
  '/boot',
  '/var/spool/cron',
  '/etc/kubernetes/manifests',
];

export const hostWrite: EscapeRule = {
  name: 'host-write',
  kubehound: 'EXPLOIT_HOST_WRITE',
  fires: (pod) =>
    pod.hostMounts
      .filter(
        (m) => !m.readOnly && m.rootMount && WRITABLE_TARGETS.some((target) => overlaps(m.path, target)),
      )
      .map((m) => `hostPath:${m.path}`),
};
