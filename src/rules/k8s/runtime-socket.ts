// EXPLOIT_CONTAINERD_SOCK (and its Docker and CRI-O twins): a container runtime's socket mounted in a pod
// starts a privileged container on the node. Read-only does not help: connecting to a socket is a write.
// The sockets are root's (mode 660): a container that cannot run as root does not connect. Where each
// distribution keeps it: k3s and RKE2 run their own containerd under /run/k3s, MicroK8s under its snap,
// cri-dockerd (Docker behind the CRI since 1.24) and the kubelet's former dockershim have sockets of their own.
import { covers, type EscapeRule } from './escape-rule.js';

const SOCKETS = [
  '/var/run/docker.sock',
  '/run/docker.sock',
  '/run/containerd/containerd.sock',
  '/var/run/containerd/containerd.sock',
  '/var/run/crio/crio.sock',
  '/run/crio/crio.sock',
  '/run/k3s/containerd/containerd.sock',
  '/var/run/k3s/containerd/containerd.sock',
  '/var/snap/microk8s/common/run/containerd.sock',
  '/run/cri-dockerd.sock',
  '/var/run/cri-dockerd.sock',
  '/run/dockershim.sock',
  '/var/run/dockershim.sock',
];

export const runtimeSocket: EscapeRule = {
  name: 'runtime-socket',
  kubehound: 'EXPLOIT_CONTAINERD_SOCK',
  fires: (pod) =>
    pod.hostMounts
      .filter((m) => m.rootMount && SOCKETS.some((socket) => covers(m.path, socket)))
      .map((m) => `hostPath:${m.path}`),
};
