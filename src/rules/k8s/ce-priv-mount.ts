// CE_PRIV_MOUNT: a privileged container sees the host's block devices and mounts the node's disk.
import type { EscapeRule } from './escape-rule.js';

export const privilegedMount: EscapeRule = {
  name: 'privileged-mount',
  kubehound: 'CE_PRIV_MOUNT',
  fires: (pod) => pod.containers.filter((c) => c.privileged).map((c) => `container:${c.name}`),
};
