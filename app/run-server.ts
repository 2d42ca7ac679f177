// Runs the service in the foreground until SIGINT/SIGTERM, printing where to look. Shared by `npm start`
// (demo data on by default) and `pathgate serve` (empty by default).
import { existsSync } from 'node:fs';
import { apiAuthEnabled, loadSettings, SettingsError } from '../src/config/settings.js';
import { DEFAULT_TENANT } from '../src/engine/tenant.js';
import { DataDirLocked } from '../src/bus/data-dir-lock.js';
import { ListenError, startService } from './service.js';

export async function runServer(options: { demoByDefault: boolean; version: string }): Promise<void> {
  // `.env` where pathgate starts (the GitHub App's setup writes its credentials there, as Probot's does);
  // variables already set win.
  if (existsSync('.env')) process.loadEnvFile('.env');
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
  let service: Awaited<ReturnType<typeof startService>> | undefined;
  // The spec: a bus connection or consumer that stops for good stops the process (an orchestrator
  // restarts it; the start recreates the consumer after the restored snapshot).
  const onFatal = (error: Error) => {
    process.stderr.write(`pathgate: ${error.message}; exiting\n`);
    const exit = () => process.exit(1);
    if (!service) return exit();
    service.close().then(exit, exit);
  };
  try {
    service = await startService({ settings, demo: settings.demoData, onFatal, dashboard: true });
  } catch (error) {
    // One clear line: the DATA_DIR holder, or the setting whose address is taken, and why.
    if (error instanceof DataDirLocked || error instanceof ListenError) {
      process.stderr.write(`pathgate: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  // Before the banner: a supervisor that stops the service as soon as it reads it gets a clean stop.
  const running = service;
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    running.logger.info({ signal }, 'shutting down');
    running.close().then(
      () => process.exit(0),
      (error: unknown) => {
        running.logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
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
      // With auth on, a placeholder for the token (never the token itself).
      `  curl -s ${service.apiUrl}/graphql -H 'content-type: application/json' \\`,
      ...(apiAuthEnabled(settings.auth) ? [`    -H 'authorization: Bearer <token>' \\`] : []),
      `    -d '${JSON.stringify({ query })}'`,
      '',
    ].join('\n'),
  );
}
