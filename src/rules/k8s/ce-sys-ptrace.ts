// CE_SYS_PTRACE: with the host's PID namespace (hostPID) and CAP_SYS_PTRACE, a container attaches a debugger
// to a host process and runs code in it.
import { withCapability, type EscapeRule } from './escape-rule.js';

export const sysPtrace: EscapeRule = {
  name: 'sys-ptrace',
  kubehound: 'CE_SYS_PTRACE',
  fires: (pod) => (pod.hostPID ? withCapability(pod, 'SYS_PTRACE').map((c) => `container:${c}`) : []),
};
