// The `pathgate` command line. Flags may be written `-flag` or `--flag`.
import { parseArgs } from 'node:util';
import { normalizeFlags } from './cli-flags.js';
import { runServer } from './run-server.js';
import { VERSION } from './version.js';

const USAGE = `pathgate ${VERSION}: attack-path correlation service

Usage: pathgate <command> [flags]

Commands:
  serve                 run the service (ingest on INGEST_ADDR, API on API_ADDR); empty unless DEMO_DATA=true
  healthz [-url URL]    ask a running listener for /healthz (default http://127.0.0.1:8080); exit 0 when ok
  version               print the version
  help                  print this help

Settings are environment variables: see docs/configuration.md.
`;

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'serve':
      await runServer({ demoByDefault: false, version: VERSION });
      return -1; // keeps running
    case 'healthz': {
      const { values } = parseArgs({
        args: normalizeFlags(rest),
        options: { url: { type: 'string', default: 'http://127.0.0.1:8080' } },
      });
      const url = new URL('/healthz', values.url);
      try {
        const response = await fetch(url, { signal: AbortSignal.timeout(5000) });
        const text = (await response.text()).trim();
        process.stdout.write(`${url.href}: ${response.status} ${text}\n`);
        return response.ok ? 0 : 1;
      } catch (error) {
        process.stderr.write(`pathgate healthz: ${url.href}: ${(error as Error).message}\n`);
        return 1;
      }
    }
    case 'version':
    case '-version':
    case '--version':
      process.stdout.write(`${VERSION}\n`);
      return 0;
    case undefined:
    case 'help':
    case '-h':
    case '-help':
    case '--help':
      process.stdout.write(USAGE);
      return 0;
    default:
      process.stderr.write(`pathgate: unknown command ${JSON.stringify(command)}\n\n${USAGE}`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (error: unknown) => {
    process.stderr.write(`pathgate: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
