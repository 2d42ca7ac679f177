// The primitives that make a principal an administrator of itself, for boundary removal to re-check
// without the boundary (lazy: the list imports the boundary primitives too).
import type { EscalationPrimitive } from '../primitive.js';
import { attachRolePolicy } from './attach-role-policy.js';
import { attachUserPolicy } from './attach-user-policy.js';
import { attachGroupPolicy } from './attach-group-policy.js';
import { createPolicyVersion } from './create-policy-version.js';
import { fullAdmin } from './full-admin.js';
import { putGroupPolicy } from './put-group-policy.js';
import { putRolePolicy } from './put-role-policy.js';
import { putUserPolicy } from './put-user-policy.js';
import { setDefaultPolicyVersion } from './set-default-policy-version.js';

export const ADMIN_PRIMITIVES_UNBOUNDED = (): EscalationPrimitive[] => [
  fullAdmin,
  createPolicyVersion,
  setDefaultPolicyVersion,
  attachUserPolicy,
  attachGroupPolicy,
  attachRolePolicy,
  putUserPolicy,
  putGroupPolicy,
  putRolePolicy,
];
