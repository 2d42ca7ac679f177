// IAM privilege escalation (the known primitives, after Rhino Security Labs' list): a principal whose
// effective permissions include one can make itself an administrator of the account, so it draws
// CAN_ESCALATE_TO to the synthetic `account-admin`. Explicit denies remove a primitive; an allow that
// carries a condition is not counted (it may not apply); a primitive held only on literal resources is
// `resource_scoped` (priced lower: docs/model.md).

export interface Statement {
  Effect?: string;
  Action?: string | string[];
  NotAction?: string | string[];
  Resource?: string | string[];
  Condition?: unknown;
}

/** Each primitive: the actions that together make it. */
export const ESCALATION_PRIMITIVES: Readonly<Record<string, readonly string[]>> = {
  'full-admin': ['*'],
  'iam-full-access': ['iam:*'],
  CreatePolicyVersion: ['iam:CreatePolicyVersion'],
  SetDefaultPolicyVersion: ['iam:SetDefaultPolicyVersion'],
  CreateAccessKey: ['iam:CreateAccessKey'],
  CreateLoginProfile: ['iam:CreateLoginProfile'],
  UpdateLoginProfile: ['iam:UpdateLoginProfile'],
  AttachUserPolicy: ['iam:AttachUserPolicy'],
  AttachGroupPolicy: ['iam:AttachGroupPolicy'],
  AttachRolePolicy: ['iam:AttachRolePolicy'],
  PutUserPolicy: ['iam:PutUserPolicy'],
  PutGroupPolicy: ['iam:PutGroupPolicy'],
  PutRolePolicy: ['iam:PutRolePolicy'],
  AddUserToGroup: ['iam:AddUserToGroup'],
  UpdateAssumeRolePolicy: ['iam:UpdateAssumeRolePolicy', 'sts:AssumeRole'],
  'PassRole+EC2': ['iam:PassRole', 'ec2:RunInstances'],
  'PassRole+Lambda': ['iam:PassRole', 'lambda:CreateFunction', 'lambda:InvokeFunction'],
  'PassRole+CloudFormation': ['iam:PassRole', 'cloudformation:CreateStack'],
  'PassRole+Glue': ['iam:PassRole', 'glue:CreateDevEndpoint'],
  UpdateFunctionCode: ['lambda:UpdateFunctionCode'],
};

export interface Escalation {
  primitives: string[];
  /** every primitive is held only on literal resources */
  resourceScoped: boolean;
  /** holds `*` on `*`: already an administrator */
  admin: boolean;
}

const list = (v: string | string[] | undefined): string[] =>
  v === undefined ? [] : Array.isArray(v) ? v : [v];

/** An IAM action pattern (`iam:Create*`, `*`) as a matcher, case-insensitive as IAM is. */
const matchers = new Map<string, (action: string) => boolean>();
function matcher(pattern: string): (action: string) => boolean {
  let match = matchers.get(pattern);
  if (!match) {
    match = compile(pattern);
    if (matchers.size < 10_000) matchers.set(pattern, match);
  }
  return match;
}

function compile(pattern: string): (action: string) => boolean {
  const regex = new RegExp(
    `^${pattern
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.')}$`,
    'i',
  );
  return (action) => regex.test(action);
}

const grants = (s: Statement, action: string) =>
  s.Action !== undefined
    ? list(s.Action).some((p) => matcher(p)(action))
    : s.NotAction !== undefined && !list(s.NotAction).some((p) => matcher(p)(action));

const onEverything = (s: Statement) => list(s.Resource).some((r) => r === '*');

/** The primitives a principal's effective statements give it. */
export function escalationOf(statements: readonly Statement[]): Escalation | undefined {
  const allows = statements.filter(
    (s) =>
      s.Effect === 'Allow' && (s.Condition === undefined || Object.keys(s.Condition as object).length === 0),
  );
  const denies = statements.filter((s) => s.Effect === 'Deny' && onEverything(s));
  const held = (action: string): 'all' | 'scoped' | undefined => {
    if (denies.some((d) => grants(d, action))) return undefined;
    const granting = allows.filter((s) => grants(s, action));
    if (!granting.length) return undefined;
    return granting.some(onEverything) ? 'all' : 'scoped';
  };
  const primitives: string[] = [];
  let scoped = true;
  for (const [name, actions] of Object.entries(ESCALATION_PRIMITIVES)) {
    const holds = actions.map((a) => (a === '*' ? heldEverything(allows, denies) : held(a)));
    if (holds.some((h) => h === undefined)) continue;
    primitives.push(name);
    if (holds.every((h) => h === 'all')) scoped = false;
  }
  if (!primitives.length) return undefined;
  // Report the strongest: `*` on `*` says everything; `iam:*` says every IAM-only primitive.
  const admin = primitives.includes('full-admin');
  const named = admin
    ? ['full-admin']
    : primitives.includes('iam-full-access')
      ? primitives.filter(
          (p) => p === 'iam-full-access' || !ESCALATION_PRIMITIVES[p].every((a) => a.startsWith('iam:')),
        )
      : primitives;
  return { primitives: named, resourceScoped: scoped, admin };
}

/** `*` on `*`, not narrowed by a deny on everything. */
function heldEverything(allows: Statement[], denies: Statement[]): 'all' | undefined {
  if (denies.length) return undefined;
  return allows.some((s) => list(s.Action).includes('*') && onEverything(s)) ? 'all' : undefined;
}

/** Statements of a policy document (a single statement or a list). */
export function statementsOf(document: unknown): Statement[] {
  if (!document || typeof document !== 'object') return [];
  const statement = (document as { Statement?: unknown }).Statement;
  return (Array.isArray(statement) ? statement : statement ? [statement] : []).filter(
    (s): s is Statement => !!s && typeof s === 'object',
  );
}
