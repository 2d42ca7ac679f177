// The only graph writer. Upserts nodes (merging properties, stamping last_seen) and edges keyed by
// (type, from, to); parks an edge whose endpoint has not arrived and lands it in the write that brings
// the endpoint; drops, with a log line, any label or type outside the vocabulary, whatever route it came by.
import { TimedTruth, VALID_UNTIL } from './truth-expiry.js';
import type { EnvelopeEdge, EventEnvelope } from '../ingest/envelope.js';
import type { Log } from '../log/logger.js';
import { parseImageRef } from '../identity/image-ref.js';
import { nameTagOf, otherInstanceName } from '../identity/vm-name.js';
import { edgeKey, idLabel, nodeId } from './ids.js';
import {
  IMAGE_IDENTITY_PROPS,
  ImageIdentity,
  inPlaceMethod,
  JOIN_CONFIDENCE,
  RESOLUTION_PENDING,
  RESOLVE_REF,
  type ResolutionMethod,
  type Join,
} from './image-identity.js';
import { findEdge, GraphChanges, type EdgeAttributes, type TenantGraph } from './model.js';
import { ParkedEdges, type ParkedEdge } from './parked-edges.js';
import { isGraphEdgeKey, ScopeLedger, type ScopeState } from './scope-ledger.js';
import { isEdgeType, isNodeLabel, type EdgeType, type NodeLabel } from './vocabulary.js';

export interface WriteResult {
  nodes: number;
  edges: number;
  parked: number;
  landed: number;
  dropped: number;
}

export interface SweepResult {
  nodes: number;
  edges: number;
  /** edges still waiting for an endpoint that the snapshot no longer holds, dropped from the waiting room */
  parked: number;
  /** what GRAPH_SWEEP=false kept that the snapshot would have retracted (nodes, edges and parked edges) */
  kept: number;
}

/** How a reference node of the envelope being applied was resolved: the stitched edges' join confidence. */
type Stitch = number | 'pending';

export type DropReason = 'unknown_label' | 'unknown_edge_type' | 'malformed' | 'parked_expired';

export interface GraphWriterOptions {
  log: Log;
  /** How long a parked edge waits for its endpoint (spec: up to 7 days). */
  parkedTtlMs: number;
  onDrop?: (reason: DropReason, count: number) => void;
}

export class GraphWriter {
  /** Bumped by every change an analysis could see (topology, properties, probabilities). */
  private analysisVersion = 0;
  private readonly parked = new ParkedEdges();
  readonly images: ImageIdentity;
  /** alias node id -> the node it names (noteAliases) */
  private readonly aliases = new Map<string, string>();
  /** The store slot of the edge the last writeEdge wrote; its key (writtenKey) is made only if a scope asks. */
  private writtenSlot = -1;
  readonly scopes = new ScopeLedger();
  /** The earliest instant an edge of the graph ends (truth-expiry.ts). */
  private readonly timed = new TimedTruth();
  /** What changed since the analysis last looked: every write an analysis could see is noted here. */
  readonly changes = new GraphChanges();

  constructor(
    readonly graph: TenantGraph,
    private readonly options: GraphWriterOptions,
  ) {
    this.images = new ImageIdentity(graph);
  }

  /** The graph key of the edge the last writeEdge wrote (its scope-ledger item). */
  private get writtenKey(): string {
    return this.graph.keyOfSlot(this.writtenSlot);
  }

  get version(): number {
    return this.analysisVersion;
  }

  get pendingEdges(): number {
    return this.parked.size;
  }

  /**
   * Applies one envelope (one bus chunk) received at `receivedAt` (epoch ms). With `scope`, the envelope
   * belongs to a complete snapshot of that scope: call `completeScope` after its last chunk.
   */
  apply(envelope: EventEnvelope, receivedAt: number, scope?: string): WriteResult {
    const result: WriteResult = { nodes: 0, edges: 0, parked: 0, landed: 0, dropped: 0 };
    const nodes = Array.isArray(envelope?.nodes) ? envelope.nodes : [];
    const edges = Array.isArray(envelope?.edges) ? envelope.edges : [];
    const arrived: string[] = [];
    // Image references resolved in this envelope: their id as sent -> the node they joined.
    let remap: Map<string, string> | undefined;
    let stitches: Map<string, Stitch> | undefined;
    for (const node of nodes) {
      const label: unknown = node?.label;
      if (!isNodeLabel(label)) {
        this.drop('unknown_label', { source: envelope.source, label }, result);
        continue;
      }
      if (typeof node.id !== 'string' || idLabel(node.id) !== label || typeof node.name !== 'string') {
        this.drop('malformed', { source: envelope.source, id: node?.id }, result);
        continue;
      }
      let id = node.id;
      let name = node.name;
      let props = node.properties && typeof node.properties === 'object' ? node.properties : {};
      // A node named by one of its aliases (a VM's instance id, once a Name tag names it) is that node.
      const aliased = this.aliases.get(id);
      if (aliased !== undefined && this.graph.hasNode(aliased) && !Array.isArray(props.aliases)) {
        (remap ??= new Map()).set(id, aliased);
        id = aliased;
        name = this.graph.getNodeAttributes(id).name;
      }
      // A record that names an asset without its account (a dataclass finding) joins the one asset of that
      // label and name in any account, when exactly one exists (DECISIONS "Accounts").
      if (props[ACCOUNT_UNKNOWN] === true && !this.graph.hasNode(id)) {
        const unique = this.uniqueInAnyAccount(label, name);
        if (unique !== undefined) {
          (remap ??= new Map()).set(id, unique);
          id = unique;
          name = this.graph.getNodeAttributes(id).name;
          props = withoutKey(props, ACCOUNT_UNKNOWN);
        }
      }
      const reference = label === 'Image' ? props[RESOLVE_REF] : undefined;
      if (typeof reference === 'string') {
        const resolved = this.resolveReference(id, reference, props);
        props = resolved.props;
        if (resolved.id !== id) {
          (remap ??= new Map()).set(id, resolved.id);
          id = resolved.id;
          name = this.graph.getNodeAttributes(id).name;
        }
        (stitches ??= new Map()).set(id, resolved.stitch);
      }
      // Another instance under a Name tag a machine in the graph holds (an Auto Scaling group's members, seen
      // in different reports): not that machine. It takes its instance id's name (src/identity/vm-name.ts).
      if (label === 'VirtualMachine' && Array.isArray(props.aliases) && this.graph.hasNode(id)) {
        const other = otherInstanceName(props, this.graph.getNodeAttributes(id).props);
        if (other !== undefined) {
          (remap ??= new Map()).set(id, nodeId(label, other));
          id = nodeId(label, other);
          name = other;
          props = {
            ...withoutKey(props, 'aliases'),
            name_tag: props.name_tag ?? nameTagOf(node.name),
          };
        }
      }
      const slot = this.graph.nodeSlot(id);
      const existed = slot >= 0;
      if (existed) {
        const attrs = this.graph.attributesAt(slot);
        if (changesProps(attrs.props, props) || attrs.name !== name) {
          this.analysisVersion++;
          this.changes.nodeChanged(id);
        }
        const wasPending = typeof attrs.props[RESOLUTION_PENDING] === 'string';
        attrs.props = { ...attrs.props, ...props };
        attrs.name = name;
        if (receivedAt > attrs.lastSeen) attrs.lastSeen = receivedAt;
        // A scan of an image that references were waiting for under the same tag: they join it now.
        if (wasPending && typeof reference !== 'string') this.joinPendingInPlace(id);
      } else {
        this.graph.addNode(id, {
          label,
          name,
          props: ownProps(props),
          lastSeen: receivedAt,
          // In the record's shape from the start: added later, it costs ~40 bytes a node (model.ts).
          compileIndex: undefined,
        });
        this.changes.nodeAdded(id);
        this.analysisVersion++;
        if (this.parked.waitsFor(id)) arrived.push(id);
      }
      if (label === 'Image' && typeof reference !== 'string') this.noteScannedImage(id);
      if (Array.isArray(props.aliases)) this.noteAliases(id, label, props.aliases);
      // The account-qualified asset arriving after an unqualified record of it: that record lands on it.
      if (!existed) {
        const bare = ACCOUNT_QUALIFIED.exec(name)?.[1];
        const waiting = bare !== undefined ? nodeId(label, bare) : undefined;
        if (
          waiting !== undefined &&
          this.graph.hasNode(waiting) &&
          this.graph.getNodeAttributes(waiting).props[ACCOUNT_UNKNOWN] === true
        ) {
          this.absorb(waiting, id);
          const attrs = this.graph.getNodeAttributes(id);
          attrs.props = withoutKey(attrs.props, ACCOUNT_UNKNOWN);
        }
      }
      if (scope !== undefined) this.scopes.claim(scope, id, existed);
      else if (this.scopes.scopeCount) this.scopes.assert(id);
      result.nodes++;
    }
    for (const raw of edges) {
      let edge = raw;
      if (this.aliases.size && (this.aliases.has(raw?.from) || this.aliases.has(raw?.to))) {
        const from = this.aliases.get(raw.from) ?? raw.from;
        const to = this.aliases.get(raw.to) ?? raw.to;
        if (this.graph.hasNode(from) && this.graph.hasNode(to)) edge = { ...raw, from, to };
      }
      if (remap && (remap.has(raw?.from) || remap.has(raw?.to))) {
        edge = { ...raw, from: remap.get(raw.from) ?? raw.from, to: remap.get(raw.to) ?? raw.to };
      }
      const stitch = stitches && (stitches.get(edge?.from) ?? stitches.get(edge?.to));
      this.upsertEdge(edge, receivedAt, envelope.source, result, scope, stitch);
    }
    for (const id of arrived) this.landParkedFor(id, result);
    return result;
  }

  /** The node an alias (a VM's qualified instance id) names, if it names one (the gate's overlay asks). */
  aliasOf(id: string): string | undefined {
    return this.aliases.get(id);
  }

  /** Where an image reference would join now, without writing anything (the gate's overlay asks). */
  resolveImage(reference: string, ownId: string): Join | undefined {
    const ref = parseImageRef(reference);
    return ref ? this.images.resolve(ref, ownId) : undefined;
  }

  /** Where an Image reference lands (see image-identity.ts), with the properties it brings. */
  private resolveReference(
    id: string,
    reference: string,
    incoming: Record<string, unknown>,
  ): { id: string; props: Record<string, unknown>; stitch: Stitch } {
    const props = { ...incoming };
    delete props[RESOLVE_REF];
    const ref = parseImageRef(reference);
    if (!ref) return { id, props, stitch: 1 };
    const join = this.images.resolve(ref, id);
    if (!join) {
      if (!this.graph.hasNode(id) || this.images.isPending(id)) {
        props[RESOLUTION_PENDING] = reference;
        this.images.notePending(id, ref);
      }
      return { id, props, stitch: 'pending' };
    }
    // The scan's own description of the image wins over what a reference says about it.
    for (const key of IMAGE_IDENTITY_PROPS) delete props[key];
    props.resolution_method = join.method;
    props.resolution_confidence = join.confidence;
    props.resolution_alias = reference;
    return { id: join.id, props, stitch: join.confidence };
  }

  /** Indexes a scanned image and joins the references that were waiting for it by digest or bare name. */
  private noteScannedImage(id: string): void {
    for (const pending of this.images.noteScanned(id, this.graph.getNodeAttributes(id)))
      this.mergePending(pending.id, id, pending.method);
  }

  /** A pending reference under the scanned image's own id joins by tag, or by the digest it pins. */
  private joinPendingInPlace(id: string): void {
    const attrs = this.graph.getNodeAttributes(id);
    const alias = attrs.props[RESOLUTION_PENDING];
    delete attrs.props[RESOLUTION_PENDING];
    const method = inPlaceMethod(alias, attrs);
    const confidence = JOIN_CONFIDENCE[method];
    Object.assign(attrs.props, {
      resolution_method: method,
      resolution_confidence: confidence,
      resolution_alias: alias,
    });
    const settle = (key: string, edge: EdgeAttributes, source: string, target: string) => {
      if (!edge.joinPending) return;
      delete edge.joinPending;
      if (confidence < 1) edge.joinConfidence = confidence;
      else delete edge.joinConfidence;
      this.graph.replaceEdgeAttributes(key, edge);
      this.changes.edgeChanged(edge.type, source, target);
    };
    this.graph.forEachInEdge(id, settle);
    this.graph.forEachOutEdge(id, settle);
    this.changes.nodeChanged(id);
    this.analysisVersion++;
  }

  /** Moves a pending reference node's edges and properties onto the image it resolved to, then drops it. */
  private mergePending(pendingId: string, imageId: string, method: ResolutionMethod): void {
    const graph = this.graph;
    const pending = graph.getNodeAttributes(pendingId);
    const image = graph.getNodeAttributes(imageId);
    const props = { ...pending.props };
    const alias = props[RESOLUTION_PENDING];
    delete props[RESOLUTION_PENDING];
    for (const key of IMAGE_IDENTITY_PROPS) delete props[key];
    image.props = {
      ...image.props,
      ...props,
      resolution_method: method,
      resolution_confidence: JOIN_CONFIDENCE[method],
      resolution_alias: alias,
    };
    this.changes.nodeChanged(imageId);
    this.moveEdges(pendingId, imageId, (moved) => {
      if (moved.joinPending) {
        delete moved.joinPending;
        moved.joinConfidence = JOIN_CONFIDENCE[method];
      }
    });
  }

  /** Moves a node's edges onto another (each copy adjusted by `adjust`), then drops the node. */
  private moveEdges(fromId: string, toId: string, adjust?: (attrs: EdgeAttributes) => void): void {
    const graph = this.graph;
    const moves: { from: string; to: string; attrs: EdgeAttributes }[] = [];
    graph.forEachEdge(fromId, (_key, attrs, source, target) => {
      const moved = { ...attrs };
      adjust?.(moved);
      moves.push({
        from: source === fromId ? toId : source,
        to: target === fromId ? toId : target,
        attrs: moved,
      });
    });
    this.dropNode(fromId);
    for (const move of moves) {
      if (move.from === move.to) continue;
      const existing = findEdge(graph, move.attrs.type, move.from, move.to);
      if (existing !== undefined) {
        graph.replaceEdgeAttributes(existing, move.attrs);
        this.changes.edgeChanged(move.attrs.type, move.from, move.to);
      } else this.addEdge(move.from, move.to, move.attrs);
    }
    this.analysisVersion++;
  }

  private upsertEdge(
    edge: EnvelopeEdge,
    receivedAt: number,
    source: string,
    result: WriteResult,
    scope?: string,
    stitch?: Stitch,
  ): void {
    const type: unknown = edge?.type;
    if (!isEdgeType(type)) {
      this.drop('unknown_edge_type', { source, type }, result);
      return;
    }
    if (typeof edge.from !== 'string' || typeof edge.to !== 'string' || edge.from === edge.to) {
      this.drop('malformed', { source, from: edge?.from, to: edge?.to }, result);
      return;
    }
    // One lookup per endpoint: the slots serve the edge lookup and the write that follow.
    const fromSlot = this.graph.nodeSlot(edge.from);
    const toSlot = this.graph.nodeSlot(edge.to);
    const fromMissing = fromSlot < 0;
    const toMissing = toSlot < 0;
    if (fromMissing || toMissing) {
      // A node in the graph passed the vocabulary check when it landed; only absent endpoints need one.
      const missing = fromMissing && toMissing ? [edge.from, edge.to] : [fromMissing ? edge.from : edge.to];
      const bad = missing.find((id) => !isNodeLabel(idLabel(id)));
      if (bad !== undefined) {
        this.drop('unknown_label', { source, id: bad }, result);
        return;
      }
      const key = edgeKey(type, edge.from, edge.to);
      this.parked.park(key, edge, receivedAt, missing);
      if (scope !== undefined) this.scopes.claim(scope, key, false);
      result.parked++;
      return;
    }
    const existed = this.writeEdge(edge, receivedAt, stitch, fromSlot, toSlot);
    // The ledger knows an edge in the graph by its graph key (scope-ledger.ts).
    if (scope !== undefined) this.scopes.claim(scope, this.writtenKey, existed);
    else if (this.scopes.scopeCount) this.scopes.assert(this.writtenKey);
    result.edges++;
  }

  /**
   * Writes an edge whose endpoints are present; returns whether it existed before (its key: writtenKey).
   * `fromSlot` and `toSlot`: the endpoints' slots in the store, when the caller has looked them up.
   */
  private writeEdge(
    edge: EnvelopeEdge,
    receivedAt: number,
    stitch?: Stitch,
    fromSlot = this.graph.nodeSlot(edge.from),
    toSlot = this.graph.nodeSlot(edge.to),
  ): boolean {
    const type = edge.type as EdgeType;
    const from = edge.from;
    const to = edge.to;
    const existing = this.graph.findEdgeSlot(type, fromSlot, toSlot);
    const attrs: EdgeAttributes = { type, lastSeen: receivedAt };
    if (typeof edge.exploit_probability === 'number') attrs.p = edge.exploit_probability;
    if (edge.weight_basis) attrs.basis = edge.weight_basis;
    if (edge.resource_scoped) attrs.resourceScoped = true;
    if (edge.properties && typeof edge.properties === 'object') attrs.props = { ...edge.properties };
    if (stitch === 'pending') attrs.joinPending = true;
    else if (stitch !== undefined && stitch < 1) attrs.joinConfidence = stitch;
    if (existing >= 0) {
      const old = this.graph.edgeAttributesAt(existing);
      if (
        old.p !== attrs.p ||
        old.basis !== attrs.basis ||
        old.resourceScoped !== attrs.resourceScoped ||
        old.joinConfidence !== attrs.joinConfidence
      ) {
        this.analysisVersion++;
        this.changes.edgeChanged(type, from, to);
      }
      if (old.props && attrs.props) {
        attrs.props = { ...old.props, ...attrs.props };
        // Restated without an end: it no longer ends (truth-expiry.ts).
        if (!(VALID_UNTIL in edge.properties!)) delete attrs.props[VALID_UNTIL];
      } else if (old.props) attrs.props = old.props;
      this.timed.note(attrs.props);
      attrs.lastSeen = Math.max(old.lastSeen, receivedAt);
      this.graph.setEdgeAttributesAt(existing, attrs);
      this.writtenSlot = existing;
      return true;
    }
    this.writtenSlot = this.graph.addEdgeSlots(fromSlot, toSlot, attrs);
    this.changes.edgeAdded(type, from, to);
    this.timed.note(attrs.props);
    this.analysisVersion++;
    return false;
  }

  /** Adds an edge under the store's next key (they never leave the process). */
  private addEdge(from: string, to: string, attrs: EdgeAttributes): void {
    this.writtenSlot = this.graph.slotOfEdge(this.graph.addEdge(from, to, attrs));
    this.changes.edgeAdded(attrs.type, from, to);
  }

  /** Restores an edge from a snapshot (its endpoints restored before it). */
  restoreEdge(from: string, to: string, attrs: EdgeAttributes): void {
    this.addEdge(from, to, attrs);
    this.timed.note(attrs.props);
  }

  /** Retracts the edges whose `valid_until` has passed by `now` (truth-expiry.ts); returns how many. */
  expireTimed(now: number): number {
    const ended = this.timed.ended(this.graph, now);
    for (const key of ended) {
      this.changes.edgeRemoved(
        this.graph.getEdgeAttribute(key, 'type'),
        this.graph.source(key),
        this.graph.target(key),
      );
      if (this.scopes.scopeCount) this.scopes.forget(key);
      this.graph.dropEdge(key);
    }
    if (ended.length) this.analysisVersion++;
    return ended.length;
  }

  /**
   * Ends a complete snapshot of `scope` (after its last chunk): retracts what the scope's previous snapshot
   * held and this one omitted, unless another scope still claims it or a partial report asserted it.
   */
  completeScope(scope: string, options: { retract?: boolean } = {}): SweepResult {
    const swept: SweepResult = { nodes: 0, edges: 0, parked: 0, kept: 0 };
    for (const item of this.scopes.complete(scope)) {
      // GRAPH_SWEEP=false: the ledger still moves on (the next snapshot claims afresh), nothing is retracted;
      // what is kept is no scope's any more, as a partial report's assertion, and ages out by GRAPH_TTL.
      if (options.retract === false) {
        swept.kept++;
        continue;
      }
      if (isGraphEdgeKey(item)) {
        if (!this.graph.hasEdge(item)) continue;
        const type = this.graph.getEdgeAttribute(item, 'type');
        const from = this.graph.source(item);
        const to = this.graph.target(item);
        this.graph.dropEdge(item);
        this.changes.edgeRemoved(type, from, to);
        swept.edges++;
        continue;
      }
      const bar = item.indexOf('|');
      if (bar < 0) {
        if (!this.graph.hasNode(item)) continue;
        swept.edges += this.graph.degree(item);
        this.dropNode(item);
        swept.nodes++;
        continue;
      }
      // A parked edge leaves the waiting room; one a snapshot named before its endpoints were back is
      // found by its triple.
      if (this.parked.unpark(item)) {
        swept.parked++;
        continue;
      }
      const [type, from, to] = item.split('|');
      if (!this.graph.hasNode(from) || !this.graph.hasNode(to)) continue;
      const key = findEdge(this.graph, type as EdgeType, from, to);
      if (key === undefined) continue;
      this.graph.dropEdge(key);
      this.changes.edgeRemoved(type as EdgeType, from, to);
      swept.edges++;
    }
    if (swept.nodes || swept.edges) this.analysisVersion++;
    return swept;
  }

  /** Drops a node and its edges, and forgets every claim on them. */
  private dropNode(id: string): void {
    if (this.scopes.scopeCount) {
      this.graph.forEachEdge(id, (key) => this.scopes.forget(key));
      this.scopes.forget(id);
    }
    this.graph.dropNode(id);
    this.changes.nodeRemoved(id);
  }

  private landParkedFor(id: string, result: WriteResult): void {
    for (const key of this.parked.keysWaitingFor(id)) {
      const entry = this.parked.get(key);
      if (!entry) continue;
      if (!this.graph.hasNode(entry.edge.from) || !this.graph.hasNode(entry.edge.to)) continue;
      this.parked.unpark(key);
      this.writeEdge(entry.edge, entry.receivedAt);
      if (this.scopes.scopeCount) this.scopes.rename(key, this.writtenKey);
      result.landed++;
    }
  }

  /** Drops parked edges that waited longer than the TTL; returns how many. */
  expireParked(now: number): number {
    const expired = this.parked.expire(now, this.options.parkedTtlMs);
    if (expired) {
      this.options.onDrop?.('parked_expired', expired);
      this.options.log.info({ expired }, 'parked edges expired before their endpoint arrived');
    }
    return expired;
  }

  /** Removes nodes and edges not re-seen since `cutoff` (epoch ms); GRAPH_TTL staleness pruning. */
  prune(cutoff: number): { nodes: number; edges: number } {
    const graph = this.graph;
    const edgesBefore = graph.size;
    const staleEdges: string[] = [];
    graph.forEachEdge((key, attrs, source, target) => {
      if (attrs.lastSeen < cutoff) {
        staleEdges.push(key);
        this.changes.edgeRemoved(attrs.type, source, target);
        if (this.scopes.scopeCount) this.scopes.forget(key);
      }
    });
    for (const key of staleEdges) graph.dropEdge(key);
    const staleNodes: string[] = [];
    graph.forEachNode((id, attrs) => {
      if (attrs.lastSeen < cutoff) staleNodes.push(id);
    });
    // Dropping a node drops its remaining edges too; they count as pruned edges.
    for (const id of staleNodes) this.dropNode(id);
    const removed = { nodes: staleNodes.length, edges: edgesBefore - graph.size };
    if (removed.nodes || removed.edges) this.analysisVersion++;
    return removed;
  }

  /** Parked edges as they would be journaled, for snapshots. */
  parkedEntries(): Iterable<[string, ParkedEdge]> {
    return this.parked.entries();
  }

  /** Restores a parked edge from a snapshot. */
  restoreParked(edge: EnvelopeEdge, receivedAt: number): void {
    const missing = [edge.from, edge.to].filter((id) => !this.graph.hasNode(id));
    if (missing.length) this.parked.park(edgeKey(edge.type, edge.from, edge.to), edge, receivedAt, missing);
    else this.writeEdge(edge, receivedAt);
  }

  /** The scope ledger as a snapshot stores it: every edge as `type|from|to` (scope-ledger.ts). */
  serializeScopes(): ScopeState {
    return this.scopes.serialize((item) => {
      if (!isGraphEdgeKey(item)) return item;
      if (!this.graph.hasEdge(item)) return undefined;
      return edgeKey(
        this.graph.getEdgeAttribute(item, 'type'),
        this.graph.source(item),
        this.graph.target(item),
      );
    });
  }

  /** Restores the scope ledger of a snapshot, after its nodes, edges and parked edges. */
  restoreScopes(state: ScopeState): void {
    this.scopes.restore(state, (stored) => {
      const bar = stored.indexOf('|');
      if (bar < 0 || this.parked.has(stored)) return stored;
      const [type, from, to] = stored.split('|');
      if (!this.graph.hasNode(from) || !this.graph.hasNode(to)) return stored;
      return findEdge(this.graph, type as EdgeType, from, to) ?? stored;
    });
  }

  /** Rebuilds derived indexes after a bulk restore that bypassed apply(). */
  reindex(): void {
    this.images.reindex();
    this.aliases.clear();
    this.graph.forEachNode((id, attrs) => {
      if (Array.isArray(attrs.props.aliases)) this.noteAliases(id, attrs.label, attrs.props.aliases);
    });
  }

  /**
   * Other names of a node (DECISIONS.md "Names": a VM named by its Name tag keeps its instance id as an
   * alias): later reports naming it so land on it, and a node already there under an alias is merged in.
   */
  private noteAliases(id: string, label: NodeLabel, names: unknown[]): void {
    for (const alias of names) {
      if (typeof alias !== 'string' || !alias) continue;
      const aliasId = nodeId(label, alias);
      if (aliasId === id) continue;
      this.aliases.set(aliasId, id);
      if (this.graph.hasNode(aliasId)) this.absorb(aliasId, id);
    }
  }

  /** The one node of this label named `<12-digit account>/<name>`, if exactly one exists. */
  private uniqueInAnyAccount(label: NodeLabel, name: string): string | undefined {
    const suffix = `/${name.toLowerCase()}`;
    let found: string | undefined;
    let count = 0;
    this.graph.forEachNode((id, attrs) => {
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
  private absorb(fromId: string, toId: string): void {
    const graph = this.graph;
    const from = graph.getNodeAttributes(fromId);
    const to = graph.getNodeAttributes(toId);
    to.props = { ...from.props, ...to.props };
    this.changes.nodeChanged(toId);
    this.moveEdges(fromId, toId);
  }

  /**
   * Sets threat intel (`kev`, `epss`, ...) on CVE nodes: those given, or every CVE in the graph. A change
   * reprices the hops priced from the CVE (live-graph follows AFFECTS and DEPENDS_ON). Returns how many
   * CVE nodes changed.
   */
  enrichCves(lookup: (cve: string) => Record<string, unknown> | undefined, ids?: Iterable<string>): number {
    let changed = 0;
    const enrich = (id: string) => {
      if (!this.graph.hasNode(id)) return;
      const attrs = this.graph.getNodeAttributes(id);
      if (attrs.label !== 'CVE') return;
      const intel = lookup(attrs.name);
      if (!intel || !changesProps(attrs.props, intel)) return;
      attrs.props = { ...attrs.props, ...intel };
      this.analysisVersion++;
      this.changes.nodeChanged(id);
      changed++;
    };
    if (ids) for (const id of ids) enrich(id);
    else this.graph.forEachNode((id) => enrich(id));
    return changed;
  }

  /** Marks the graph changed after a bulk restore that bypassed apply(). */
  touch(): void {
    this.analysisVersion++;
    this.changes.everything();
  }

  private drop(reason: DropReason, detail: Record<string, unknown>, result: WriteResult): void {
    result.dropped++;
    this.options.onDrop?.(reason, 1);
    this.options.log.warn(
      { reason, ...detail },
      'graph writer dropped a value outside the vocabulary or malformed',
    );
  }
}

/** Set by a source naming an asset without its account: join the one asset of that name in any account. */
export const ACCOUNT_UNKNOWN = 'account_unknown';
const ACCOUNT_QUALIFIED = /^\d{12}\/(.+)$/;

function withoutKey(props: Record<string, unknown>, key: string): Record<string, unknown> {
  const { [key]: _dropped, ...rest } = props;
  return rest;
}

/** Most nodes of a large estate carry no properties: they share one frozen empty object (props are replaced, never mutated, once stored). */
const NO_PROPS: Record<string, unknown> = Object.freeze({});

function ownProps(props: Record<string, unknown>): Record<string, unknown> {
  for (const _key in props) return { ...props };
  return NO_PROPS;
}

function changesProps(current: Record<string, unknown>, incoming: Record<string, unknown>): boolean {
  for (const key in incoming) {
    if (current[key] !== incoming[key]) return true;
  }
  return false;
}
