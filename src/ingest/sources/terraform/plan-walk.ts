// The terraform source's reading of a document (`terraform show -json`): the checks before anything is read
// (format, and the shapes of terraform/shape.ts), every managed resource after the change, and what the
// configuration says each resource's attributes refer to. Each index (the resources, the configuration's
// expressions by address, the resources by address and by type) is built once per document, so that looking
// a resource up costs the same however many the plan holds: 40,000 buckets took quadratic time before
// (issue 31; bench/terraform.ts).
import { reportProblem } from '../report-schema.js';
import { checkPlanShape } from './shape.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the plan's values, read field by field
export type Values = Record<string, any>;

export interface PlanResource {
  address: string;
  type: string;
  name: string;
  values: Values;
  /** the plan deletes it (values are the state before) */
  deleted?: boolean;
}

export interface PlanModule {
  address?: string;
  resources?: {
    address: string;
    mode?: string;
    type: string;
    name: string;
    index?: string | number;
    values?: Values;
  }[];
  child_modules?: PlanModule[];
}

/** planResources' answer per document: the walk is done once. */
const walked = new WeakMap<Values, PlanResource[]>();

export function readPlan(body: unknown): Values {
  const plan = body as Values;
  if (!plan || typeof plan !== 'object' || Array.isArray(plan))
    throw reportProblem('terraform', [
      { pointer: '/', detail: 'expected a Terraform plan or state (terraform show -json)' },
    ]);
  // Terraform 0.12 to 1.0 print format 0.1 / 0.2 (1.0.x still prints 0.2); 1.1 and later 1.x. The fields
  // read here are the same in all of them, plans' and states' alike.
  if (typeof plan.format_version !== 'string' || !/^(?:0\.[12]$|1\.)/.test(plan.format_version))
    throw reportProblem('terraform', [
      {
        pointer: '/format_version',
        value: plan.format_version,
        detail: 'a plan or state in the JSON format 0.1, 0.2 or 1.x (terraform show -json [<planfile>])',
      },
    ]);
  if (!plan.planned_values?.root_module && !Array.isArray(plan.resource_changes) && !('values' in plan))
    throw reportProblem('terraform', [
      {
        pointer: '/planned_values',
        detail: 'a plan holds planned_values.root_module or resource_changes, a state values.root_module',
      },
    ]);
  checkPlanShape(plan, isState(plan));
  return plan;
}

/** A state (`terraform show -json` of no plan file): `values`, and none of a plan's fields. */
export function isState(plan: Values): boolean {
  return 'values' in plan && !('planned_values' in plan) && !('resource_changes' in plan);
}

/** Every managed resource after the change, and those the plan deletes (with their state before). */
export function planResources(plan: Values): PlanResource[] {
  const known = walked.get(plan);
  if (known) return known;
  const out: PlanResource[] = [];
  const state = isState(plan);
  const walk = (module: PlanModule | undefined) => {
    if (!module) return;
    for (const r of module.resources ?? [])
      if (r.mode !== 'data' && r.values)
        out.push({
          address: state ? stateAddress(module, r) : r.address,
          type: r.type,
          name: r.name,
          values: r.values,
        });
    for (const child of module.child_modules ?? []) walk(child);
  };
  walk(state ? plan.values?.root_module : plan.planned_values?.root_module);
  const present = new Set(out.map((r) => r.address));
  for (const change of (plan.resource_changes ?? []) as Values[]) {
    const actions: string[] = change.change?.actions ?? [];
    if (change.mode === 'data' || present.has(change.address)) continue;
    if (actions.includes('delete') && !actions.includes('create') && change.change?.before)
      out.push({
        address: change.address,
        type: change.type,
        name: change.name,
        values: change.change.before,
        deleted: true,
      });
    else if (!actions.includes('delete') && change.change?.after)
      out.push({
        address: change.address,
        type: change.type,
        name: change.name,
        values: change.change.after,
      });
  }
  walked.set(plan, out);
  return out;
}

/**
 * A state resource's whole address. Terraform 0.12 prints a child module's resources without the module's
 * path and an instance of `count` / `for_each` without its key (`aws_instance.web` for
 * `module.app.aws_instance.web[0]`); later versions print it whole, and it is kept as printed.
 */
function stateAddress(module: PlanModule, r: { address: string; index?: string | number }): string {
  let address = r.address;
  if (module.address && !address.startsWith(`${module.address}.`)) address = `${module.address}.${address}`;
  if (r.index !== undefined && !address.endsWith(']'))
    address += typeof r.index === 'number' ? `[${r.index}]` : `[${JSON.stringify(r.index)}]`;
  return address;
}

/** The configuration's references of one attribute of a resource (`aws_security_group.batch.id`). */
export function references(plan: Values, address: string, attribute: string): string[] {
  const found = expressionsOf(plan, address);
  if (!found) return [];
  const refs = found.expressions?.[attribute]?.references;
  return Array.isArray(refs) ? refs.map((ref: string) => `${found.prefix}${ref}`) : [];
}

/**
 * What each of a resource's nested blocks (`route { gateway_id = aws_internet_gateway.gw.id }`) refers to by
 * `attribute`, block by block, as the plan's configuration records it.
 */
export function blockReferences(plan: Values, address: string, block: string, attribute: string): string[][] {
  const found = expressionsOf(plan, address);
  const blocks = found?.expressions?.[block];
  if (!Array.isArray(blocks)) return [];
  return blocks.map((b: Values) => {
    const refs = b?.[attribute]?.references;
    return Array.isArray(refs) ? refs.map((ref: string) => `${found!.prefix}${ref}`) : [];
  });
}

/** A resource's expressions in the plan's configuration, with the module prefix its references take. */
function expressionsOf(
  plan: Values,
  address: string,
): { expressions: Values | undefined; prefix: string } | undefined {
  return configurationIndex(plan).get(address);
}

type Expressions = { expressions: Values | undefined; prefix: string };
const configured = new WeakMap<Values, Map<string, Expressions>>();

/**
 * Every configured resource's expressions by its whole address, built once per document: the first one in
 * the configuration's order (a module's resources, then its module calls, depth first) holds an address.
 */
function configurationIndex(plan: Values): Map<string, Expressions> {
  let index = configured.get(plan);
  if (index) return index;
  const built = new Map<string, Expressions>();
  const walk = (module: Values | undefined, prefix: string): void => {
    if (!module) return;
    for (const r of module.resources ?? []) {
      const address = `${prefix}${r.address}`;
      if (!built.has(address)) built.set(address, { expressions: r.expressions, prefix });
    }
    for (const [name, call] of Object.entries<Values>(module.module_calls ?? {}))
      walk(call.module, `${prefix}module.${name}.`);
  };
  walk(plan.configuration?.root_module, '');
  configured.set(plan, (index = built));
  return index;
}

const addresses = new WeakMap<readonly PlanResource[], Map<string, PlanResource>>();

/** The resources by address (the last of an address wins), built once per list. */
function addressIndex(resources: readonly PlanResource[]): Map<string, PlanResource> {
  let index = addresses.get(resources);
  if (!index) addresses.set(resources, (index = new Map(resources.map((x) => [x.address, x]))));
  return index;
}

const byTypes = new WeakMap<readonly PlanResource[], Map<string, PlanResource[]>>();

/** The resources of one type, in document order, grouped once per list. */
export function ofType(resources: readonly PlanResource[], type: string): PlanResource[] {
  let index = byTypes.get(resources);
  if (!index) {
    index = new Map();
    for (const r of resources) {
      const list = index.get(r.type);
      if (list) list.push(r);
      else index.set(r.type, [r]);
    }
    byTypes.set(resources, index);
  }
  return index.get(type) ?? [];
}

/** A resource's id, or its address when the id is known only after apply (a new resource). */
export function idOf(r: PlanResource): string {
  return typeof r.values.id === 'string' ? r.values.id : r.address;
}

/** The ids (or addresses of new resources) an attribute points at: its value when known, else its references. */
export function pointed(
  plan: Values,
  resources: PlanResource[],
  r: PlanResource,
  attribute: string,
): string[] {
  const value = r.values[attribute];
  const known = [value].flat().filter((v): v is string => typeof v === 'string');
  if (known.length) return known;
  const byAddress = addressIndex(resources);
  return references(plan, r.address, attribute)
    .map((ref) => byAddress.get(ref) ?? byAddress.get(ref.replace(/\.[a-z_]+$/, '')))
    .filter((x): x is PlanResource => x !== undefined)
    .map(idOf);
}

export function tagList(tags: unknown): { Key: string; Value: string }[] {
  return Object.entries((tags ?? {}) as Record<string, string>).map(([Key, Value]) => ({ Key, Value }));
}
