// CE_MODULE_LOAD: a container that may load kernel modules (privileged, or CAP_SYS_MODULE) runs code in the
// node's kernel.
import { withCapability, type EscapeRule } from './escape-rule.js';

export const moduleLoad: EscapeRule = {
  name: 'module-load',
  kubehound: 'CE_MODULE_LOAD',
  fires: (pod) => withCapability(pod, 'SYS_MODULE').map((c) => `container:${c}`),
};
