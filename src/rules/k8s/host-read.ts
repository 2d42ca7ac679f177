// EXPLOIT_HOST_READ: even read-only, a mount of the host's root, /etc, a home directory or /proc hands over
// SSH keys (files, or an agent's memory) that log in to the node.
import { overlaps, type EscapeRule } from './escape-rule.js';

const KEY_MATERIAL = ['/etc/ssh', '/root', '/home', '/proc'];

export const hostRead: EscapeRule = {
  name: 'host-read',
  kubehound: 'EXPLOIT_HOST_READ',
  fires: (pod) =>
    pod.hostMounts
      .filter((m) => KEY_MATERIAL.some((target) => overlaps(m.path, target)))
      .map((m) => `hostPath:${m.path}`),
};
