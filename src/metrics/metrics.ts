// Prometheus metrics, spelled as the spec spells them. One registry per service instance (no global
// default registry), so tests and several in-process services never share counters. Series labelled by
// tenant are served as they are only on the METRICS_ADDR listener; the API's open `/metrics` serves them
// summed over tenants (`metricsWithoutTenants`), so it names no tenant.
import { AggregatorRegistry, Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export interface Metrics {
  registry: Registry;
  analyzerCriticalPaths: Gauge<'tenant'>;
  analyzerPasses: Counter<'tenant'>;
  analyzerPassSeconds: Histogram<'tenant'>;
  analyzerOpenPaths: Gauge<'tenant'>;
  /** ANALYZER_DB_PATHS: passes whose search was tried on PostgreSQL (src/db/db-path-finder.ts) */
  analyzerDbPathSearches: Counter<'tenant'>;
  /** ANALYZER_DB_PATHS: of those, the ones that fell back to the in-process finder, by reason */
  analyzerDbPathFallbacks: Counter<'tenant' | 'reason'>;
  graphNodes: Gauge<'tenant'>;
  graphEdges: Gauge<'tenant'>;
  graphPendingEdges: Gauge<'tenant'>;
  graphDropped: Counter<'reason'>;
  /** CVE nodes threat intel (KEV, EPSS) set or changed (src/intel/) */
  threatIntelCvesEnriched: Counter<'tenant'>;
  graphSweeps: Counter<'tenant' | 'source' | 'result'>;
  graphSwept: Counter<'tenant' | 'kind'>;
  graphPrunedNodes: Counter<'tenant'>;
  graphPrunedEdges: Counter<'tenant'>;
  ingestBatches: Counter<'source' | 'result'>;
  ingestSecretsRedacted: Counter<'kind'>;
  ingestSignatures: Counter<'version'>;
  authDenied: Counter<'surface' | 'reason'>;
  gateVerdicts: Counter<'verdict'>;
  criticalPathEvents: Counter<'tenant'>;
  /** 1 while the bus's broker is reachable (always 1 for the embedded journal), 0 while it reconnects */
  brokerConnected: Gauge;
  /** 1 while the engine serves in a reduced mode for that part (`/healthz` answers 503), else 0 */
  reducedMode: Gauge<'part'>;
  /** Heavy GraphQL analyses refused: `request` (over 20 in one request) or `busy` (every slot and queue place taken). */
  apiHeavyRefused: Counter<'reason'>;
  /** Heavy GraphQL analyses stopped before their end: `disconnect` (the client went away) or `deadline`. */
  apiHeavyCancelled: Counter<'reason'>;
}

export function createMetrics(options: { processMetrics?: boolean } = {}): Metrics {
  const registry = new Registry();
  if (options.processMetrics) collectDefaultMetrics({ register: registry });
  const registers = [registry];
  return {
    registry,
    analyzerCriticalPaths: new Gauge({
      name: 'service_analyzer_critical_paths',
      help: 'Open critical (P1, not suppressed) attack paths after the last analyzer pass.',
      labelNames: ['tenant'],
      registers,
    }),
    analyzerPasses: new Counter({
      name: 'service_analyzer_passes_total',
      help: 'Analyzer passes run (passes skipped because the graph did not change are not counted).',
      labelNames: ['tenant'],
      registers,
    }),
    analyzerPassSeconds: new Histogram({
      name: 'service_analyzer_pass_seconds',
      help: 'Duration of whole analyzer passes: compile, path finding and path-store update.',
      labelNames: ['tenant'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers,
    }),
    analyzerOpenPaths: new Gauge({
      name: 'service_analyzer_open_paths',
      help: 'Open attack paths after the last analyzer pass.',
      labelNames: ['tenant'],
      registers,
    }),
    analyzerDbPathSearches: new Counter({
      name: 'service_analyzer_db_path_searches_total',
      help: 'Analyzer passes whose best-path search was tried on PostgreSQL (ANALYZER_DB_PATHS).',
      labelNames: ['tenant'],
      registers,
    }),
    analyzerDbPathFallbacks: new Counter({
      name: 'service_analyzer_db_path_fallbacks_total',
      help: 'Database path searches that fell back to the in-process finder, by reason (timeout, row_limit, stale, error).',
      labelNames: ['tenant', 'reason'],
      registers,
    }),
    graphNodes: new Gauge({
      name: 'service_graph_nodes',
      help: 'Nodes in the graph.',
      labelNames: ['tenant'],
      registers,
    }),
    graphEdges: new Gauge({
      name: 'service_graph_edges',
      help: 'Edges in the graph.',
      labelNames: ['tenant'],
      registers,
    }),
    graphPendingEdges: new Gauge({
      name: 'service_graph_pending_edges',
      help: 'Edges parked until their missing endpoint arrives (up to the parked-edge TTL).',
      labelNames: ['tenant'],
      registers,
    }),
    graphDropped: new Counter({
      name: 'service_graph_dropped_total',
      help: 'Values the graph writer dropped: outside the vocabulary, malformed, or parked too long.',
      labelNames: ['reason'],
      registers,
    }),
    threatIntelCvesEnriched: new Counter({
      name: 'service_threatintel_cves_enriched',
      help: 'CVE nodes whose threat intel (CISA KEV listing, EPSS score) was set or changed, at load or as CVEs arrive.',
      labelNames: ['tenant'],
      registers,
    }),
    brokerConnected: new Gauge({
      name: 'service_broker_connected',
      help: '1 while the bus is connected to its broker (always 1 for the embedded journal), 0 while it reconnects; ingest answers 503 meanwhile.',
      registers,
    }),
    reducedMode: new Gauge({
      name: 'service_reduced_mode',
      help: '1 while the engine serves in a reduced mode for `part` (`graph-store`, `bus`, `journal`), when `/healthz` answers 503 with the reason; else 0.',
      labelNames: ['part'],
      registers,
    }),
    graphSweeps: new Counter({
      name: 'service_graph_sweeps_total',
      help: 'Complete snapshots applied, by result: `retracted` (it retracted what its scope no longer holds), `unchanged` (nothing to retract), `off` (GRAPH_SWEEP=false: nothing retracted).',
      labelNames: ['tenant', 'source', 'result'],
      registers,
    }),
    graphSwept: new Counter({
      name: 'service_graph_swept_total',
      help: 'What complete snapshots retracted, by kind: `node`, `edge`, `parked` (an edge still waiting for an endpoint).',
      labelNames: ['tenant', 'kind'],
      registers,
    }),
    graphPrunedNodes: new Counter({
      name: 'service_graph_pruned_nodes_total',
      help: 'Nodes removed for not being re-seen within GRAPH_TTL.',
      labelNames: ['tenant'],
      registers,
    }),
    graphPrunedEdges: new Counter({
      name: 'service_graph_pruned_edges_total',
      help: 'Edges removed for not being re-seen within GRAPH_TTL.',
      labelNames: ['tenant'],
      registers,
    }),
    ingestBatches: new Counter({
      name: 'service_ingest_batches_total',
      help: 'Ingest requests by source and result (accepted, rejected).',
      labelNames: ['source', 'result'],
      registers,
    }),
    ingestSecretsRedacted: new Counter({
      name: 'service_ingest_secrets_redacted_total',
      help: 'Secrets redacted from property values at ingest, by kind.',
      labelNames: ['kind'],
      registers,
    }),
    ingestSignatures: new Counter({
      name: 'service_ingest_signatures_total',
      help: 'Ingest requests accepted with a valid signature, by signature version (v1, v2).',
      labelNames: ['version'],
      registers,
    }),
    authDenied: new Counter({
      name: 'service_auth_denied_total',
      help: 'Requests refused by authentication or authorization, by surface and reason.',
      labelNames: ['surface', 'reason'],
      registers,
    }),
    criticalPathEvents: new Counter({
      name: 'service_analyzer_critical_path_events_total',
      help: 'Critical Attack Path events: new (or reopened) critical routes found by analyzer passes.',
      labelNames: ['tenant'],
      registers,
    }),
    gateVerdicts: new Counter({
      name: 'service_gate_verdicts_total',
      help: 'Merge gate evaluations, by verdict (clean, blocked, unknown).',
      labelNames: ['verdict'],
      registers,
    }),
    apiHeavyRefused: new Counter({
      name: 'service_api_heavy_refused_total',
      help: "Heavy GraphQL analyses refused, by reason: request (more than 20 in one request), busy (429: every slot and queue place taken), tenant (429: the tenant's own queue places taken).",
      labelNames: ['reason'],
      registers,
    }),
    apiHeavyCancelled: new Counter({
      name: 'service_api_heavy_cancelled_total',
      help: 'Heavy GraphQL analyses stopped before their end (waiting or running: the worker thread is stopped), by reason: disconnect (the client went away), deadline (ANALYSIS_DEADLINE passed).',
      labelNames: ['reason'],
      registers,
    }),
  };
}

/** The label that names a tenant; it never leaves the process on the API listener. */
const TENANT_LABEL = 'tenant';

/**
 * The registry in Prometheus' text format with every `tenant` label summed away: the series of all tenants
 * that agree on their other labels (and, for histograms, on the bucket) become one, so counts stay true
 * (nodes in all graphs, passes run) while no tenant is named. Metrics without the label pass unchanged.
 * prom-client's own aggregation (the one it uses across cluster workers) does the summing.
 */
export async function metricsWithoutTenants(registry: Registry): Promise<string> {
  const metrics = (await registry.getMetricsAsJSON()).map((metric) => {
    if (!metric.values.some((v) => TENANT_LABEL in v.labels)) return { ...metric, aggregator: 'first' };
    const values = metric.values.map((v) => {
      const { [TENANT_LABEL]: _tenant, ...labels } = v.labels;
      return { ...v, labels };
    });
    return { ...metric, values, aggregator: 'sum' };
  });
  return AggregatorRegistry.aggregate([metrics]).metrics();
}
