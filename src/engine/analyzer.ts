// One analyzer pass over one tenant: expire parked edges, prune stale data (GRAPH_TTL), compile the
// graph into typed arrays, find the best path of every connected (start, target) pair, and fold the
// result into the path store.
import { compileGraph } from '../analysis/compiled-graph.js';
import type { PathFinder } from '../analysis/path-finder.js';
import type { Metrics } from '../metrics/metrics.js';
import type { TenantState } from './tenant.js';

export interface AnalyzerConfig {
  seedIamUsers: boolean;
  /** GRAPH_TTL in ms; null leaves staleness pruning off. */
  graphTtlMs: number | null;
}

export async function runPass(
  tenant: TenantState,
  deps: { finder: PathFinder; metrics: Metrics; config: AnalyzerConfig; now: () => number },
): Promise<void> {
  const { finder, metrics, config, now } = deps;
  const began = performance.now();
  const at = now();
  tenant.writer.expireParked(at);
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
  // Compilation is synchronous, so it sees one consistent graph even while writes keep arriving.
  const graphVersion = tenant.writer.version;
  // The last pass's routes point into the buffers this compile reuses: copy them out first.
  tenant.paths.freezeRoutes();
  const compiled = compileGraph(tenant.graph, {
    seedIamUsers: config.seedIamUsers,
    buffers: tenant.compileBuffers,
  });
  const compiledAt = performance.now();
  const found = await finder.find(compiled);
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
    nodes: compiled.nodeCount,
    edges: compiled.edgeCount,
    starts: compiled.starts.length,
    targets: compiled.targets.length,
    outcome,
  };
  const labels = { tenant: tenant.name };
  metrics.analyzerPasses.inc(labels);
  metrics.analyzerPassSeconds.observe(labels, seconds);
  metrics.analyzerCriticalPaths.set(labels, outcome.critical);
  metrics.analyzerOpenPaths.set(labels, outcome.open);
}
