// iam:AddUserToGroup on a group whose policies make a member an administrator (`*` on `*`, or a primitive
// of its own that a member could use on itself).
import { PermissionSet } from '../evaluator.js';
import type { Directory, Principal } from '../directory.js';
import type { EscalationPrimitive } from '../primitive.js';
import { attachGroupPolicy } from './attach-group-policy.js';
import { attachUserPolicy } from './attach-user-policy.js';
import { putGroupPolicy } from './put-group-policy.js';
import { putUserPolicy } from './put-user-policy.js';

export const addUserToGroup: EscalationPrimitive = {
  name: 'AddUserToGroup',
  method: 'Rhino Security Labs, method "Adding a user to a group" (iam:AddUserToGroup)',
  reach: 'admin',
  requires: ['iam'],
  find(principal, directory) {
    if (principal.kind !== 'user' || !principal.permissions.access('iam:AddUserToGroup')) return [];
    for (const group of directory.groups.values()) {
      if (principal.groups.includes(group.name) || !group.arn) continue;
      const access = principal.permissions.access('iam:AddUserToGroup', group.arn);
      if (access && memberIsAdmin(principal, group.name, directory))
        return [{ primitive: this.name, target: 'admin', strength: access.strength }];
    }
    return [];
  },
};

/** The user as a member of the group: does it then hold `*` on `*` or write its own permissions? */
function memberIsAdmin(user: Principal, groupName: string, directory: Directory): boolean {
  const group = directory.groups.get(groupName)!;
  const member: Principal = {
    ...user,
    groups: [...user.groups, groupName],
    permissions: new PermissionSet(
      [...user.policies, ...group.policies],
      { 'aws:username': user.name },
      undefined,
      directory.now,
    ),
  };
  if (member.permissions.isAdmin()) return true;
  return [attachUserPolicy, putUserPolicy, attachGroupPolicy, putGroupPolicy].some(
    (p) => p.find(member, directory).length > 0,
  );
}
