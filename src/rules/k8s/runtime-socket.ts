// EXPLOIT_CONTAINERD_SOCK (and its Docker and CRI-O twins): a container runtime's socket mounted in a pod
// starts a privileged container on the node. Read-only does not help: connecting to a socket is a write.
// The sockets are root's (mode 660): a container that cannot run as root does not connect.
import { covers, type EscapeRule } from './escape-rule.js';

const SOCKETS = [
  '/var/run/docker.sock',
  '/run/docker.sock',
  '/run/containerd/containerd.sock',
  '/var/run/containerd/containerd.sock',
  '/var/run/crio/crio.sock',
  '/run/crio/crio.sock',
];

export const runtimeSocket: EscapeRule = {
  name: 'runtime-socket',
  kubehound: 'EXPLOIT_CONTAINERD_SOCK',
  fires: (pod) =>
    pod.hostMounts
      .filter((m) => m.rootMount && SOCKETS.some((socket) => covers(m.path, socket)))
      .map((m) => `hostPath:${m.path}`),
};
