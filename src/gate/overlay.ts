// A pull request's report laid over a tenant's live graph, copy-on-write: the live graph is read, never
// written; only what the report adds or changes is held here (a node's merged attributes, an added or
// re-stated edge). It presents the read interface the compiler and the workload pricer use (GraphView),
// so a gate evaluation runs the same pricing and search as the analyzer on "live + change".
// Writes follow the graph writer's rules (property merge, edges keyed by type/from/to, image references
// joined by digest, tag or name, the join's confidence on the stitched edges); edges whose endpoint is in
// neither the live graph nor the report are left out and counted (a PR scan does not park).
import { idLabel, nodeId } from '../graph/ids.js';
import { RESOLVE_REF, IMAGE_IDENTITY_PROPS } from '../graph/image-identity.js';
import type {
  EdgeAttributes,
  EdgeVisitor,
  GraphView,
  NodeAttributes,
  TakenChanges,
  TenantGraph,
} from '../graph/model.js';
import { findEdge } from '../graph/model.js';
import { isEdgeType, isNodeLabel, type EdgeType } from '../graph/vocabulary.js';
import type { GraphWriter } from '../graph/writer.js';
import type { EventEnvelope } from '../ingest/envelope.js';
import { nameTagOf, otherInstanceName } from '../identity/vm-name.js';

interface OverlayEdge {
  key: string;
  from: string;
  to: string;
  attrs: EdgeAttributes;
  /** the live edge this one re-states, if any */
  replaces?: string;
}

export interface OverlayStats {
  /** nodes of the report that exist in the live graph (after image identity) */
  matchedNodes: number;
  addedNodes: number;
  addedEdges: number;
  changedEdges: number;
  /** edges left out: an endpoint in neither the live graph nor the report */
  danglingEdges: number;
}

export class Overlay implements GraphView {
  private readonly nodes = new Map<string, NodeAttributes>();
  private readonly added = new Set<string>();
  private readonly edges = new Map<string, OverlayEdge>();
  /** live edge keys an overlay edge re-states */
  private readonly replaced = new Set<string>();
  private readonly addedOut = new Map<string, number>();
  /** live edges the overlay takes away without re-stating them (a workload's image replaced by its successor) */
  private readonly removedOut = new Map<string, number>();
  private nextKey = 0;
  readonly stats: OverlayStats = {
    matchedNodes: 0,
    addedNodes: 0,
    addedEdges: 0,
    changedEdges: 0,
    danglingEdges: 0,
  };
  /**
   * ids of the live nodes the report touched (for attribution and "names nothing the estate holds"): nodes
   * it re-states, endpoints of the edges it adds or re-states between live nodes, and the workloads whose
   * image it replaces by a successor.
   */
  readonly touched = new Set<string>();

  constructor(
    readonly base: TenantGraph,
    private readonly writer: Pick<GraphWriter, 'resolveImage' | 'aliasOf'>,
  ) {}

  get order(): number {
    return this.base.order + this.added.size;
  }

  get size(): number {
    return this.base.size + this.edges.size - this.replaced.size;
  }

  /** A node's attributes as this overlay sees them (its own write, else the live graph's), if it exists. */
  private attributesOf(id: string): NodeAttributes | undefined {
    return this.nodes.get(id) ?? (this.base.hasNode(id) ? this.base.getNodeAttributes(id) : undefined);
  }

  hasNode(id: string): boolean {
    return this.nodes.has(id) || this.base.hasNode(id);
  }

  getNodeAttributes(id: string): NodeAttributes {
    return this.nodes.get(id) ?? this.base.getNodeAttributes(id);
  }

  outDegree(id: string): number {
    return (
      (this.added.has(id) ? 0 : this.base.outDegree(id)) +
      (this.addedOut.get(id) ?? 0) -
      (this.removedOut.get(id) ?? 0)
    );
  }

  forEachNode(callback: (id: string, attrs: NodeAttributes) => void): void {
    const overridden = this.nodes;
    this.base.forEachNode((id, attrs) => callback(id, overridden.get(id) ?? attrs));
    for (const id of this.added) callback(id, this.nodes.get(id)!);
  }

  forEachEdge(callback: EdgeVisitor): void {
    const overridden = this.nodes;
    const replaced = this.replaced;
    const live = overridden.size > 0;
    this.base.forEachEdge((key, attrs, source, target, sourceAttrs, targetAttrs) => {
      if (replaced.size && replaced.has(key)) return;
      if (live) {
        sourceAttrs = overridden.get(source) ?? sourceAttrs;
        targetAttrs = overridden.get(target) ?? targetAttrs;
      }
      callback(key, attrs, source, target, sourceAttrs, targetAttrs);
    });
    for (const e of this.edges.values())
      callback(e.key, e.attrs, e.from, e.to, this.getNodeAttributes(e.from), this.getNodeAttributes(e.to));
  }

  forEachOutEdge(id: string, callback: EdgeVisitor): void {
    this.forEachAdjacent(id, 'out', callback);
  }

  forEachInEdge(id: string, callback: EdgeVisitor): void {
    this.forEachAdjacent(id, 'in', callback);
  }

  /** The overlay's own edges (added or re-stated), for explaining what a change did. */
  ownEdges(): readonly OverlayEdge[] {
    return [...this.edges.values()];
  }

  /** The nodes the overlay adds (the live graph does not hold them). */
  forEachAddedNode(callback: (id: string, attrs: NodeAttributes) => void): void {
    for (const id of this.added) callback(id, this.nodes.get(id)!);
  }

  /** Whether the report states this node (added, or live and re-stated). */
  isOwn(id: string): boolean {
    return this.nodes.has(id);
  }

  /**
   * Points a live edge at another target: the live edge is hidden, an edge with its attributes (and join
   * confidence) is added to `to`. Used for successor images: a workload running a repository's image runs
   * the pull request's image instead.
   */
  retarget(liveKey: string, to: string): void {
    if (this.replaced.has(liveKey)) return;
    const from = this.base.source(liveKey);
    const attrs = this.base.getEdgeAttributes(liveKey);
    this.replaced.add(liveKey);
    this.removedOut.set(from, (this.removedOut.get(from) ?? 0) + 1);
    this.touched.add(from);
    this.writeEdge(from, to, {
      ...attrs,
      props: { ...attrs.props, successor_of: this.base.target(liveKey) },
    });
  }

  /** The edge of (type, from, to) as the overlay presents it, if there is one. */
  edgeAttributes(type: EdgeType, from: string, to: string): EdgeAttributes | undefined {
    const mine = this.edges.get(`${type}|${from}|${to}`);
    if (mine) return mine.attrs;
    if (!this.base.hasNode(from) || !this.base.hasNode(to)) return undefined;
    const key = findEdge(this.base, type, from, to);
    return key === undefined || this.replaced.has(key) ? undefined : this.base.getEdgeAttributes(key);
  }

  /**
   * What the overlay changes, as the graph writer lists its changes (GraphChanges): the gate patches a fork
   * of the live compiled graph with it instead of compiling the overlay (src/analysis/patched-search.ts).
   * A live edge it hides or re-states is removed, and its own edges come after the live ones, in the order
   * it added them, as forEachEdge presents them.
   */
  changes(): TakenChanges {
    const removedEdges = new Set<string>();
    for (const key of this.replaced) {
      const attrs = this.base.getEdgeAttributes(key);
      removedEdges.add(`${attrs.type}|${this.base.source(key)}|${this.base.target(key)}`);
    }
    const edges = new Set(removedEdges);
    for (const id of this.edges.keys()) {
      edges.delete(id);
      edges.add(id);
    }
    return { all: false, nodes: new Set(this.nodes.keys()), edges, removedNodes: new Set(), removedEdges };
  }

  /** The live edge of (type, from, to), when the live graph has one. */
  liveEdge(type: EdgeType, from: string, to: string): EdgeAttributes | undefined {
    if (!this.base.hasNode(from) || !this.base.hasNode(to)) return undefined;
    const key = findEdge(this.base, type, from, to);
    return key === undefined ? undefined : this.base.getEdgeAttributes(key);
  }

  /** Lays an envelope over the live graph, by the graph writer's rules. */
  apply(envelope: EventEnvelope, receivedAt: number): void {
    const remap = new Map<string, string>();
    const stitches = new Map<string, number>();
    for (const node of envelope.nodes) {
      if (!isNodeLabel(node.label) || typeof node.id !== 'string' || idLabel(node.id) !== node.label)
        continue;
      let id = node.id;
      let name = node.name;
      let props = { ...(node.properties ?? {}) };
      const reference = node.label === 'Image' ? props[RESOLVE_REF] : undefined;
      if (typeof reference === 'string') {
        delete props[RESOLVE_REF];
        const join = this.writer.resolveImage(reference, id);
        if (join) {
          for (const key of IMAGE_IDENTITY_PROPS) delete props[key];
          props = { ...props, resolution_method: join.method, resolution_confidence: join.confidence };
          if (join.id !== id) remap.set(id, join.id);
          id = join.id;
          if (join.confidence < 1) stitches.set(id, join.confidence);
        }
      }
      // Machines are named as the graph writer names them (src/identity/vm-name.ts): a VM named by an alias
      // (its instance id) is the node the estate names by its Name tag; a VM under a Name tag another
      // instance holds is not that instance.
      if (node.label === 'VirtualMachine') {
        const aliased = Array.isArray(props.aliases) ? undefined : this.writer.aliasOf(id);
        const other = otherInstanceName(props, this.attributesOf(id)?.props);
        const named =
          aliased !== undefined && this.hasNode(aliased) ? aliased : other && nodeId('VirtualMachine', other);
        if (named !== undefined && named !== id) {
          remap.set(id, named);
          id = named;
          if (other !== undefined) {
            name = other;
            props = { ...props, aliases: undefined, name_tag: props.name_tag ?? nameTagOf(node.name) };
          }
        }
      }
      const current = this.attributesOf(id);
      if (current) {
        if (this.base.hasNode(id)) {
          this.touched.add(id);
          if (!this.nodes.has(id)) this.stats.matchedNodes++;
        }
        // Copy on write: the live attributes object is never modified.
        this.nodes.set(id, { ...current, props: { ...current.props, ...props }, compileIndex: undefined });
      } else {
        this.nodes.set(id, { label: node.label, name, props, lastSeen: receivedAt });
        this.added.add(id);
        this.stats.addedNodes++;
      }
    }
    for (const raw of envelope.edges) {
      if (!isEdgeType(raw.type)) continue;
      const from = remap.get(raw.from) ?? raw.from;
      const to = remap.get(raw.to) ?? raw.to;
      if (from === to) continue;
      if (!this.hasNode(from) || !this.hasNode(to)) {
        this.stats.danglingEdges++;
        continue;
      }
      const attrs: EdgeAttributes = { type: raw.type, lastSeen: receivedAt };
      if (typeof raw.exploit_probability === 'number') attrs.p = raw.exploit_probability;
      if (raw.weight_basis) attrs.basis = raw.weight_basis;
      if (raw.resource_scoped) attrs.resourceScoped = true;
      if (raw.properties) attrs.props = { ...raw.properties };
      // A relationship between nodes the estate holds is about the estate, even with no node re-stated; so
      // is a new node's relationship to a live one the report names by id only (DECISIONS "Gate on new
      // nodes next to old ones"): the live end is what the change reaches.
      const liveFrom = this.base.hasNode(from);
      const liveTo = this.base.hasNode(to);
      if (liveFrom && liveTo) {
        this.touched.add(from);
        this.touched.add(to);
      } else if (liveFrom && this.added.has(to)) this.touched.add(from);
      else if (liveTo && this.added.has(from)) this.touched.add(to);
      const stitch = stitches.get(from) ?? stitches.get(to);
      if (stitch !== undefined) attrs.joinConfidence = stitch;
      this.writeEdge(from, to, attrs);
    }
  }

  private writeEdge(from: string, to: string, attrs: EdgeAttributes): void {
    const id = `${attrs.type}|${from}|${to}`;
    const mine = this.edges.get(id);
    if (mine) {
      mine.attrs = { ...mine.attrs, ...attrs, props: { ...mine.attrs.props, ...attrs.props } };
      return;
    }
    const liveKey =
      this.base.hasNode(from) && this.base.hasNode(to)
        ? findEdge(this.base, attrs.type, from, to)
        : undefined;
    if (liveKey !== undefined) {
      const old = this.base.getEdgeAttributes(liveKey);
      // As the writer does: a re-stated edge keeps what the report does not say.
      const merged: EdgeAttributes = {
        ...attrs,
        props: old.props || attrs.props ? { ...old.props, ...attrs.props } : undefined,
      };
      if (old.p !== attrs.p || old.basis !== attrs.basis || old.joinConfidence !== attrs.joinConfidence)
        this.stats.changedEdges++;
      this.replaced.add(liveKey);
      this.edges.set(id, { key: `overlay:${this.nextKey++}`, from, to, attrs: merged, replaces: liveKey });
      return;
    }
    this.edges.set(id, { key: `overlay:${this.nextKey++}`, from, to, attrs });
    this.addedOut.set(from, (this.addedOut.get(from) ?? 0) + 1);
    this.stats.addedEdges++;
  }

  private forEachAdjacent(id: string, direction: 'in' | 'out', callback: EdgeVisitor): void {
    if (this.base.hasNode(id)) {
      const visit = (key: string, attrs: EdgeAttributes, source: string, target: string) => {
        if (this.replaced.has(key)) return;
        callback(key, attrs, source, target, this.getNodeAttributes(source), this.getNodeAttributes(target));
      };
      if (direction === 'out') this.base.forEachOutEdge(id, visit);
      else this.base.forEachInEdge(id, visit);
    }
    for (const e of this.edges.values()) {
      if ((direction === 'out' ? e.from : e.to) !== id) continue;
      callback(e.key, e.attrs, e.from, e.to, this.getNodeAttributes(e.from), this.getNodeAttributes(e.to));
    }
  }
}
