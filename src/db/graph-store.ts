// The tenant graph in PostgreSQL (migration 007_graph_store.sql), for the database path finder
// (ANALYZER_DB_PATHS, db-path-finder.ts). After each pass's sync, the analyzer hands over what the writer's
// GraphChanges listed (and the hops the sync repriced); the rows are read off the compiled graph, so every
// hop carries exactly the price the in-process finder searches with. Writes are queued and sent in batches
// in the background: ingest never waits for them, and a pass waits only when it is about to search the
// database. The tenant is rewritten in full after a full compile, after a failed write, and whenever the
// store's generation is not the one this process wrote last (the store says it is stale for us).
import type pg from 'pg';
import type { CompiledGraph } from '../analysis/compiled-graph.js';
import { hopCost, ROLE_DIRECT, ROLE_START, ROLE_TARGET, TYPE_INDEX } from '../analysis/compiled-graph.js';
import type { SyncResult } from '../analysis/live-graph.js';
import type { TakenChanges } from '../graph/model.js';
import { EDGE_TYPES, NODE_LABELS } from '../graph/vocabulary.js';
import type { Log } from '../log/logger.js';
import type { Db } from './postgres.js';

interface NodeRow {
  id: string;
  label: string;
  roles: number;
}

interface EdgeRow {
  key: string;
  src: string;
  dst: string;
  type: string;
  p: number;
  cost: number;
  /** null: not traversable */
  units: number | null;
}

/** What a flush writes: rows to upsert, keys to delete, or the whole tenant. */
interface Pending {
  full: boolean;
  nodes: Map<string, NodeRow | null>;
  edges: Map<string, EdgeRow | null>;
  /** Nodes removed: their edges go with them (the writer does not list those edges one by one). */
  goneNodes: Set<string>;
}

const emptyPending = (full: boolean): Pending => ({
  full,
  nodes: new Map(),
  edges: new Map(),
  goneNodes: new Set(),
});

/** Rows per statement: big enough to cost few round trips, small enough to keep parameters modest. */
export const GRAPH_STORE_BATCH = 5_000;

export class TenantGraphStore {
  private pending: Pending = emptyPending(true);
  private chain: Promise<void> = Promise.resolve();
  /** The generation this process wrote last (null: none yet, the first write is full). */
  private generation: number | null = null;
  /** Set by a failed write; the next capture rewrites the tenant in full. */
  private failed = false;
  /** Writes queued or under way. */
  private inFlight = 0;
  /** Full rewrites and incremental writes done (tests, docs). */
  readonly counts = { full: 0, incremental: 0, failed: 0 };

  constructor(
    private readonly db: Db,
    readonly tenant: string,
    private readonly log: Pick<Log, 'warn' | 'error'>,
  ) {}

  /**
   * Queues what one sync changed (call it right after LiveGraph.sync, with the changes it took and its
   * result; synchronous, it reads the compiled arrays before anything rewrites them) and starts a write.
   */
  capture(g: CompiledGraph, taken: TakenChanges | null, sync: SyncResult): void {
    // A full rewrite still queued is taken again from the graph as it is now.
    if (this.failed || taken === null || taken.all || sync.rebuilt || this.pending.full) {
      this.failed = false;
      this.pending = this.full(g);
    } else {
      this.incremental(g, taken, sync);
    }
    this.schedule();
  }

  /**
   * This replica stopped writing (a follower now): changes it does not capture are lost to the store, so
   * the next capture (as leader again) rewrites the tenant in full.
   */
  forget(): void {
    this.failed = true;
  }

  /** Whether the store holds what was captured last: waits for queued writes; false after a failure. */
  async current(): Promise<boolean> {
    for (;;) {
      const chain = this.chain;
      await chain;
      if (chain === this.chain && this.inFlight === 0) break;
    }
    return !this.failed && this.generation !== null;
  }

  private full(g: CompiledGraph): Pending {
    const out = emptyPending(true);
    const roles = roleMap(g);
    for (let v = 0; v < g.nodeCount; v++) {
      const id = g.nodeIds[v];
      if (g.indexOf(id) !== v) continue;
      out.nodes.set(id, { id, label: NODE_LABELS[g.labels[v]], roles: roles.get(v) ?? 0 });
      for (let s = g.fStart[v], end = g.fEnd[v]; s < end; s++) {
        const row = edgeRow(g, g.fEdges[s]);
        out.edges.set(row.key, row);
      }
    }
    return out;
  }

  private incremental(g: CompiledGraph, taken: TakenChanges, sync: SyncResult): void {
    const out = this.pending;
    const roles = roleMap(g);
    for (const id of taken.nodes) {
      const v = g.indexOf(id);
      if (v < 0) {
        out.nodes.set(id, null);
        out.goneNodes.add(id);
        // Rows queued for its edges before it went are dropped with it.
        for (const [key, row] of out.edges)
          if (row && (row.src === id || row.dst === id)) out.edges.delete(key);
      } else {
        out.nodes.set(id, { id, label: NODE_LABELS[g.labels[v]], roles: roles.get(v) ?? 0 });
      }
    }
    // Repriced hops first (a node's change reprices the hops into it without listing them), then the
    // listed edges, whose state (present or gone) is the last word.
    for (const k of [...sync.cheaper, ...sync.dearer]) {
      if (isLive(g, k)) {
        const row = edgeRow(g, k);
        out.edges.set(row.key, row);
      }
    }
    for (const key of taken.edges) {
      const k = findLive(g, key);
      out.edges.set(key, k < 0 ? null : edgeRow(g, k));
    }
  }

  private schedule(): void {
    this.inFlight++;
    this.chain = this.chain.then(async () => {
      try {
        const job = this.pending;
        this.pending = emptyPending(false);
        if (job.full || job.nodes.size || job.edges.size || job.goneNodes.size) await this.write(job);
      } catch (error) {
        this.failed = true;
        this.counts.failed++;
        this.log.error(
          { err: error, tenant: this.tenant },
          'graph store: write failed; the tenant is rewritten in full next pass',
        );
      } finally {
        this.inFlight--;
      }
    });
  }

  private async write(job: Pending): Promise<void> {
    const client = await this.db.connect();
    try {
      await client.query('begin');
      const state = await client.query<{ generation: string }>(
        'select generation from graph_store_state where tenant = $1 for update',
        [this.tenant],
      );
      const stored = state.rows[0] ? Number(state.rows[0].generation) : null;
      // Another writer (or none yet) since our last write: what we hold as a delta would not apply.
      if (!job.full && (stored === null || stored !== this.generation)) {
        await client.query('rollback');
        this.failed = true;
        this.log.warn(
          { tenant: this.tenant },
          'graph store: stale for this replica; rewriting the tenant in full next pass',
        );
        return;
      }
      if (job.full) {
        await client.query('delete from graph_edges where tenant = $1', [this.tenant]);
        await client.query('delete from graph_nodes where tenant = $1', [this.tenant]);
      } else {
        const gone = [...job.goneNodes];
        if (gone.length)
          await client.query(
            'delete from graph_edges where tenant = $1 and (src = any($2::text[]) or dst = any($2::text[]))',
            [this.tenant, gone],
          );
        const deadNodes = [...job.nodes].filter(([, row]) => row === null).map(([id]) => id);
        for (const part of batches(deadNodes))
          await client.query('delete from graph_nodes where tenant = $1 and id = any($2::text[])', [
            this.tenant,
            part,
          ]);
        const deadEdges = [...job.edges].filter(([, row]) => row === null).map(([key]) => key);
        for (const part of batches(deadEdges))
          await client.query('delete from graph_edges where tenant = $1 and key = any($2::text[])', [
            this.tenant,
            part,
          ]);
      }
      const nodes = [...job.nodes.values()].filter((row): row is NodeRow => row !== null);
      for (const part of batches(nodes)) await upsertNodes(client, this.tenant, part);
      const edges = [...job.edges.values()].filter((row): row is EdgeRow => row !== null);
      for (const part of batches(edges)) await upsertEdges(client, this.tenant, part);
      const next = await client.query<{ generation: string }>(
        `insert into graph_store_state (tenant, generation, nodes, edges)
           select $1, coalesce(max(generation), 0) + 1,
             (select count(*) from graph_nodes where tenant = $1), (select count(*) from graph_edges where tenant = $1)
           from graph_store_state where tenant = $1
         on conflict (tenant) do update set generation = excluded.generation, nodes = excluded.nodes,
           edges = excluded.edges, written_at = now()
         returning generation`,
        [this.tenant],
      );
      await client.query('commit');
      this.generation = Number(next.rows[0].generation);
      if (job.full) this.counts.full++;
      else this.counts.incremental++;
    } catch (error) {
      await client.query('rollback').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }
}

/** One TenantGraphStore per tenant, over one pool. */
export class GraphStore {
  private readonly tenants = new Map<string, TenantGraphStore>();

  constructor(
    readonly db: Db,
    private readonly log: Pick<Log, 'warn' | 'error'>,
  ) {}

  tenant(name: string): TenantGraphStore {
    let store = this.tenants.get(name);
    if (!store) {
      store = new TenantGraphStore(this.db, name, this.log);
      this.tenants.set(name, store);
    }
    return store;
  }

  /** Waits for every queued write (shutdown, tests). */
  async settle(): Promise<void> {
    await Promise.all([...this.tenants.values()].map((t) => t.current()));
  }
}

function* batches<T>(items: T[]): Generator<T[]> {
  for (let i = 0; i < items.length; i += GRAPH_STORE_BATCH) yield items.slice(i, i + GRAPH_STORE_BATCH);
}

async function upsertNodes(client: pg.PoolClient, tenant: string, rows: NodeRow[]): Promise<void> {
  await client.query(
    `insert into graph_nodes (tenant, id, label, roles)
       select $1, * from unnest($2::text[], $3::text[], $4::smallint[])
     on conflict (tenant, id) do update set label = excluded.label, roles = excluded.roles`,
    [tenant, rows.map((r) => r.id), rows.map((r) => r.label), rows.map((r) => r.roles)],
  );
}

async function upsertEdges(client: pg.PoolClient, tenant: string, rows: EdgeRow[]): Promise<void> {
  await client.query(
    `insert into graph_edges (tenant, key, src, dst, type, p, cost, units)
       select $1, * from unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::float8[], $7::float8[], $8::bigint[])
     on conflict (tenant, key) do update set src = excluded.src, dst = excluded.dst, type = excluded.type,
       p = excluded.p, cost = excluded.cost, units = excluded.units`,
    [
      tenant,
      rows.map((r) => r.key),
      rows.map((r) => r.src),
      rows.map((r) => r.dst),
      rows.map((r) => r.type),
      rows.map((r) => r.p),
      // 'Infinity' is a double precision value PostgreSQL reads as text.
      rows.map((r) => (Number.isFinite(r.cost) ? r.cost : 'Infinity')),
      // Integers below 2^53: their decimal strings are exact.
      rows.map((r) => (r.units === null ? null : String(r.units))),
    ],
  );
}

function roleMap(g: CompiledGraph): Map<number, number> {
  const roles = new Map<number, number>();
  const add = (list: Int32Array, bit: number) => {
    for (let i = 0; i < list.length; i++) roles.set(list[i], (roles.get(list[i]) ?? 0) | bit);
  };
  add(g.starts, ROLE_START);
  add(g.targets, ROLE_TARGET);
  add(g.directAccess, ROLE_DIRECT);
  return roles;
}

function edgeRow(g: CompiledGraph, k: number): EdgeRow {
  const src = g.nodeIds[g.edgeFrom[k]];
  const dst = g.nodeIds[g.edgeTo[k]];
  const type = EDGE_TYPES[g.edgeType[k]];
  const { cost, units } = hopCost(g.edgeP[k]);
  return {
    key: `${type}|${src}|${dst}`,
    src,
    dst,
    type,
    p: g.edgeP[k],
    cost,
    units: Number.isFinite(units) ? units : null,
  };
}

/** Whether edge k is in its source's live out-list (a removed edge keeps its data for old routes). */
function isLive(g: CompiledGraph, k: number): boolean {
  const u = g.edgeFrom[k];
  if (g.indexOf(g.nodeIds[u]) !== u) return false;
  for (let s = g.fStart[u], end = g.fEnd[u]; s < end; s++) if (g.fEdges[s] === k) return true;
  return false;
}

/** The live edge of a GraphChanges key (`type|from|to`), or -1. */
function findLive(g: CompiledGraph, key: string): number {
  const first = key.indexOf('|');
  const type = TYPE_INDEX.get(key.slice(0, first));
  if (type === undefined) return -1;
  // Node ids are `<Label>:<hex>` (src/graph/ids.ts), but the split does not rely on it: every `|` between
  // two known ids is tried.
  for (let at = key.indexOf('|', first + 1); at >= 0; at = key.indexOf('|', at + 1)) {
    const u = g.indexOf(key.slice(first + 1, at));
    const v = g.indexOf(key.slice(at + 1));
    if (u < 0 || v < 0) continue;
    for (let s = g.fStart[u], end = g.fEnd[u]; s < end; s++) {
      const k = g.fEdges[s];
      if (g.edgeTo[k] === v && g.edgeType[k] === type) return k;
    }
  }
  return -1;
}
