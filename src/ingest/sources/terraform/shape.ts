// The shapes the terraform normalizer reads, checked before it reads them: a `null` or a value of the wrong
// type anywhere it walks (a resource, a security group's `ingress` rule, a resource change, a module call)
// is a 400 naming its JSON pointer (`/planned_values/root_module/resources/3`), never a crash (issue 31).
// Only what the normalizer reads is checked: other fields, and other resource types' values, pass as
// Terraform printed them.
import { reportProblem } from '../report-schema.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a document being checked, read field by field
type Json = any;

/** A nested block list (`ingress`, `route`): its elements are objects, whose listed keys have these shapes. */
interface Blocks {
  kind: 'blocks';
  fields?: Readonly<Record<string, Shape>>;
}
/** A list of strings (`security_groups`, `managed_policy_arns`). */
interface Strings {
  kind: 'strings';
}
type Shape = Blocks | Strings;

const STRINGS: Strings = { kind: 'strings' };
const blocks = (fields?: Record<string, Shape>): Blocks => ({ kind: 'blocks', fields });

const RULE = blocks({ security_groups: STRINGS });
const ACTION = blocks({ forward: blocks({ target_group: blocks() }) });

/** Per resource type, the fields of its values the normalizer walks into. */
const VALUES: Readonly<Record<string, Readonly<Record<string, Shape>>>> = {
  aws_security_group: { ingress: RULE, egress: RULE },
  aws_s3_bucket: { grant: blocks({ permissions: STRINGS }) },
  aws_s3_bucket_acl: {
    access_control_policy: blocks({ grant: blocks({ grantee: blocks() }) }),
  },
  aws_route_table: { route: blocks() },
  aws_default_route_table: { route: blocks() },
  aws_iam_role: { inline_policy: blocks(), managed_policy_arns: STRINGS },
  aws_instance: { metadata_options: blocks() },
  aws_lb_listener: { default_action: ACTION },
  aws_alb_listener: { default_action: ACTION },
  aws_lb_listener_rule: { action: ACTION },
  aws_alb_listener_rule: { action: ACTION },
  // data sources (read for a bucket policy known only at apply)
  aws_iam_policy_document: {
    statement: blocks({ principals: blocks({ identifiers: STRINGS }), condition: blocks() }),
  },
};

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function fail(pointer: string, value: unknown, detail: string): never {
  throw reportProblem('terraform', [
    {
      pointer,
      ...(value === null || typeof value !== 'object' ? { value } : {}),
      detail: `${detail}, not ${describe(value)}`,
    },
  ]);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'missing';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** Absent (or null: Terraform prints an unset block list as null) or of the shape. */
function checkField(value: unknown, shape: Shape, pointer: string): void {
  if (value === undefined || value === null) return;
  if (!Array.isArray(value))
    fail(pointer, value, shape.kind === 'strings' ? 'a list of strings' : 'a list of blocks');
  value.forEach((item, i) => {
    const at = `${pointer}/${i}`;
    if (shape.kind === 'strings') {
      if (typeof item !== 'string') fail(at, item, 'a string');
      return;
    }
    if (!isObject(item)) fail(at, item, 'a block (an object)');
    for (const [key, inner] of Object.entries(shape.fields ?? {}))
      checkField(item[key], inner, `${at}/${key}`);
  });
}

/** A resource's values (absent or null allowed: such a resource is not read). */
function checkValues(type: unknown, values: unknown, pointer: string): void {
  if (values === undefined || values === null) return;
  if (!isObject(values)) fail(pointer, values, "a resource's values (an object)");
  const fields = typeof type === 'string' ? VALUES[type] : undefined;
  for (const [key, shape] of Object.entries(fields ?? {}))
    checkField(values[key], shape, `${pointer}/${key}`);
}

/** A module of planned values or of a state: its resources and child modules, recursively. */
function checkModule(module: unknown, pointer: string, state: boolean): void {
  if (!state && (module === undefined || module === null)) return;
  if (!isObject(module))
    fail(pointer, module, state ? 'a state holds values.root_module, an object' : 'a module (an object)');
  const { resources, child_modules: children } = module;
  if (resources !== undefined && resources !== null && !Array.isArray(resources))
    fail(`${pointer}/resources`, resources, 'a list of resources');
  ((resources ?? []) as unknown[]).forEach((r, i) => {
    const at = `${pointer}/resources/${i}`;
    if (!isObject(r)) fail(at, r, 'a resource (an object)');
    if (typeof r.type !== 'string') fail(at, r.type, 'a resource with its type (a string)');
    if (r.address !== undefined && typeof r.address !== 'string')
      fail(`${at}/address`, r.address, 'an address (a string)');
    checkValues(r.type, r.values, `${at}/values`);
  });
  if (children !== undefined && children !== null && !Array.isArray(children))
    fail(`${pointer}/child_modules`, children, 'a list of modules');
  ((children ?? []) as unknown[]).forEach((child, i) => {
    if (!isObject(child)) fail(`${pointer}/child_modules/${i}`, child, 'a module (an object)');
    checkModule(child, `${pointer}/child_modules/${i}`, state);
  });
}

/** A module of the configuration: its resources' expressions and its module calls. */
function checkConfigModule(module: unknown, pointer: string): void {
  if (module === undefined || module === null) return;
  if (!isObject(module)) fail(pointer, module, 'a module (an object)');
  const { resources, module_calls: calls } = module;
  if (resources !== undefined && resources !== null && !Array.isArray(resources))
    fail(`${pointer}/resources`, resources, 'a list of resources');
  ((resources ?? []) as unknown[]).forEach((r, i) => {
    const at = `${pointer}/resources/${i}`;
    if (!isObject(r)) fail(at, r, 'a resource (an object)');
    if (r.expressions !== undefined && r.expressions !== null && !isObject(r.expressions))
      fail(`${at}/expressions`, r.expressions, 'expressions (an object)');
  });
  if (calls === undefined || calls === null) return;
  if (!isObject(calls)) fail(`${pointer}/module_calls`, calls, 'module calls (an object)');
  for (const [name, call] of Object.entries(calls)) {
    const at = `${pointer}/module_calls/${escapePointer(name)}`;
    if (!isObject(call)) fail(at, call, 'a module call (an object)');
    checkConfigModule(call.module, `${at}/module`);
  }
}

function escapePointer(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Every shape the normalizer reads in a plan or state (`terraform show -json`); throws the 400. */
export function checkPlanShape(plan: Json, state: boolean): void {
  if (state) {
    checkModule(plan.values?.root_module, '/values/root_module', true);
    return;
  }
  const planned = plan.planned_values;
  if (planned !== undefined && planned !== null) {
    if (!isObject(planned)) fail('/planned_values', planned, 'planned values (an object)');
    checkModule(planned.root_module, '/planned_values/root_module', false);
  }
  const changes = plan.resource_changes;
  if (changes !== undefined && changes !== null && !Array.isArray(changes))
    fail('/resource_changes', changes, 'a list of resource changes');
  ((changes ?? []) as unknown[]).forEach((c, i) => {
    const at = `/resource_changes/${i}`;
    if (!isObject(c)) fail(at, c, 'a resource change (an object)');
    const change = c.change;
    if (change === undefined || change === null) return;
    if (!isObject(change)) fail(`${at}/change`, change, 'a change (an object)');
    if (change.actions !== undefined && change.actions !== null)
      checkField(change.actions, STRINGS, `${at}/change/actions`);
    checkValues(c.type, change.before, `${at}/change/before`);
    checkValues(c.type, change.after, `${at}/change/after`);
  });
  const configuration = plan.configuration;
  if (configuration !== undefined && configuration !== null) {
    if (!isObject(configuration)) fail('/configuration', configuration, 'a configuration (an object)');
    checkConfigModule(configuration.root_module, '/configuration/root_module');
  }
}
