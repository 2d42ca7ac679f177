// What an escalation primitive is: one documented method (Rhino Security Labs' "AWS IAM Privilege
// Escalation – Methods and Mitigation", PMapper's edge checkers), one file each under primitives/, listed
// in index.ts. A primitive reads a principal's effective permissions (evaluator.ts) and the document's
// other principals (directory.ts) and says whom the principal can become: the account's administrator,
// or another principal (a user whose credentials it can mint, a role it can pass to a service or take over).
import type { Directory, Principal } from './directory.js';
import { weaker, type Access, type Strength } from './evaluator.js';

export interface Finding {
  primitive: string;
  /** `admin`: the principal makes itself an administrator; else the principal it becomes */
  target: 'admin' | Principal;
  strength: Strength;
}

export interface EscalationPrimitive {
  /** the name written on the edge (`primitives`) */
  name: string;
  /** the method it implements, as documented */
  method: string;
  /**
   * `admin` primitives run first: what they find decides which principals are worth taking over for the
   * `principal` primitives that may reach every user or role (`Resource: "*"`).
   */
  reach: 'admin' | 'principal';
  /**
   * The services (`iam`) the principal's policies must name for the primitive to apply; a list inside is
   * alternatives. A principal whose policies name none of them is not asked (most principals of an account).
   */
  requires?: readonly (string | readonly string[])[];
  find(principal: Principal, directory: Directory): Finding[];
}

const serviceOf = (action: string) => action.slice(0, action.indexOf(':')).toLowerCase();

/** Could a principal naming these services hold the primitive at all? */
export function mayApply(primitive: EscalationPrimitive, services: ReadonlySet<string> | undefined): boolean {
  if (!services || !primitive.requires) return true;
  return primitive.requires.every((r) =>
    typeof r === 'string' ? services.has(r) : r.some((x) => services.has(x)),
  );
}

/** IAM, PassRole and the services act within the caller's own account. */
export const sameAccount = (a: Principal, b: Principal): boolean => a.home === b.home;

/** The weakest of several accesses a primitive needs together; undefined when one is missing. */
export function together(...accesses: (Access | undefined)[]): Strength | undefined {
  let strength: Strength = 'unconditional';
  for (const access of accesses) {
    if (!access) return undefined;
    strength = weaker(strength, access.strength);
  }
  return strength;
}

/** A primitive that writes the principal's own permissions: the action on its own ARN makes it an administrator. */
export function onSelf(
  name: string,
  method: string,
  kind: 'user' | 'role',
  action: string,
): EscalationPrimitive {
  return {
    name,
    method,
    reach: 'admin',
    requires: ['iam'],
    find(principal) {
      if (principal.kind !== kind || !principal.arn || !principal.permissions.access(action)) return [];
      const access = principal.permissions.access(action, principal.arn);
      return access ? [{ primitive: name, target: 'admin', strength: access.strength }] : [];
    },
  };
}

/** A primitive that writes the policy of a group the user is in. */
export function onOwnGroup(name: string, method: string, action: string): EscalationPrimitive {
  return {
    name,
    method,
    reach: 'admin',
    requires: ['iam'],
    find(principal, directory) {
      if (principal.kind !== 'user' || !principal.permissions.access(action)) return [];
      for (const group of principal.groups) {
        const arn = directory.groups.get(group)?.arn;
        const access = arn ? principal.permissions.access(action, arn) : undefined;
        if (access) return [{ primitive: name, target: 'admin', strength: access.strength }];
      }
      return [];
    },
  };
}

/**
 * A primitive that takes over other principals of a kind (`iam:CreateAccessKey` on a user). A grant on
 * literal ARNs reaches the principals it names; a wildcard reaches those worth taking over (they escalate
 * on their own). The caller itself is not a target, and a self-service grant (`user/${aws:username}`)
 * is no escalation.
 */
export function onOthers(
  name: string,
  method: string,
  kind: 'user' | 'role',
  actions: readonly string[],
): EscalationPrimitive {
  return {
    name,
    method,
    reach: 'principal',
    requires: [...new Set(actions.map(serviceOf))],
    find(principal, directory) {
      const out: Finding[] = [];
      // Most principals hold none of the actions: asked once, before any target.
      if (!actions.every((a) => principal.permissions.access(a))) return out;
      // Without a literal grant only the principals that escalate on their own can be targets.
      const targets = principal.permissions.literalResources().size
        ? kind === 'user'
          ? directory.users
          : directory.roles
        : escalating(directory, kind);
      for (const target of targets) {
        if (target === principal || !target.arn || !sameAccount(principal, target)) continue;
        // A wildcard aims only at principals worth taking over; a literal grant names its target.
        if (!directory.escalates.has(target.arn) && !principal.permissions.namesLiterally(target.arn))
          continue;
        const accesses = actions.map((a) => principal.permissions.access(a, target.arn));
        const strength = together(...accesses);
        if (!strength || accesses.every((a) => a!.selfService)) continue;
        if (strength !== 'scoped' && !directory.escalates.has(target.arn)) continue;
        out.push({ primitive: name, target, strength });
      }
      return out;
    },
  };
}

/**
 * `iam:PassRole` with a service that runs code as the passed role: the roles it may pass are those its
 * PassRole patterns match (and `iam:PassedToService` admits the service) whose trust admits the service.
 * It becomes each of them; a passable administrator role carries on to the account's administrator.
 */
export function passRole(
  name: string,
  method: string,
  service: string,
  actions: readonly (string | readonly string[])[],
  roles: (directory: Directory) => readonly Principal[] = perDirectory((d) =>
    d.roles.filter((r) => r.services.has(service)),
  ),
): EscalationPrimitive {
  return {
    name,
    method,
    reach: 'principal',
    requires: ['iam', ...actions.map((a) => (typeof a === 'string' ? serviceOf(a) : a.map(serviceOf)))],
    find(principal, directory) {
      const launch = together(
        ...actions.map((a) =>
          typeof a === 'string' ? principal.permissions.access(a) : anyOf(principal, a as readonly string[]),
        ),
      );
      if (!launch) return [];
      const out: Finding[] = [];
      for (const role of roles(directory)) {
        if (role === principal || !role.arn || !sameAccount(principal, role)) continue;
        const pass = principal.permissions.access('iam:PassRole', role.arn, service);
        const strength = together(pass, { strength: launch, selfService: false });
        if (strength) out.push({ primitive: name, target: role, strength });
      }
      return out;
    },
  };
}

/** The strongest of alternative actions (CreateEventSourceMapping or InvokeFunction, ...). */
function anyOf(principal: Principal, actions: readonly string[]): Access | undefined {
  let best: Access | undefined;
  for (const action of actions) {
    const access = principal.permissions.access(action);
    if (access && (!best || weaker(best.strength, access.strength) === best.strength)) best = access;
  }
  return best;
}

/**
 * A list drawn from the directory, drawn once per directory: primitives ask for it for every principal.
 * The directory's principals are fixed once read.
 */
export function perDirectory<T>(draw: (directory: Directory) => T): (directory: Directory) => T {
  const drawn = new WeakMap<Directory, { users: number; roles: number; value: T }>();
  return (directory) => {
    const known = drawn.get(directory);
    if (known && known.users === directory.users.length && known.roles === directory.roles.length)
      return known.value;
    const value = draw(directory);
    drawn.set(directory, { users: directory.users.length, roles: directory.roles.length, value });
    return value;
  };
}

/** Roles an instance runs as: those in an instance profile, else (no profiles listed) those EC2 may assume. */
export const instanceRoles = perDirectory((directory: Directory): Principal[] => {
  const profiled = directory.roles.filter((r) => r.instanceProfiles.length > 0);
  return profiled.length ? profiled : directory.roles.filter((r) => r.services.has('ec2.amazonaws.com'));
});

/** The users or roles that escalate on their own (pass one), in directory order. */
function escalating(directory: Directory, kind: 'user' | 'role'): readonly Principal[] {
  const key = `${kind}:${directory.escalates.size}`;
  let byKey = escalatingDrawn.get(directory);
  if (!byKey) escalatingDrawn.set(directory, (byKey = new Map()));
  let list = byKey.get(key);
  if (!list) {
    list = (kind === 'user' ? directory.users : directory.roles).filter(
      (p) => p.arn && directory.escalates.has(p.arn),
    );
    byKey.set(key, list);
  }
  return list;
}

const escalatingDrawn = new WeakMap<Directory, Map<string, readonly Principal[]>>();

/** Reaching the code or host that runs as a role, without passing it (SSM, Instance Connect, function code). */
export function intoRunning(
  name: string,
  method: string,
  actions: readonly string[],
  roles: (directory: Directory) => readonly Principal[],
): EscalationPrimitive {
  return {
    name,
    method,
    reach: 'principal',
    requires: [actions.map(serviceOf)],
    find(principal, directory) {
      const strength = anyOf(principal, actions)?.strength;
      if (!strength) return [];
      return roles(directory)
        .filter((r) => r !== principal && r.arn && sameAccount(principal, r))
        .map((target) => ({ primitive: name, target, strength }));
    },
  };
}
