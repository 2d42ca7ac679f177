// The one IAM policy evaluator: what a principal may do, from its identity statements (inline, managed at
// their default version, its groups') bounded by its permissions boundary, read as AWS evaluates a
// request (the "policy evaluation logic" documentation): an explicit Deny whose action and resource
// patterns cover the request wins; otherwise an Allow covering it grants it; a permissions boundary must
// allow it too. Conditions the evaluator understands are applied (`iam:PassedToService`, and the request
// time against literal dates, judged at the set's clock: time-condition.ts); a grant under any other
// condition is kept and reported as conditional (priced lower, docs/model.md); a Deny under a condition it
// does not understand may not apply, so it removes nothing. An answer that rests on a time test says until
// when it holds (`Access.until`): the analyzer re-judges it then.
import {
  actionMatches,
  coversAction,
  isLiteral,
  list,
  readCondition,
  resourceMatches,
  serviceOf,
  substitute,
  type Statement,
} from './policy.js';
import { judgeTime, type TimeTest } from './time-condition.js';

/** How firmly a grant holds: on any resource, only on literal resources, or under a condition not understood. */
export type Strength = 'unconditional' | 'scoped' | 'conditional';

const RANK: Readonly<Record<Strength, number>> = { unconditional: 2, scoped: 1, conditional: 0 };

export const weaker = (a: Strength, b: Strength): Strength => (RANK[a] <= RANK[b] ? a : b);
export const stronger = (a: Strength, b: Strength): Strength => (RANK[a] >= RANK[b] ? a : b);

export interface Access {
  strength: Strength;
  /** every pattern granting it names the caller itself through `${aws:username}` (self-service) */
  selfService: boolean;
  /** the next instant (epoch ms) the answer may change, when a time condition decides it */
  until?: number;
}

interface Compiled {
  statement: Statement;
  /** the Action (or NotAction) test, compiled once */
  covers: (action: string) => boolean;
  /** resource patterns with variables substituted; undefined with NotResource */
  resources?: string[];
  notResources?: string[];
  /** its resources hold policy variables: compiled per principal */
  variable: boolean;
  /** Action `*`: every action */
  everything: boolean;
  /** the services its Action names (lowercased); undefined when it may cover any (wildcard service, NotAction) */
  services?: string[];
  /** which of `resources` came from a `${aws:username}` pattern */
  selfPatterns: Set<string>;
  passedToService?: string[];
  /** tests on the request time, judged at the set's clock */
  time?: TimeTest[];
  conditional: boolean;
}

/** The IAM actions that make anyone an administrator (attach or write a policy on oneself): a Deny covering them all takes `*` away. */
const ADMIN_WRITES = [
  'iam:AttachUserPolicy',
  'iam:PutUserPolicy',
  'iam:AttachRolePolicy',
  'iam:PutRolePolicy',
];

/** One policy document's statements, compiled (shared by every principal the policy is attached to). */
interface Unit {
  allows: Compiled[];
  denies: Compiled[];
}

/**
 * A policy document as held by principals: the services its Allows name are read at once (most requests
 * stop there), its statements are compiled on the first request that gets past them.
 */
class LazyUnit {
  /** distinct, few (a policy names a handful of services): a list is lighter than a Set for 20,000 policies */
  readonly services?: readonly string[];
  private compiled?: Unit;

  constructor(
    private readonly statements: readonly Statement[],
    private readonly variables: Readonly<Record<string, string>>,
    /** its resources hold policy variables: compiled per principal, never shared */
    readonly variable: boolean,
  ) {
    this.services = unitServices(statements);
  }

  private maskNames?: readonly string[];
  private maskValue = 0;

  /** Which of `names` its Allows name, a bit each (index order); undefined when they may name any service. */
  serviceMask(names: readonly string[]): number | undefined {
    if (!this.services) return undefined;
    if (this.maskNames !== names) {
      let mask = 0;
      for (let i = 0; i < names.length; i++) if (this.services.includes(names[i])) mask |= 1 << i;
      this.maskNames = names;
      this.maskValue = mask;
    }
    return this.maskValue;
  }

  get allows(): Compiled[] {
    return (this.compiled ??= compileUnit(this.statements, this.variables)).allows;
  }

  get denies(): Compiled[] {
    return (this.compiled ??= compileUnit(this.statements, this.variables)).denies;
  }
}

const lazyUnits = new WeakMap<readonly Statement[], LazyUnit>();

function unitOf(statements: readonly Statement[], variables: Readonly<Record<string, string>>): LazyUnit {
  let unit = lazyUnits.get(statements);
  if (unit) return unit;
  // Loops, not some/map: this runs for every policy attachment of accounts with thousands of principals.
  let variable = false;
  for (let i = 0; i < statements.length && !variable; i++)
    variable = hasVariable(statements[i].Resource) || hasVariable(statements[i].NotResource);
  unit = new LazyUnit(statements, variables, variable);
  if (!variable) lazyUnits.set(statements, unit);
  return unit;
}

function hasVariable(patterns: Statement['Resource']): boolean {
  if (typeof patterns === 'string') return patterns.includes('${');
  if (!Array.isArray(patterns)) return false;
  for (const p of patterns) if (typeof p === 'string' && p.includes('${')) return true;
  return false;
}

function unitServices(statements: readonly Statement[]): string[] | undefined {
  const out: string[] = [];
  for (const s of statements) {
    if (s.Effect !== 'Allow') continue;
    if (s.Action === undefined) return undefined;
    if (!Array.isArray(s.Action)) {
      if (!addService(out, s.Action)) return undefined;
      continue;
    }
    for (const a of s.Action) if (!addService(out, a)) return undefined;
  }
  return out;
}

/** Adds the service an action pattern names; false when it may name any (`*`, `s*:Get*`, no colon). */
function addService(out: string[], a: unknown): boolean {
  if (typeof a !== 'string') return true;
  const service = serviceOf(a);
  if (a.indexOf(':') < 0 || service.includes('*') || service.includes('?')) return false;
  if (!out.includes(service)) out.push(service);
  return true;
}

export class PermissionSet {
  private readonly units: LazyUnit[];
  /** answers already given (created on the first answer worth keeping: most principals are asked little) */
  private cache?: Map<string, Access | null>;

  /**
   * @param policies the statements of each policy document that applies (inline, managed, groups')
   * @param variables policy variables of the caller, lowercased keys (`aws:username` for a user)
   * @param boundary the permissions boundary, when one is attached
   * @param now the instant requests are judged at (epoch ms), for time conditions
   */
  constructor(
    policies: readonly (readonly Statement[])[],
    variables: Readonly<Record<string, string>> = {},
    private readonly boundary?: PermissionSet,
    readonly now: number = Date.now(),
  ) {
    this.units = policies.map((statements) => unitOf(statements, variables));
  }

  /**
   * The services some Allow names (lowercased), union over its policies; undefined when one may cover any
   * (a wildcard service, NotAction). Primitives needing a service it lacks are not asked.
   */
  services(): ReadonlySet<string> | undefined {
    if (this.serviceUnion === null) {
      let union: Set<string> | undefined = new Set();
      for (const u of this.units) {
        if (!u.services) {
          union = undefined;
          break;
        }
        for (const service of u.services) union.add(service);
      }
      this.serviceUnion = union;
    }
    return this.serviceUnion;
  }

  private serviceUnion: Set<string> | undefined | null = null;

  /**
   * Which of `names` (at most 31) some Allow names, a bit each in index order; undefined when one may
   * cover any service. Same answer as `services()` without building the union (units share their masks).
   */
  serviceMask(names: readonly string[]): number | undefined {
    let mask = 0;
    for (const u of this.units) {
      const m = u.serviceMask(names);
      if (m === undefined) return undefined;
      mask |= m;
    }
    return mask;
  }

  /** Does an Allow name this resource literally (not through a wildcard)? */
  namesLiterally(resource: string): boolean {
    return this.literalResources().has(resource);
  }

  /** The resources its Allows name literally (not through a wildcard). */
  literalResources(): ReadonlySet<string> {
    if (!this.literals) {
      this.literals = new Set();
      for (const u of this.units)
        for (const s of u.allows) for (const p of s.resources ?? []) if (isLiteral(p)) this.literals.add(p);
    }
    return this.literals;
  }

  private literals?: Set<string>;

  get hasBoundary(): boolean {
    return this.boundary !== undefined;
  }

  /**
   * May the caller perform `action` on `resource` (an ARN; omitted: on some resource)? `service` is the
   * service a role would be passed to, for `iam:PassedToService`. Undefined when it may not.
   */
  access(action: string, resource?: string, service?: string): Access | undefined {
    const svc = serviceOf(action);
    let possible = false;
    for (const u of this.units)
      if (!u.services || u.services.includes(svc)) {
        possible = true;
        break;
      }
    if (!possible) return undefined;
    const key =
      resource === undefined && service === undefined
        ? action
        : `${action}|${resource ?? ''}|${service ?? ''}`;
    const cached = this.cache?.get(key);
    if (cached !== undefined) return cached ?? undefined;
    let best: Access | undefined;
    // The grant holds until the last of the Allows granting it stops (its time test ends, or a Deny's begins).
    let until = -Infinity;
    for (const unit of this.units) {
      if (unit.services && !unit.services.includes(svc)) continue;
      for (const s of unit.allows) {
        if (!s.covers(action)) continue;
        if (!admitsService(s, service)) continue;
        this.judgedUntil = Infinity;
        if (s.time) {
          const judged = judgeTime(s.time, this.now);
          if (!judged.holds) continue;
          this.judgedUntil = judged.until;
        }
        const granted = this.granted(s, action, resource, service);
        if (!granted.length) continue;
        until = Math.max(until, this.judgedUntil);
        const strength: Strength = s.conditional
          ? 'conditional'
          : granted.every(isLiteral)
            ? 'scoped'
            : 'unconditional';
        const selfService = granted.every((p) => s.selfPatterns.has(p));
        if (!best || RANK[strength] > RANK[best.strength] || (strength === best.strength && !selfService))
          best = { strength, selfService };
      }
    }
    if (best && until !== Infinity) best = { ...best, until };
    if (best && this.boundary) {
      const bounded = this.boundary.access(action, resource, service);
      const boundedUntil = Math.min(until, bounded?.until ?? Infinity);
      best = bounded
        ? {
            ...best,
            strength: weaker(best.strength, bounded.strength),
            ...(boundedUntil !== Infinity && { until: boundedUntil }),
          }
        : undefined;
    }
    this.cache ??= new Map();
    if (this.cache.size < 5_000) this.cache.set(key, best ?? null);
    return best;
  }

  /** The resource patterns of an Allow that grant the request and that no Deny covers. */
  private granted(s: Compiled, action: string, resource: string | undefined, service?: string): string[] {
    let candidates: string[];
    if (resource !== undefined) {
      const hit = s.resources
        ? s.resources.find((p) => resourceMatches(p, resource))
        : !s.notResources!.some((p) => resourceMatches(p, resource))
          ? resource
          : undefined;
      if (hit === undefined) return [];
      // The grant is as literal as the pattern that matched it.
      candidates = [hit];
      return this.denied(action, resource, service) ? [] : candidates;
    }
    candidates = s.resources ?? ['*'];
    return candidates.filter((p) => !this.denied(action, p, service));
  }

  /** Does an applicable Deny cover this action on this resource (or resource pattern)? */
  private denied(action: string, resource: string, service?: string): boolean {
    for (const unit of this.units)
      for (const d of unit.denies) {
        if (d.conditional || !d.covers(action)) continue;
        if (d.passedToService && (service === undefined || !admitsService(d, service))) continue;
        const covers = d.resources
          ? d.resources.some((p) => resourceMatches(p, resource))
          : !d.notResources!.some((p) => resourceMatches(p, resource));
        if (!covers) continue;
        if (!d.time) return true;
        // A Deny that begins later ends the grant then.
        const judged = judgeTime(d.time, this.now);
        if (judged.holds) return true;
        if (judged.until < this.judgedUntil) this.judgedUntil = judged.until;
      }
    return false;
  }

  /** While an Allow is judged: when the grant it gives ends (its own time test, a Deny that begins). */
  private judgedUntil = Infinity;

  /**
   * Until when `isAdmin()` holds (epoch ms; Infinity: no time condition ends it). Asked after isAdmin()
   * answered true.
   */
  adminUntil(): number {
    let until = -Infinity;
    for (const u of this.units)
      for (const s of u.allows) {
        if (s.conditional || !s.everything || !(s.resources?.includes('*') ?? false)) continue;
        if (!s.time) return this.boundary ? this.boundary.adminUntil() : Infinity;
        const judged = judgeTime(s.time, this.now);
        if (judged.holds) until = Math.max(until, judged.until);
      }
    return Math.min(until, this.boundary ? this.boundary.adminUntil() : Infinity);
  }

  private holdsNow(tests: readonly TimeTest[]): boolean {
    return judgeTime(tests, this.now).holds;
  }

  /**
   * Holds `*` on `*` without condition (AdministratorAccess), not taken away by a Deny covering the IAM
   * writes that make an administrator; an unrelated Deny (`s3:*`) leaves it an administrator.
   */
  isAdmin(): boolean {
    // `*` leaves a unit's services unknown: a unit naming its services cannot hold it.
    let everything = false;
    for (const u of this.units) {
      if (u.services) continue;
      if (
        u.allows.some(
          (s) =>
            !s.conditional &&
            s.everything &&
            (s.resources?.includes('*') ?? false) &&
            (!s.time || this.holdsNow(s.time)),
        )
      ) {
        everything = true;
        break;
      }
    }
    if (!everything) return false;
    const stripped = this.units
      .flatMap((u) => u.denies)
      .some(
        (d) =>
          !d.conditional &&
          !d.passedToService &&
          (!d.time || this.holdsNow(d.time)) &&
          ADMIN_WRITES.every((a) => coversAction(d.statement, a)) &&
          (d.resources ? d.resources.includes('*') : d.notResources!.length === 0),
      );
    if (stripped) return false;
    return this.boundary ? this.boundary.isAdmin() : true;
  }
}

function compileUnit(statements: readonly Statement[], variables: Readonly<Record<string, string>>): Unit {
  const unit: Unit = { allows: [], denies: [] };
  for (const statement of statements) {
    const compiled = compileStatement(statement, variables);
    if (statement.Effect === 'Allow') unit.allows.push(compiled);
    else if (statement.Effect === 'Deny') unit.denies.push(compiled);
  }
  return unit;
}

/** Statements without policy variables compile once, whichever principal holds them (managed policies are shared). */
const compiledStatements = new WeakMap<Statement, Compiled>();

function compileStatement(statement: Statement, variables: Readonly<Record<string, string>>): Compiled {
  const cached = compiledStatements.get(statement);
  if (cached) return cached;
  const condition = readCondition(statement.Condition);
  const selfPatterns = new Set<string>();
  let variable = false;
  const resolve = (patterns: string[]) =>
    patterns.flatMap((p) => {
      if (!p.includes('${')) return [p];
      variable = true;
      const value = substitute(p, variables);
      if (value === undefined) return [];
      if (value !== p && /\$\{aws:username\}/i.test(p)) selfPatterns.add(value);
      return [value];
    });
  const actions = list(statement.Action);
  const notActions = list(statement.NotAction);
  const compiled: Compiled = {
    statement,
    variable: false,
    everything: actions.some((a) => a === '*' || a === '*:*'),
    services:
      statement.Action === undefined ||
      actions.some((a) => a.indexOf(':') < 0 || /[*?]/.test(a.slice(0, a.indexOf(':'))))
        ? undefined
        : actions.map(serviceOf),
    covers:
      statement.Action !== undefined
        ? actions.includes('*')
          ? () => true
          : (action) => actions.some((p) => actionMatches(p, action))
        : statement.NotAction !== undefined
          ? (action) => !notActions.some((p) => actionMatches(p, action))
          : () => false,
    resources: statement.NotResource === undefined ? resolve(list(statement.Resource)) : undefined,
    notResources: statement.NotResource !== undefined ? resolve(list(statement.NotResource)) : undefined,
    selfPatterns,
    passedToService: condition.passedToService,
    time: condition.time,
    conditional: condition.unknown.length > 0,
  };
  compiled.variable = variable;
  if (!variable) compiledStatements.set(statement, compiled);
  return compiled;
}

function admitsService(s: Compiled, service: string | undefined): boolean {
  if (!s.passedToService || service === undefined) return true;
  return s.passedToService.some((p) => resourceMatches(p.toLowerCase(), service.toLowerCase()));
}
