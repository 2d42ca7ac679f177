// GET /connectors on the API listener: the connectors' health (spec "Endpoints"; docs/connectors.md).
// A read like any other (viewer when API auth is on); it names accounts and errors, never credentials.
import type { FastifyInstance } from 'fastify';
import type { ConnectorRuntime } from '../../src/connectors/runtime.js';

export function registerConnectorRoutes(app: FastifyInstance, deps: { connectors: ConnectorRuntime }): void {
  app.get('/connectors', async () => deps.connectors.status());
}
