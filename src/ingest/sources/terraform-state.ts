// A raw Terraform state (`terraform.tfstate`, format version 4: what `terraform state pull` prints and every
// backend stores) read as `terraform show -json` prints the same state, so that the terraform source reads
// it as it reads that: the same resources under `values.root_module` (child modules nested by their
// address), each with its address (`module.app.aws_instance.web["a"]`), mode, type, name, index and
// attributes as `values`. Attributes the state marks sensitive are dropped, not copied: a state holds the
// passwords and keys Terraform wrote. Versions 3 and older (Terraform 0.11 and before: `modules[].resources{}`
// keyed by address) are refused by name with what to run instead.
import { reportProblem } from './report-schema.js';

type Values = Record<string, unknown>;

/** Whether a body is a raw state (`version`, `lineage`, `resources`), not a `terraform show -json` document. */
export function isRawState(body: unknown): boolean {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return false;
  const b = body as Values;
  return (
    typeof b.version === 'number' &&
    typeof b.lineage === 'string' &&
    (Array.isArray(b.resources) || Array.isArray(b.modules)) &&
    !('format_version' in b)
  );
}

/** The raw state as `terraform show -json` prints it (format 1.0). */
export function showJsonOfRawState(body: Values): Values {
  if (body.version !== 4)
    throw reportProblem('terraform', [
      {
        pointer: '/version',
        value: body.version,
        detail:
          'a raw state of format version 4 (Terraform 0.12 and later): a state Terraform 0.11 or older wrote is read once a current Terraform has rewritten it (`terraform apply -refresh-only`, then `terraform state pull`)',
      },
    ]);
  const root: Module = { resources: [], children: new Map() };
  const resources = body.resources as unknown[];
  for (const [i, value] of resources.entries()) {
    const r = value as Values;
    if (!r || typeof r !== 'object' || typeof r.type !== 'string' || typeof r.name !== 'string')
      throw reportProblem('terraform', [
        { pointer: `/resources/${i}`, detail: 'a resource with its type and name' },
      ]);
    const modulePath = typeof r.module === 'string' && r.module ? r.module : undefined;
    const mode = r.mode === 'data' ? 'data' : 'managed';
    const base = `${modulePath ? `${modulePath}.` : ''}${mode === 'data' ? 'data.' : ''}${r.type}.${r.name}`;
    const instances = Array.isArray(r.instances) ? (r.instances as Values[]) : [];
    for (const instance of instances) {
      if (!instance || typeof instance !== 'object') continue;
      const index = instance.index_key;
      moduleAt(root, modulePath).resources.push({
        address: index === undefined ? base : `${base}[${JSON.stringify(index)}]`,
        mode,
        type: r.type,
        name: r.name,
        ...(index !== undefined && { index }),
        provider_name: providerName(r.provider),
        schema_version: instance.schema_version,
        values: withoutSensitive(instance.attributes, instance.sensitive_attributes),
      });
    }
  }
  return {
    format_version: '1.0',
    terraform_version: body.terraform_version,
    values: { root_module: moduleJson(root, undefined) },
  };
}

interface Module {
  resources: Values[];
  children: Map<string, Module>;
}

/** The module of an address (`module.a.module.b`), made as it is first named. */
function moduleAt(root: Module, path: string | undefined): Module {
  if (!path) return root;
  let current = root;
  let address = '';
  for (const part of path.match(/module\.[^.[]+(?:\[[^\]]*\])?/g) ?? [path]) {
    address = address ? `${address}.${part}` : part;
    let child = current.children.get(address);
    if (!child) current.children.set(address, (child = { resources: [], children: new Map() }));
    current = child;
  }
  return current;
}

function moduleJson(module: Module, address: string | undefined): Values {
  return {
    ...(address && { address }),
    resources: module.resources,
    ...(module.children.size && {
      child_modules: [...module.children].map(([childAddress, child]) => moduleJson(child, childAddress)),
    }),
  };
}

/** `provider["registry.terraform.io/hashicorp/aws"]` -> `registry.terraform.io/hashicorp/aws` */
function providerName(provider: unknown): string | undefined {
  if (typeof provider !== 'string') return undefined;
  return /provider\["([^"]+)"\]/.exec(provider)?.[1] ?? provider;
}

/**
 * The attributes without those the state marks sensitive: each path (`[{type: "get_attr", value:
 * "password"}]`) is removed where it points, the top-level attribute whole when the path goes deeper than a
 * plain object's keys.
 */
function withoutSensitive(attributes: unknown, sensitive: unknown): Values {
  if (!attributes || typeof attributes !== 'object' || Array.isArray(attributes)) return {};
  const values: Values = { ...(attributes as Values) };
  for (const path of Array.isArray(sensitive) ? sensitive : []) {
    // A path is a list of steps (Terraform 0.15 to 1.x), or one step written alone.
    const steps = (Array.isArray(path) ? path : [path]) as { type?: string; value?: unknown }[];
    const first = steps[0];
    if (first?.type === 'get_attr' && typeof first.value === 'string') delete values[first.value];
  }
  return values;
}
