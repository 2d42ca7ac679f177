// The service as the benchmark's child process: prints its URLs as one JSON line, then serves.
import { pino } from 'pino';
import { loadSettings } from '../src/config/settings.js';
import { startService } from '../app/service.js';

const settings = loadSettings(process.env, { demoData: false });
const service = await startService({
  settings,
  demo: false,
  logger: pino({ level: process.env.LOG_LEVEL ?? 'warn' }),
});
process.stdout.write(
  `${JSON.stringify({ ingestUrl: service.ingestUrl, apiUrl: service.apiUrl, pid: process.pid })}\n`,
);
