// One analyzer pass over one tenant: expire parked edges, prune stale data (GRAPH_TTL), bring the live
// compiled graph up to date with what the writer changed, find the best path of every connected
// (start, target) pair (re-searching only the roots the changes can affect), and fold the result into the
// path store.
import { searchSide } from '../analysis/best-paths.js';
import { affectedRoots, mergeScoped } from '../analysis/pass-scope.js';
import type { PathFinder } from '../analysis/path-finder.js';
import type { DbPathFinder } from '../db/db-path-finder.js';
import type { TakenChanges } from '../graph/model.js';
import type { Metrics } from '../metrics/metrics.js';
import { routeNodes, routeSteps, type PathStore } from '../paths/path-store.js';
import type { TenantState } from './tenant.js';

export interface AnalyzerConfig {
  seedIamUsers: boolean;
  /** GRAPH_TTL in ms; null leaves staleness pruning off. */
  graphTtlMs: number | null;
}

/**
 * Runs one pass; answers the graph changes it consumed (null: everything may have changed), which the
 * search index (src/search/search-service.ts) follows without being another reader of the writer's list.
 */
export async function runPass(
  tenant: TenantState,
  deps: {
    finder: PathFinder;
    metrics: Metrics;
    config: AnalyzerConfig;
    now: () => number;
    /** ANALYZER_DB_PATHS: the search on PostgreSQL, falling back to `finder` (src/db/db-path-finder.ts) */
    dbPaths?: DbPathFinder;
  },
): Promise<TakenChanges | null> {
  const { finder, metrics, config, now, dbPaths } = deps;
  const began = performance.now();
  const at = now();
  tenant.writer.expireParked(at);
  tenant.writer.expireTimed(at);
  if (config.graphTtlMs !== null) {
    const removed = tenant.writer.prune(at - config.graphTtlMs);
    if (removed.nodes || removed.edges) {
      tenant.pruning.prunedNodes += removed.nodes;
      tenant.pruning.prunedEdges += removed.edges;
      tenant.pruning.lastPrunedAt = at;
      metrics.graphPrunedNodes.inc({ tenant: tenant.name }, removed.nodes);
      metrics.graphPrunedEdges.inc({ tenant: tenant.name }, removed.edges);
    }
  }
  // Gate forks read the live arrays until their copies are made (on a worker): the sync, which rewrites
  // them in place, runs once those copies are made. It is synchronous, so it sees one consistent graph
  // even while writes keep arriving.
  const compiled = tenant.live;
  const { sync, previous, graphVersion, consumed } = await compiled.whenUnpinned(() => {
    const version = tenant.writer.version;
    // What the sync is about to take (take() hands these very sets over and starts new ones).
    const pending = tenant.writer.changes.peek();
    // From the sync on, the last search no longer matches the live arrays (a gate call between the sync
    // and the end of this pass compiles afresh), and a pass that fails leaves the next one a full search.
    const last = tenant.lastSearch;
    tenant.lastSearch = null;
    // Stored routes point into the live arrays: those about to be overwritten are copied out first.
    const result = compiled.sync(tenant.graph, tenant.writer.changes, {
      seedIamUsers: config.seedIamUsers,
      beforeRebuild: () => tenant.paths.freezeRoutes(),
      beforePatch: (edges, nodes) => freezeRoutesThrough(tenant.paths, edges, nodes),
    });
    // Queued, written in the background: reads the arrays now, before anything rewrites them.
    dbPaths?.capture(tenant.name, compiled, pending, result);
    return { sync: result, previous: last, graphVersion: version, consumed: pending };
  });
  const compiledAt = performance.now();
  const side = searchSide(compiled);
  const allRoots = side === 'targets' ? compiled.targets : compiled.starts;
  const roots =
    previous && !sync.rebuilt && !sync.rolesChanged && previous.side === side
      ? affectedRoots(compiled, side, sync, previous.found)
      : undefined;
  const searched = dbPaths
    ? await dbPaths.find(tenant.name, compiled, roots)
    : await finder.find(compiled, roots);
  // The roots not searched again keep their pairs as they were (pass-scope.ts says why that is exact).
  const found =
    roots && previous ? mergeScoped(previous.found, searched, roots, side, compiled.nodeCount) : searched;
  tenant.lastSearch = { side, found };
  const foundAt = performance.now();
  const outcome = tenant.paths.applyPass(compiled, found, at);
  const seconds = (performance.now() - began) / 1000;
  tenant.passes++;
  tenant.lastPass = {
    at,
    graphVersion,
    seconds,
    compileSeconds: (compiledAt - began) / 1000,
    findSeconds: (foundAt - compiledAt) / 1000,
    rebuilt: sync.rebuilt,
    searchedRoots: roots ? roots.length : allRoots.length,
    roots: allRoots.length,
    nodes: compiled.liveNodes,
    edges: compiled.liveEdges,
    starts: compiled.starts.length,
    targets: compiled.targets.length,
    outcome,
  };
  const labels = { tenant: tenant.name };
  metrics.analyzerPasses.inc(labels);
  metrics.analyzerPassSeconds.observe(labels, seconds);
  metrics.analyzerCriticalPaths.set(labels, outcome.critical);
  metrics.analyzerOpenPaths.set(labels, outcome.open);
  return consumed;
}

/**
 * Copies out the stored routes that go through the given edges or nodes of the live graph, which is about
 * to rewrite their prices or names in place: a path that resolves keeps the route as it was found.
 */
function freezeRoutesThrough(store: PathStore, edges: ReadonlySet<number>, nodes: ReadonlySet<number>): void {
  for (const record of store.all()) {
    const route = record.route;
    if ('nodes' in route) continue;
    let uses = nodes.has(route.start);
    for (let i = 0; !uses && i < route.edges.length; i++) {
      const e = route.edges[i];
      uses = edges.has(e) || nodes.has(route.compiled.edgeTo[e]);
    }
    if (uses) record.route = { nodes: routeNodes(record), steps: routeSteps(record) };
  }
}
