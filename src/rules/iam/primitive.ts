// What an escalation primitive is: one documented method (Rhino Security Labs' "AWS IAM Privilege
// Escalation – Methods and Mitigation", PMapper's edge checkers), one file each under primitives/, listed
// in index.ts. A primitive reads a principal's effective permissions (evaluator.ts) and the document's
// other principals (directory.ts) and says whom the principal can become: the account's administrator,
// or another principal (a user whose credentials it can mint, a role it can pass to a service or take over).
import type { Directory, Principal, ResourceKind } from './directory.js';
import { weaker, type Access, type Strength } from './evaluator.js';

export interface Finding {
  primitive: string;
  /** `admin`: the principal makes itself an administrator; else the principal it becomes */
  target: 'admin' | Principal;
  strength: Strength;
  /** when a time condition ends it (epoch ms) */
  until?: number;
  /** why it is conditional when no policy condition says so (`assumes an existing instance`) */
  reason?: string;
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

/** When the first of several accesses needed together ends (a time condition); undefined when none does. */
export function endOf(...accesses: (Access | undefined)[]): number | undefined {
  let until = Infinity;
  for (const access of accesses) if (access?.until !== undefined) until = Math.min(until, access.until);
  return until === Infinity ? undefined : until;
}

/** A finding of one access (or several needed together): its strength and when it ends. */
export function found(
  primitive: string,
  target: 'admin' | Principal,
  ...accesses: Access[]
): Finding | undefined {
  const strength = together(...accesses);
  if (!strength) return undefined;
  const until = endOf(...accesses);
  return until === undefined ? { primitive, target, strength } : { primitive, target, strength, until };
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
      return access ? [found(name, 'admin', access)!] : [];
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
        if (access) return [found(name, 'admin', access)!];
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
  /** the target must hold this resource (a user's login profile): existing.ts decides */
  needs?: ResourceKind,
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
        const finding = found(name, target, ...(accesses as Access[]))!;
        const held = needs ? holdsResource(finding, needs, target.arn, directory) : finding;
        if (held) out.push(held);
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
      const launch = allOf(principal, actions);
      if (!launch) return [];
      const out: Finding[] = [];
      for (const role of roles(directory)) {
        if (role === principal || !role.arn || !sameAccount(principal, role)) continue;
        const pass = principal.permissions.access('iam:PassRole', role.arn, service);
        if (!pass) continue;
        const finding = found(name, role, pass, launch);
        if (finding) out.push(finding);
      }
      return out;
    },
  };
}

/**
 * Several actions needed together (a list inside: alternatives), as one access: the weakest strength, ending
 * with the first to end. Undefined when one is missing.
 */
export function allOf(
  principal: Principal,
  actions: readonly (string | readonly string[])[],
): Access | undefined {
  const accesses = actions.map((a) =>
    typeof a === 'string' ? principal.permissions.access(a) : anyOf(principal, a as readonly string[]),
  );
  const strength = together(...accesses);
  if (!strength) return undefined;
  const until = endOf(...accesses);
  return { strength, selfService: false, ...(until !== undefined && { until }) };
}

/**
 * A finding on a target that must hold an existing resource (a user's login profile), as DECISIONS
 * "Primitives that need an existing resource" says: kept when the estate's inventory of that kind names
 * the target; conditional, with the reason, when no inventory of that kind is known; none otherwise.
 */
export function holdsResource(
  finding: Finding,
  kind: ResourceKind,
  target: string,
  directory: Directory,
): Finding | undefined {
  const inventory = directory.inventory[kind];
  if (!inventory) return { ...finding, strength: 'conditional', reason: assumesExisting(kind) };
  return inventory.includes(target) ? finding : undefined;
}

/** The reason a primitive drawn without an inventory of what it needs is conditional. */
export const assumesExisting = (kind: ResourceKind): string => `assumes an existing ${RESOURCE_NAMES[kind]}`;

const RESOURCE_NAMES: Readonly<Record<ResourceKind, string>> = {
  instance: 'EC2 instance',
  function: 'Lambda function',
  stack: 'CloudFormation stack',
  'glue-endpoint': 'Glue development endpoint',
  'sagemaker-notebook': 'SageMaker notebook instance',
  'codebuild-project': 'CodeBuild project',
  'login-profile': 'login profile',
};

/** The strongest of alternative actions (CreateEventSourceMapping or InvokeFunction, ...). */
export function anyOf(principal: Principal, actions: readonly string[]): Access | undefined {
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

/** The roles a service may assume (its trust admits it). */
export const serviceRoles = (service: string) =>
  perDirectory((directory: Directory): Principal[] => directory.roles.filter((r) => r.services.has(service)));

/** Roles a Lambda function may run as. */
export const lambdaRoles = serviceRoles('lambda.amazonaws.com');

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

/**
 * Reaching the code or host that runs as a role through a resource that must already exist (DECISIONS
 * "Primitives that need an existing resource"): an instance (SSM, Instance Connect), a function (its code or
 * configuration), a stack, a Glue endpoint, a SageMaker notebook, a CodeBuild project. With an inventory of
 * that kind, the roles its resources run as are the targets (none when it holds none); without one, the
 * roles such a resource could run as (`candidates`), at the conditional price with the reason "assumes an
 * existing <kind>". With `passRole`, the caller may also give the resource another role it may pass to
 * that service (a stack's, a function's, an instance's): every such role is a target once a resource exists.
 */
export function intoExisting(
  name: string,
  method: string,
  kind: ResourceKind,
  actions: readonly (string | readonly string[])[],
  candidates: (directory: Directory) => readonly Principal[],
  options: { passRole?: string; passOnly?: boolean } = {},
): EscalationPrimitive {
  const services = actions.map((a) => (typeof a === 'string' ? serviceOf(a) : a.map(serviceOf)));
  return {
    name,
    method,
    reach: 'principal',
    // PassRole is one way among others (the resource's own role needs none), unless it is the only one.
    requires: options.passOnly ? ['iam', ...services] : services,
    find(principal, directory) {
      const act = allOf(principal, actions);
      if (!act) return [];
      const inventory = directory.inventory[kind];
      if (inventory && !inventory.length) return [];
      const known = inventory !== undefined;
      const reason = known ? undefined : assumesExisting(kind);
      const out = new Map<Principal, Finding>();
      const add = (target: Principal, ...accesses: Access[]) => {
        if (target === principal || !target.arn || !sameAccount(principal, target)) return;
        const finding = found(name, target, ...accesses);
        if (!finding) return;
        const priced: Finding = known ? finding : { ...finding, strength: 'conditional', reason };
        const before = out.get(target);
        if (!before || weaker(before.strength, priced.strength) === before.strength) out.set(target, priced);
      };
      // The role the resource runs as.
      if (!options.passOnly) {
        const own = known
          ? inventory.map((arn) => directory.byArn.get(arn)).filter((p): p is Principal => !!p)
          : candidates(directory);
        for (const role of own) add(role, act);
      }
      // Another role, passed to it.
      if (options.passRole)
        for (const role of candidates(directory)) {
          const pass = principal.permissions.access('iam:PassRole', role.arn, options.passRole);
          if (pass) add(role, act, pass);
        }
      return [...out.values()];
    },
  };
}
