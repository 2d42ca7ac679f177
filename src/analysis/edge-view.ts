// A copy-on-write view of a compiled graph with some hops removed or repriced (what-if, remediation
// verification): the structure (nodes, adjacency, types, bases) is shared with the graph it views; only the
// priced arrays (edgeP and the per-slot search costs fUnits, rUnits) are copied, once, on
// the first change. The same search (best-paths.ts), simulation and k-shortest routes run on it unchanged.
// A change can also take away a target's direct access (a public access block).
import { hopUnits, type CompiledGraph } from './compiled-graph.js';

export class EdgeView {
  /** The graph as changed; the original until the first change. */
  graph: CompiledGraph;
  private readonly changed = new Map<number, number>();
  private readonly closedDirect = new Set<number>();
  private copied = false;

  constructor(readonly base: CompiledGraph) {
    this.graph = base;
  }

  /** Sets hop `edge` to probability `p` (0 removes it). */
  reprice(edge: number, p: number): void {
    this.copy();
    const g = this.graph;
    if (!this.changed.has(edge)) this.changed.set(edge, g.edgeP[edge]);
    const units = hopUnits(p);
    g.edgeP[edge] = p;
    const from = g.edgeFrom[edge];
    for (let s = g.fStart[from], end = g.fEnd[from]; s < end; s++)
      if (g.fEdges[s] === edge) g.fUnits[s] = units;
    const to = g.edgeTo[edge];
    for (let r = g.rStart[to], end = g.rEnd[to]; r < end; r++) if (g.rEdges[r] === edge) g.rUnits[r] = units;
  }

  /** Puts hop `edge` back at its price before the first change. */
  undo(edge: number): void {
    const before = this.changed.get(edge);
    if (before === undefined) return;
    this.reprice(edge, before);
    this.changed.delete(edge);
  }

  /** Gives target `node` its direct access back. */
  reopenDirectAccess(node: number): void {
    if (!this.closedDirect.delete(node)) return;
    this.graph.directAccess = Int32Array.from(this.base.directAccess).filter(
      (t) => !this.closedDirect.has(t),
    );
  }

  remove(edge: number): void {
    this.reprice(edge, 0);
  }

  /** Takes away the direct access of target `node` (its public access is blocked). */
  closeDirectAccess(node: number): void {
    if (this.closedDirect.has(node)) return;
    this.closedDirect.add(node);
    this.copy();
    this.graph.directAccess = Int32Array.from(this.base.directAccess).filter(
      (t) => !this.closedDirect.has(t),
    );
  }

  /** Undoes every change (the copies are kept for the next ones). */
  reset(): void {
    for (const [edge, p] of [...this.changed]) this.reprice(edge, p);
    this.changed.clear();
    if (this.closedDirect.size) {
      this.closedDirect.clear();
      this.graph.directAccess = this.base.directAccess;
    }
  }

  /** The hops changed so far, with their probability before the change. */
  changes(): ReadonlyMap<number, number> {
    return this.changed;
  }

  /** Copies the priced arrays now, so searches set up on `graph` see every later change. */
  detach(): CompiledGraph {
    this.copy();
    return this.graph;
  }

  private copy(): void {
    if (this.copied) return;
    this.copied = true;
    const b = this.base;
    // Spread keeps the shared arrays and the lookups (nodeIds, names, indexOf); the priced ones are copied.
    this.graph = {
      ...b,
      indexOf: (id: string) => b.indexOf(id),
      edgeP: Float64Array.from(b.edgeP),
      fUnits: Float64Array.from(b.fUnits),
      rUnits: Float64Array.from(b.rUnits),
    };
  }
}
