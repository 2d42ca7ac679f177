// The only graph writer. Upserts nodes (merging properties, stamping last_seen) and edges keyed by
// (type, from, to); parks an edge whose endpoint has not arrived and lands it in the write that brings
// the endpoint; drops, with a log line, any label or type outside the vocabulary, whatever route it came by.
import { TimedTruth, VALID_UNTIL } from './truth-expiry.js';
import type { EnvelopeEdge, EventEnvelope } from '../ingest/envelope.js';
import type { Log } from '../log/logger.js';
import { parseImageRef } from '../identity/image-ref.js';
import { nameTagOf, otherInstanceName } from '../identity/vm-name.js';
import { ACCOUNT_QUALIFIED, ACCOUNT_UNKNOWN, AccountIdentity, withoutKey } from './account-identity.js';
import { edgeKey, idLabel, nodeId } from './ids.js';
import { ImageIdentity, RESOLUTION_PENDING, RESOLVE_REF, type Join } from './image-identity.js';
import { ImageStitching, type Stitch } from './image-stitching.js';
import { GraphChanges, type EdgeAttributes, type TenantGraph } from './model.js';
import { ParkedEdges, type ParkedEdge } from './parked-edges.js';
import { ScopeLedger, type ScopeState } from './scope-ledger.js';
import { Sweeps, type SweepResult } from './sweeps.js';
import { isEdgeType, isNodeLabel, type EdgeType } from './vocabulary.js';
import type { WriterEdits } from './writer-edits.js';

export type { SweepResult } from './sweeps.js';

export interface WriteResult {
  nodes: number;
  edges: number;
  parked: number;
  landed: number;
  dropped: number;
}

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
  /** Image references stitched to scanned images (image-stitching.ts). */
  private readonly stitching: ImageStitching;
  /** Aliases and account-less names (account-identity.ts). */
  private readonly accounts: AccountIdentity;
  /** Snapshot scope sweeps, truth expiry and staleness pruning (sweeps.ts). */
  private readonly sweeps: Sweeps;

  constructor(
    readonly graph: TenantGraph,
    private readonly options: GraphWriterOptions,
  ) {
    this.images = new ImageIdentity(graph);
    const edits: WriterEdits = {
      graph,
      changes: this.changes,
      bump: () => {
        this.analysisVersion++;
      },
      dropNode: (id) => this.dropNode(id),
      addEdge: (from, to, attrs) => this.addEdge(from, to, attrs),
    };
    this.stitching = new ImageStitching(edits, this.images);
    this.accounts = new AccountIdentity(edits, this.aliases);
    this.sweeps = new Sweeps(edits, this.scopes, this.parked, this.timed);
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
        const unique = this.accounts.uniqueInAnyAccount(label, name);
        if (unique !== undefined) {
          (remap ??= new Map()).set(id, unique);
          id = unique;
          name = this.graph.getNodeAttributes(id).name;
          props = withoutKey(props, ACCOUNT_UNKNOWN);
        }
      }
      const reference = label === 'Image' ? props[RESOLVE_REF] : undefined;
      if (typeof reference === 'string') {
        const resolved = this.stitching.resolveReference(id, reference, props);
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
        if (wasPending && typeof reference !== 'string') this.stitching.joinPendingInPlace(id);
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
      if (label === 'Image' && typeof reference !== 'string') this.stitching.noteScannedImage(id);
      if (Array.isArray(props.aliases)) this.accounts.noteAliases(id, label, props.aliases);
      // The account-qualified asset arriving after an unqualified record of it: that record lands on it.
      if (!existed) {
        const bare = ACCOUNT_QUALIFIED.exec(name)?.[1];
        const waiting = bare !== undefined ? nodeId(label, bare) : undefined;
        if (
          waiting !== undefined &&
          this.graph.hasNode(waiting) &&
          this.graph.getNodeAttributes(waiting).props[ACCOUNT_UNKNOWN] === true
        ) {
          this.accounts.absorb(waiting, id);
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
    return this.sweeps.expireTimed(now);
  }

  /**
   * Ends a complete snapshot of `scope` (after its last chunk): retracts what the scope's previous snapshot
   * held and this one omitted, unless another scope still claims it or a partial report asserted it.
   */
  completeScope(scope: string, options: { retract?: boolean } = {}): SweepResult {
    return this.sweeps.completeScope(scope, options);
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
    return this.sweeps.prune(cutoff);
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
    return this.sweeps.serializeScopes();
  }

  /** Restores the scope ledger of a snapshot, after its nodes, edges and parked edges. */
  restoreScopes(state: ScopeState): void {
    this.sweeps.restoreScopes(state);
  }

  /** Rebuilds derived indexes after a bulk restore that bypassed apply(). */
  reindex(): void {
    this.images.reindex();
    this.aliases.clear();
    this.graph.forEachNode((id, attrs) => {
      if (Array.isArray(attrs.props.aliases)) this.accounts.noteAliases(id, attrs.label, attrs.props.aliases);
    });
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
