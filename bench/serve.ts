// The service as the benchmark's child process: prints its URLs as one JSON line, then serves.
import { pino } from 'pino';
import { loadSettings } from '../src/config/settings.js';
import { startService } from '../app/service.js';

const settings = loadSettings(process.env, { demoData: false });
const service = await startService({
  settings,
  demo: false,
  // Logs go to stderr: stdout carries the one line the benchmark reads.
  logger: pino({ level: process.env.LOG_LEVEL ?? 'warn' }, pino.destination(2)),
});
process.stdout.write(
  `${JSON.stringify({ ingestUrl: service.ingestUrl, apiUrl: service.apiUrl, pid: process.pid })}\n`,
);
// Exits at once on SIGTERM (the bench sends it to a profiled service: --cpu-prof writes on exit).
process.on('SIGTERM', () => process.exit(0));
