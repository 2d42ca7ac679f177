// Runs the service in the foreground until SIGINT/SIGTERM, printing where to look. Shared by `npm start`
// (demo data on by default) and `pathgate serve` (empty by default).
import { apiAuthEnabled, loadSettings, SettingsError } from '../src/config/settings.js';
import { DEFAULT_TENANT } from '../src/engine/tenant.js';
import { startService } from './service.js';

export async function runServer(options: { demoByDefault: boolean; version: string }): Promise<void> {
  let settings;
  try {
    settings = loadSettings(process.env, { demoData: options.demoByDefault });
  } catch (error) {
    if (error instanceof SettingsError) {
      process.stderr.write(`pathgate: ${error.message}\n`);
      process.exit(78); // EX_CONFIG
    }
    throw error;
  }
  let service;
  try {
    service = await startService({ settings, demo: settings.demoData, dashboard: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL') {
      // One clear line: which address, and why.
      const { address, port } = error as { address?: string; port?: number };
      process.stderr.write(
        `pathgate: cannot listen on ${address ?? '?'}:${port ?? '?'} (${code}); is another instance running?\n`,
      );
      process.exit(1);
    }
    throw error;
  }
  const open = service.engine.tenant(DEFAULT_TENANT)?.paths.open() ?? [];
  const critical = open.filter((p) => service.engine.isCritical(DEFAULT_TENANT, p)).length;
  const query = '{ attackPaths(first: 3) { id score priority directAccess nodes { name label } } }';
  process.stdout.write(
    [
      `pathgate ${options.version} is running (embedded store in ${settings.dataDir})`,
      `  ingest  ${service.ingestUrl}   POST /ingest/events`,
      apiAuthEnabled(settings.auth)
        ? `  API     ${service.apiUrl}   POST /graphql (Authorization: Bearer <token>; docs/security.md), GET /metrics`
        : `  API     ${service.apiUrl}   POST /graphql (GraphiQL at /graphiql), GET /metrics`,
      service.dashboardUrl
        ? `  dashboard ${service.dashboardUrl}   open in a browser (docs/dashboard.md)`
        : '  dashboard off (DASHBOARD_ADDR=off)',
      settings.demoData
        ? `  demo    ${open.length} open attack paths (${critical} critical) in the demo estate (fixtures/demo/)`
        : '  empty   no demo data (DEMO_DATA=false); POST reports to the ingest listener',
      'Try:',
      `  curl -s ${service.apiUrl}/graphql -H 'content-type: application/json' \\`,
      `    -d '${JSON.stringify({ query })}'`,
      '',
    ].join('\n'),
  );
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    service.logger.info({ signal }, 'shutting down');
    service.close().then(
      () => process.exit(0),
      (error: unknown) => {
        service.logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}
