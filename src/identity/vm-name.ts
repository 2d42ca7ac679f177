// How a virtual machine is named (DECISIONS "Names"): by its `Name` tag when it has one, else by its instance
// id, which stays an alias resolving to the same node. A Name tag that several instances of one report carry
// (the members of an Auto Scaling group share their launch template's) names none of them: each is named by
// its instance id, so that two machines never become one node and a route never crosses from one to the
// other; the tag is kept as `name_tag` then. The graph writer keeps the same rule across reports: a VM arriving
// under a name another instance holds takes its instance id's name instead (src/graph/writer.ts).
import { qualify } from '../ingest/sources/account.js';
import type { Tags } from '../markers/crown-jewel.js';

/** An instance as the naming reads it: its id, its tags, the account that qualifies its names. */
export interface NamedInstance {
  instanceId: string;
  tags: Tags;
  account: string | undefined;
}

/** The qualified Name tags that more than one instance of `instances` carries. */
export function sharedNameTags(instances: Iterable<NamedInstance>): Set<string> {
  const holders = new Map<string, string>();
  const shared = new Set<string>();
  for (const { instanceId, tags, account } of instances) {
    if (!tags.name) continue;
    const name = qualify(tags.name, account);
    const holder = holders.get(name);
    if (holder === undefined) holders.set(name, instanceId);
    else if (holder !== instanceId) shared.add(name);
  }
  return shared;
}

/** The node name, aliases and kept tag of one instance, given the report's shared Name tags. */
export function vmName(
  instance: NamedInstance,
  shared: ReadonlySet<string>,
): { name: string; aliases?: string[]; name_tag?: string } {
  const { instanceId, tags, account } = instance;
  const byId = qualify(instanceId, account);
  if (!tags.name) return { name: byId };
  const byTag = qualify(tags.name, account);
  if (shared.has(byTag)) return { name: byId, name_tag: tags.name };
  return { name: byTag, aliases: [byId] };
}

/** The warning a report with shared Name tags gets, naming them. */
export function sharedNameWarning(shared: ReadonlySet<string>): string[] {
  if (!shared.size) return [];
  const names = [...shared].sort();
  const shown = names.slice(0, 5).map((n) => JSON.stringify(n));
  return [
    `${names.length} Name tag(s) carried by several instances, each of which is named by its instance id: ` +
      `${shown.join(', ')}${names.length > 5 ? ', ...' : ''}`,
  ];
}

/**
 * When a VM node held under the incoming VM's name describes another instance (both name their EC2
 * instance ids, and they differ): the name the incoming instance takes instead, its first alias (its qualified
 * instance id). Undefined when they are one machine, or either names no instance id. The graph writer and
 * the gate's overlay both ask, so a report and a pull request's report name machines alike.
 */
export function otherInstanceName(
  incoming: Record<string, unknown>,
  held: Record<string, unknown> | undefined,
): string | undefined {
  const mine = incoming.instance_id;
  const theirs = held?.instance_id;
  // Only two real instance ids tell two machines apart: a plan's new instance has none yet (Terraform
  // names it by its address), and is the machine the plan puts under that name.
  if (!isInstanceId(mine) || !isInstanceId(theirs) || mine === theirs) return undefined;
  const aliases = Array.isArray(incoming.aliases) ? incoming.aliases : [];
  return aliases.find((a): a is string => typeof a === 'string' && a !== '');
}

/** An EC2 instance id (`i-` and 8 or 17 hex digits). */
function isInstanceId(value: unknown): value is string {
  return typeof value === 'string' && /^i-[0-9a-f]{8}(?:[0-9a-f]{9})?$/.test(value);
}

/** The Name tag a VM node name holds: the name without its account (`<12 digits>/`). */
export function nameTagOf(name: string): string {
  return /^\d{12}\/(.+)$/.exec(name)?.[1] ?? name;
}
