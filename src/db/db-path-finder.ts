// The opt-in database path finder (ANALYZER_DB_PATHS, spec: "a recursive query on PostgreSQL, safe-railed
// with a statement timeout and a row limit, falls back to the in-process finder"). A pass's best-path
// search runs on the graph store (graph-store.ts) as one recursive query: Bellman-Ford over the integer
// search costs, each step relaxing the out-edges of the nodes whose cost went down in the step before and
// carrying the rest, until a step improves nothing. PostgreSQL forbids aggregates in a recursive term, so
// the step keeps the cheapest row per (root, node) with window functions. Costs are the compiled graph's
// integers, so the distances are exactly the in-process finder's; the routes are then read off them here
// with the same canonical walk (best-paths.ts), so pairs, scores and routes come out identical.
//
// On a statement timeout, the row limit, a store that is not current, or any error, the pass falls back to
// the in-process finder: logged and counted (service_analyzer_db_path_fallbacks_total{reason}).
import {
  comparePairs,
  routeFromStart,
  routeToTarget,
  searchSide,
  type PairPath,
  type SearchSide,
} from '../analysis/best-paths.js';
import type { CompiledGraph } from '../analysis/compiled-graph.js';
import type { PathFinder } from '../analysis/path-finder.js';
import type { Log } from '../log/logger.js';
import type { Metrics } from '../metrics/metrics.js';
import type { GraphStore } from './graph-store.js';
import type { Db } from './postgres.js';

export interface DbPathsOptions {
  /** ANALYZER_DB_PATHS_TIMEOUT: statement_timeout of the search, ms */
  timeoutMs: number;
  /** ANALYZER_DB_PATHS_ROW_LIMIT: rows the recursive query may produce (every step's rows count) */
  rowLimit: number;
}

export type FallbackReason = 'timeout' | 'row_limit' | 'stale' | 'error';

/** Why the database search gave up; `reason` is the metric's label. */
export class DbPathsError extends Error {
  constructor(
    readonly reason: FallbackReason,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`db-path-finder: ${message}`, options);
  }
}

/**
 * The recursive query for one side. `walk` holds, per step, every (root, node) reached with its cost and
 * whether that cost went down in this step (`fresh`); only fresh rows relax their edges. The step stops
 * when nothing is fresh, so the last step holds the fixpoint: the cheapest cost of every reached node.
 * From the targets the search runs against the edges (a node's cost is its cost to the root).
 */
export function bestPathsQuery(side: SearchSide): string {
  const [near, far] = side === 'targets' ? ['dst', 'src'] : ['src', 'dst'];
  return `with recursive walk(root, node, dist, fresh, step) as (
  select r, r, 0::bigint, true, 0 from unnest($2::text[]) as r
  union all
  select root, node, best, improved, step from (
    select root, node, best, improved, step, bool_or(improved) over () as any_improved from (
      select c.root, x.node, min(x.dist) over w as best,
        coalesce(min(x.dist) over w < min(x.old) over w, true) as improved,
        c.step + 1 as step, row_number() over w as rn
      from walk c cross join (values (true), (false)) as k(carry)
        left join graph_edges e on not k.carry and c.fresh and e.tenant = $1 and e.${near} = c.node
          and e.units is not null
        cross join lateral (
          select case when k.carry then c.node else e.${far} end as node,
            case when k.carry then c.dist else c.dist + e.units end as dist,
            case when k.carry then c.dist end as old
        ) x
      where k.carry or e.key is not null
      window w as (partition by c.root collate "C", x.node collate "C")
    ) g where rn = 1
  ) s where any_improved
), capped as materialized (select * from walk limit $3::bigint + 1)
select root, node, dist::text as dist, (select count(*) from capped)::bigint as total
  from capped where step = (select max(step) from capped)`;
}

/**
 * The best path of every connected pair whose search-side node is in `roots` (all of that side by
 * default), found by PostgreSQL. Throws DbPathsError (timeout, row_limit, error) instead of answering
 * partly.
 */
export async function searchInDatabase(
  db: Db,
  tenant: string,
  g: CompiledGraph,
  options: DbPathsOptions,
  roots?: Int32Array,
): Promise<PairPath[]> {
  const side = searchSide(g);
  const rootList = roots ?? (side === 'targets' ? g.targets : g.starts);
  if (rootList.length === 0) return [];
  const want = new Uint8Array(g.nodeCount);
  const other = side === 'targets' ? g.starts : g.targets;
  for (let i = 0; i < other.length; i++) want[other[i]] = 1;
  const rows = await query(
    db,
    tenant,
    side,
    Array.from(rootList, (r) => g.nodeIds[r]),
    options,
  );

  // Rows by root, then each root's routes read off its distances.
  const byRoot = new Map<string, { node: string; dist: number }[]>();
  for (const row of rows) {
    let list = byRoot.get(row.root);
    if (!list) byRoot.set(row.root, (list = []));
    list.push({ node: row.node, dist: Number(row.dist) });
  }
  const dist = new Float64Array(g.nodeCount).fill(Infinity);
  const mark = new Uint8Array(g.nodeCount);
  const out: PairPath[] = [];
  for (const [rootId, list] of byRoot) {
    const root = g.indexOf(rootId);
    if (root < 0) throw new DbPathsError('stale', `the store names a node this graph lacks (${rootId})`);
    const touched: number[] = [];
    for (const { node, dist: d } of list) {
      const v = g.indexOf(node);
      if (v < 0) throw new DbPathsError('stale', `the store names a node this graph lacks (${node})`);
      dist[v] = d;
      touched.push(v);
    }
    try {
      for (const v of touched) {
        if (want[v] !== 1 || v === root) continue;
        out.push(
          side === 'targets' ? routeToTarget(g, dist, v, root) : routeFromStart(g, dist, mark, root, v),
        );
      }
    } catch (error) {
      // A walk that finds no tight hop: the store's prices are not this graph's.
      throw new DbPathsError('stale', (error as Error).message, { cause: error });
    } finally {
      for (const v of touched) dist[v] = Infinity;
    }
  }
  return out.sort(comparePairs);
}

async function query(
  db: Db,
  tenant: string,
  side: SearchSide,
  roots: string[],
  options: DbPathsOptions,
): Promise<{ root: string; node: string; dist: string; total: string }[]> {
  const client = await db.connect().catch((error: unknown) => {
    throw new DbPathsError('error', `cannot reach PostgreSQL (${(error as Error).message})`, {
      cause: error,
    });
  });
  try {
    await client.query('begin read only');
    // set_config(..., true) is SET LOCAL: the timeout ends with the transaction.
    await client.query("select set_config('statement_timeout', $1, true)", [String(options.timeoutMs)]);
    // Each step sorts its rows by (root, node): in memory rather than in temporary files.
    await client.query("select set_config('work_mem', '64MB', true)");
    const result = await client.query<{ root: string; node: string; dist: string; total: string }>(
      bestPathsQuery(side),
      [tenant, roots, options.rowLimit],
    );
    await client.query('commit');
    const total = result.rows.length ? Number(result.rows[0].total) : 0;
    if (total > options.rowLimit)
      throw new DbPathsError(
        'row_limit',
        `the recursive query passed ANALYZER_DB_PATHS_ROW_LIMIT (${options.rowLimit} rows)`,
      );
    return result.rows;
  } catch (error) {
    await client.query('rollback').catch(() => undefined);
    if (error instanceof DbPathsError) throw error;
    // 57014: query_canceled, which a statement_timeout raises.
    if ((error as { code?: string }).code === '57014')
      throw new DbPathsError(
        'timeout',
        `the recursive query ran past ANALYZER_DB_PATHS_TIMEOUT (${options.timeoutMs} ms)`,
        { cause: error },
      );
    throw new DbPathsError('error', (error as Error).message, { cause: error });
  } finally {
    client.release();
  }
}

/**
 * The analyzer's finder with ANALYZER_DB_PATHS: the database first when this replica writes the store and
 * it is current, else (or on any failure) the in-process finder.
 */
export class DbPathFinder {
  constructor(
    private readonly store: GraphStore,
    private readonly fallback: PathFinder,
    private readonly deps: {
      metrics: Metrics;
      log: Pick<Log, 'warn'>;
      options: DbPathsOptions;
      /** Whether this replica writes the store (the leader in scale-out). */
      writes: () => boolean;
    },
  ) {}

  /** Keeps the store up to date with one sync (see TenantGraphStore.capture); nothing on a follower. */
  capture(...args: [string, ...Parameters<ReturnType<GraphStore['tenant']>['capture']>]): void {
    const [tenant, ...rest] = args;
    if (this.deps.writes()) this.store.tenant(tenant).capture(...rest);
    else this.store.tenant(tenant).forget();
  }

  /** Waits for the store's queued writes (before the pool closes). */
  settle(): Promise<void> {
    return this.store.settle();
  }

  async find(tenant: string, g: CompiledGraph, roots?: Int32Array): Promise<PairPath[]> {
    const { metrics, log, options } = this.deps;
    // A follower does not write the store, so it cannot vouch that it holds this replica's graph.
    if (!this.deps.writes()) return this.fallback.find(g, roots);
    metrics.analyzerDbPathSearches.inc({ tenant });
    try {
      if (!(await this.store.tenant(tenant).current()))
        throw new DbPathsError('stale', 'the graph store is not current (a write failed or is being redone)');
      return await searchInDatabase(this.store.db, tenant, g, options, roots);
    } catch (error) {
      const reason = error instanceof DbPathsError ? error.reason : 'error';
      metrics.analyzerDbPathFallbacks.inc({ tenant, reason });
      log.warn({ tenant, reason, err: error }, 'database path finder gave up; this pass searches in-process');
      return this.fallback.find(g, roots);
    }
  }
}
