// EXPLOIT_HOST_TRAVERSE: a mount (even read-only) of the kubelet's pod directory or a parent, or of its
// credentials (/var/lib/kubelet/pki, /etc/kubernetes), yields the tokens of every pod on the node and the
// kubelet's own identity: the node's power. They are root's: a container that cannot run as root reads none.
import { overlaps, type EscapeRule } from './escape-rule.js';

const KUBELET_PATHS = ['/var/lib/kubelet/pods', '/var/lib/kubelet/pki', '/etc/kubernetes/kubelet.conf'];

export const kubeletDirs: EscapeRule = {
  name: 'kubelet-dirs',
  kubehound: 'EXPLOIT_HOST_TRAVERSE',
  fires: (pod) =>
    pod.hostMounts
      .filter((m) => m.rootMount && KUBELET_PATHS.some((target) => overlaps(m.path, target)))
      .map((m) => `hostPath:${m.path}`),
};
