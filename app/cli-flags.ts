// Flag parsing for the `pathgate` CLI, on `node:util` parseArgs: each command declares its flags in one
// table (type, placeholder, help line), from which both its parser and its `--help` are made. Go-style
// single-dash long flags (`-url`, as the spec writes them) work as well as `--url`.
import { parseArgs } from 'node:util';

/** A command line the command cannot take (unknown flag, missing value, bad value): BSD's EX_USAGE. */
export const EXIT_USAGE = 64;

export class UsageError extends Error {}

export interface Flag {
  type: 'string' | 'boolean';
  /** Placeholder for a string flag's value in the help (`FILE`, `URL`). */
  value?: string;
  help: string;
  default?: string;
  /** A string flag whose value must parse as an absolute URL: checked here, naming the value. */
  url?: boolean;
  /** The values a string flag may take. */
  choices?: readonly string[];
}

export type Flags = Record<string, Flag>;

export interface CommandSpec<F extends Flags = Flags> {
  name: string;
  /** One line for `pathgate help`. */
  summary: string;
  /** What follows `pathgate <name>` in the usage line, e.g. `<dir> [flags]`. */
  synopsis: string;
  /** A paragraph for `pathgate <name> --help`. */
  description?: string;
  flags: F;
  /** How many positional arguments it takes (none when absent). */
  positionals?: { min: number; max: number; names: string };
  /** What its exit codes mean (the usage code is added). */
  exits: string;
}

export type FlagValues<F extends Flags> = {
  [K in keyof F]: F[K]['type'] extends 'boolean'
    ? boolean
    : F[K] extends { default: string }
      ? string
      : string | undefined;
};

export interface Parsed<F extends Flags> {
  values: FlagValues<F>;
  positionals: string[];
}

/** Rewrites `-name` and `-name=value` to `--name` forms; short flags (`-h`) and values are left as they are. */
export function normalizeFlags(args: string[]): string[] {
  const out: string[] = [];
  let rest = false;
  for (const a of args) {
    if (a === '--') rest = true;
    out.push(!rest && /^-[A-Za-z][A-Za-z0-9-]+(=.*)?$/.test(a) ? `-${a}` : a);
  }
  return out;
}

const HELP_FLAGS = new Set(['-h', '-help', '--help']);

/** Whether the command line asks for help (before any `--`). */
export function wantsHelp(args: string[]): boolean {
  for (const a of args) {
    if (a === '--') return false;
    if (HELP_FLAGS.has(a)) return true;
  }
  return false;
}

/** Parses a command line against its table; throws UsageError naming what is wrong and the value. */
export function parseCommand<F extends Flags>(spec: CommandSpec<F>, args: string[]): Parsed<F> {
  let parsed;
  try {
    parsed = parseArgs({
      args: normalizeFlags(args),
      allowPositionals: spec.positionals !== undefined,
      strict: true,
      options: Object.fromEntries(
        Object.entries(spec.flags).map(([name, flag]) => [
          name,
          flag.type === 'boolean'
            ? { type: 'boolean' as const, default: false }
            : { type: 'string' as const, ...(flag.default !== undefined && { default: flag.default }) },
        ]),
      ),
    });
  } catch (error) {
    throw new UsageError((error as Error).message.replace(/\. To specify a positional argument.*$/s, ''), {
      cause: error,
    });
  }
  for (const [name, flag] of Object.entries(spec.flags)) {
    const value = parsed.values[name];
    if (typeof value !== 'string') continue;
    if (flag.choices && !flag.choices.includes(value))
      throw new UsageError(`-${name} must be ${flag.choices.join(' or ')}, not ${JSON.stringify(value)}`);
    if (flag.url && !/^https?:$/.test(URL.parse(value)?.protocol ?? ''))
      throw new UsageError(`-${name} ${JSON.stringify(value)} is not a URL (like http://127.0.0.1:8080)`);
  }
  const { positionals } = parsed;
  const want = spec.positionals ?? { min: 0, max: 0, names: '' };
  if (positionals.length < want.min || positionals.length > want.max) {
    const expected = want.max === 0 ? 'no argument' : want.names;
    throw new UsageError(
      `expected ${expected}, got ${positionals.length ? positionals.map((p) => JSON.stringify(p)).join(' ') : 'none'}`,
    );
  }
  return { values: parsed.values as FlagValues<F>, positionals };
}

/** `pathgate <name> --help`: made from the same table the parser uses. */
export function commandHelp(spec: CommandSpec): string {
  const lines = [`Usage: pathgate ${spec.name} ${spec.synopsis}`.trimEnd(), '', spec.summary];
  if (spec.description) lines.push('', ...wrap(spec.description, 100));
  const rows: [string, string][] = Object.entries(spec.flags).map(([name, flag]) => [
    `-${name}${flag.type === 'string' ? ` ${flag.value ?? 'VALUE'}` : ''}`,
    `${flag.help}${flag.choices ? ` (${flag.choices.join(' | ')})` : ''}${flag.default !== undefined ? ` (default ${flag.default})` : ''}`,
  ]);
  rows.push(['-h, -help', 'print this help']);
  const width = Math.max(...rows.map(([left]) => left.length)) + 2;
  lines.push('', 'Flags (-flag and --flag alike):');
  for (const [left, right] of rows) {
    const text = wrap(right, 100 - width - 2);
    lines.push(
      `  ${left.padEnd(width)}${text[0]}`,
      ...text.slice(1).map((t) => `  ${' '.repeat(width)}${t}`),
    );
  }
  lines.push(
    '',
    ...wrap(`Exit: ${spec.exits}; ${EXIT_USAGE} usage error (a flag or argument it cannot take).`, 100),
  );
  return `${lines.join('\n')}\n`;
}

function wrap(text: string, width: number): string[] {
  const out: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && line.length + 1 + word.length > width) {
      out.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  out.push(line);
  return out;
}

/**
 * An error as one line: its message, then each cause's (`fetch failed: connect ECONNREFUSED 127.0.0.1:1`),
 * with the system error code and the input of an invalid URL, so no message hides what it was about.
 */
export function describeError(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current !== undefined && current !== null && depth < 8; depth++) {
    if (!(current instanceof Error)) {
      parts.push(String(current));
      break;
    }
    const e = current as Error & { code?: unknown; input?: unknown; errors?: unknown[] };
    let message = e.message;
    if (typeof e.input === 'string' && !message.includes(e.input)) message += ` ${JSON.stringify(e.input)}`;
    if (typeof e.code === 'string' && !message.includes(e.code)) message += ` (${e.code})`;
    if (Array.isArray(e.errors) && e.errors.length)
      message += ` [${e.errors.map((inner) => describeError(inner)).join('; ')}]`;
    if (message && !parts.some((p) => p.includes(message))) parts.push(message);
    current = e.cause;
  }
  return parts.join(': ') || 'unknown error';
}

/**
 * Help or a parsed command line, or the exit code after printing why it cannot be parsed: every command
 * entry point starts with this, so each answers `--help` (exit 0) and usage errors (exit 64) alike.
 */
export function parseOrExit<F extends Flags>(
  spec: CommandSpec<F>,
  args: string[],
  io: { out: (text: string) => void; err: (text: string) => void },
): Parsed<F> | number {
  if (wantsHelp(args)) {
    io.out(commandHelp(spec));
    return 0;
  }
  try {
    return parseCommand(spec, args);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.err(`pathgate ${spec.name}: ${error.message}\n(\`pathgate ${spec.name} --help\` lists its flags)\n`);
    return EXIT_USAGE;
  }
}
