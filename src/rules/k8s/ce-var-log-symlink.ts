// CE_VAR_LOG_SYMLINK: a container running as root with the node's /var/log mounted writable plants a
// symlink there; the kubelet's log endpoint then serves any host file (service-account tokens included).
import { covers, type EscapeRule } from './escape-rule.js';

export const varLogSymlink: EscapeRule = {
  name: 'var-log-symlink',
  kubehound: 'CE_VAR_LOG_SYMLINK',
  fires: (pod) =>
    pod.hostMounts
      .filter((m) => !m.readOnly && m.rootMount && covers(m.path, '/var/log'))
      .map((m) => `hostPath:${m.path}`),
};
