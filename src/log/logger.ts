// Logging: pino, as text (pino-pretty) or JSON lines. Modules take a `Log` so tests can pass a stub.
import { pino, type Logger } from 'pino';

/** The subset of pino's logger the engine uses; pino itself satisfies it. */
export interface Log {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
  child(bindings: Record<string, unknown>): Log;
}

export function createLogger(options: { format: 'text' | 'json'; level: string }): Logger {
  // Secrets must never reach a log line, even when a request is logged whole.
  const redact = [
    'req.headers.authorization',
    'req.headers["x-service-signature"]',
    'req.headers["x-service-signature-v2"]',
  ];
  if (options.format === 'json') return pino({ level: options.level, redact });
  return pino({
    level: options.level,
    redact,
    transport: {
      target: 'pino-pretty',
      options: { colorize: false, translateTime: 'SYS:standard', ignore: 'pid,hostname' },
    },
  });
}

/** A logger that discards everything, for tests and library use. */
export function silentLog(): Log {
  const log: Log = { debug() {}, info() {}, warn() {}, error() {}, child: () => log };
  return log;
}
