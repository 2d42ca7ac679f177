// Who a node is under other names (DECISIONS.md "Names" and "Accounts"): the aliases a node carries (a VM
// named by its Name tag keeps its instance id), and assets a source names without their account, which join
// the one asset of that label and name in any account. A node already in the graph under such a name is
// absorbed into the node it names.
import { nodeId } from './ids.js';
import type { NodeLabel } from './vocabulary.js';
import { moveEdges, type WriterEdits } from './writer-edits.js';

/** Set by a source naming an asset without its account: join the one asset of that name in any account. */
export const ACCOUNT_UNKNOWN = 'account_unknown';
export const ACCOUNT_QUALIFIED = /^\d{12}\/(.+)$/;

export function withoutKey(props: Record<string, unknown>, key: string): Record<string, unknown> {
  const { [key]: _dropped, ...rest } = props;
  return rest;
}

export class AccountIdentity {
  constructor(
    private readonly edits: WriterEdits,
    /** alias node id -> the node it names (noteAliases); the writer's own map, which apply() reads */
    private readonly aliases: Map<string, string>,
  ) {}

  /**
   * Other names of a node (DECISIONS.md "Names": a VM named by its Name tag keeps its instance id as an
   * alias): later reports naming it so land on it, and a node already there under an alias is merged in.
   */
  noteAliases(id: string, label: NodeLabel, names: unknown[]): void {
    for (const alias of names) {
      if (typeof alias !== 'string' || !alias) continue;
      const aliasId = nodeId(label, alias);
      if (aliasId === id) continue;
      this.aliases.set(aliasId, id);
      if (this.edits.graph.hasNode(aliasId)) this.absorb(aliasId, id);
    }
  }

  /** The one node of this label named `<12-digit account>/<name>`, if exactly one exists. */
  uniqueInAnyAccount(label: NodeLabel, name: string): string | undefined {
    const suffix = `/${name.toLowerCase()}`;
    let found: string | undefined;
    let count = 0;
    this.edits.graph.forEachNode((id, attrs) => {
      if (count > 1 || attrs.label !== label) return;
      const n = attrs.name.toLowerCase();
      if (n.endsWith(suffix) && ACCOUNT_QUALIFIED.test(attrs.name) && n.length === suffix.length + 12) {
        found = id;
        count++;
      }
    });
    return count === 1 ? found : undefined;
  }

  /** Moves a node's edges and properties (the target's win) onto another, then drops it. */
  absorb(fromId: string, toId: string): void {
    const graph = this.edits.graph;
    const from = graph.getNodeAttributes(fromId);
    const to = graph.getNodeAttributes(toId);
    to.props = { ...from.props, ...to.props };
    this.edits.changes.nodeChanged(toId);
    moveEdges(this.edits, fromId, toId);
  }
}
