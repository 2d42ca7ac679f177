// CE_NSENTER: a privileged container sharing the host's PID namespace enters PID 1's namespaces (nsenter).
import type { EscapeRule } from './escape-rule.js';

export const nsenter: EscapeRule = {
  name: 'nsenter',
  kubehound: 'CE_NSENTER',
  fires: (pod) =>
    pod.hostPID ? pod.containers.filter((c) => c.privileged).map((c) => `container:${c.name}`) : [],
};
