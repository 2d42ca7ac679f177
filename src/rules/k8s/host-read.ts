// EXPLOIT_HOST_READ: even read-only, a mount of the host's root, /etc, root's or a user's home (their .ssh)
// or a process's /proc entry hands over SSH keys (files, or an agent's memory) that log in to the node.
// Those files are root's (mode 600, other users' processes): a container that cannot run as root reads
// none of them. A mount elsewhere under /etc or /proc (/etc/passwd, /proc/sys) holds no key.
import type { EscapeRule } from './escape-rule.js';

/** The mounts that reach key material: the material itself, a parent of it, or a part of it. */
const KEY_MATERIAL = [
  /^\/$/,
  /^\/etc(\/ssh(\/.*)?)?$/,
  /^\/root(\/.*)?$/,
  /^\/home(\/[^/]+(\/\.ssh(\/.*)?)?)?$/,
  /^\/proc(\/[0-9]+(\/.*)?)?$/,
];

export const hostRead: EscapeRule = {
  name: 'host-read',
  kubehound: 'EXPLOIT_HOST_READ',
  fires: (pod) =>
    pod.hostMounts
      .filter((m) => m.rootMount && KEY_MATERIAL.some((pattern) => pattern.test(m.path)))
      .map((m) => `hostPath:${m.path}`),
};
