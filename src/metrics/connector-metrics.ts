// The connectors' metrics (spec: `service_connector_*`), registered on the service's registry.
import { Counter, Gauge, type Registry } from 'prom-client';

export interface ConnectorMetrics {
  /** pulls by result: `ok`, `partial` (an account failed), `error` (nothing published), `skipped` (overlap) */
  runs: Counter<'connector' | 'result'>;
  lastSuccess: Gauge<'connector'>;
  /** nodes and edges the connector's reports put on the bus */
  events: Counter<'connector'>;
}

export function createConnectorMetrics(registry: Registry): ConnectorMetrics {
  const registers = [registry];
  return {
    runs: new Counter({
      name: 'service_connector_runs_total',
      help: 'Connector pulls, by connector and result: ok (every account published), partial (an account failed: its previous snapshot stays), error (nothing published), skipped (the previous pull was still running).',
      labelNames: ['connector', 'result'],
      registers,
    }),
    lastSuccess: new Gauge({
      name: 'service_connector_last_success_timestamp_seconds',
      help: 'Unix time at which the connector last finished a pull with every account published (result ok).',
      labelNames: ['connector'],
      registers,
    }),
    events: new Counter({
      name: 'service_connector_events_total',
      help: 'Nodes and edges the connector put on the bus through the ingest pipeline.',
      labelNames: ['connector'],
      registers,
    }),
  };
}
