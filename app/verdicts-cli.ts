// `pathgate genverdicts` and `pathgate importverdicts`: validation records (docs/governance.md) to and from
// a running service. genverdicts writes a red-team or BAS exercise template from the open paths: one record
// per path (its id, start, target and hops), outcome left null for the testers to fill (or set with
// -outcome), as JSON (the POST /validations/import body) or NDJSON (one record a line). importverdicts reads
// such a file back, checks every record first and sends nothing when one is wrong (each error named by
// record, line and value), then posts them to POST /validations/import, one request per source; what the
// service cannot match is reported per record. The service appends verdicts: nothing stored is replaced.
import { readFile, writeFile } from 'node:fs/promises';
import { OUTCOMES } from '../src/governance/validations.js';
import { describeError, EXIT_USAGE, parseOrExit, type CommandSpec } from './cli-flags.js';
import type { CliIo } from './cli-commands.js';
import { isLoopbackUrl } from './loopback.js';

const API_FLAG = {
  type: 'string',
  value: 'URL',
  url: true,
  default: 'http://127.0.0.1:8080',
  help: 'the API listener',
} as const;

export const GENVERDICTS_COMMAND = {
  name: 'genverdicts',
  summary: 'write a validation template (one record per open attack path) for a red-team or BAS exercise',
  synopsis: '[-api URL] [-source NAME] [-outcome O] [-priority P] [-format json|ndjson] [-o FILE]',
  description:
    'Reads the open paths of a running service (GraphQL attackPathsConnection, bearer $PATHGATE_API_TOKEN) and writes one validation record per path: pathId, start, target, hops (node names, start first), outcome (null unless -outcome), evidence. Fill the outcomes and load the file with `pathgate importverdicts`.',
  flags: {
    api: API_FLAG,
    source: {
      type: 'string',
      value: 'NAME',
      default: 'red-team',
      help: "who runs the exercise (the records' source)",
    },
    outcome: {
      type: 'string',
      value: 'O',
      choices: OUTCOMES,
      help: 'the outcome every record starts with (default null: to fill)',
    },
    priority: {
      type: 'string',
      value: 'P',
      choices: ['P1', 'P2', 'P3'],
      help: 'only paths of this priority',
    },
    format: {
      type: 'string',
      value: 'F',
      default: 'json',
      choices: ['json', 'ndjson'],
      help: 'the output format',
    },
    o: { type: 'string', value: 'FILE', help: 'write to FILE instead of standard output' },
  },
  exits: '0 written, 1 the service refused or could not be reached, 2 the file cannot be written',
} as const satisfies CommandSpec;

export const IMPORTVERDICTS_COMMAND = {
  name: 'importverdicts',
  summary: 'import validation records (JSON or NDJSON, as genverdicts writes them) into a running service',
  synopsis: '<file> [-api URL] [-source NAME] [-dry-run] [-allow-remote]',
  description:
    'Every record is checked before anything is sent: an outcome outside confirmed, refuted, partial, missed, a record naming no path (pathId, start and target, or hops), a malformed pathId; each error names the record, its line and the value, and nothing is sent. Then POST /validations/import (admin; bearer $PATHGATE_API_TOKEN), one request per source; records the service cannot match to a path are listed. Verdicts are appended: nothing stored is replaced. A non-loopback -api needs -allow-remote.',
  flags: {
    api: API_FLAG,
    source: { type: 'string', value: 'NAME', help: 'the source of records that name none' },
    'dry-run': { type: 'boolean', help: 'check the records, send nothing' },
    'allow-remote': { type: 'boolean', help: 'allow a -api that is not a loopback address' },
  },
  positionals: { min: 1, max: 1, names: 'one <file>' },
  exits:
    '0 every record recorded, 1 a record was refused (locally: nothing sent; or by the service), 2 the file cannot be read or parsed, 3 the service could not be reached or refused the request',
} as const satisfies CommandSpec;

function headers(io: CliIo): Record<string, string> {
  const token = io.env.PATHGATE_API_TOKEN || undefined;
  return { 'content-type': 'application/json', ...(token && { authorization: `Bearer ${token}` }) };
}

class ServiceError extends Error {}

/** A problem+json answer in one line: its detail and each named value. */
async function problemText(response: Response): Promise<string> {
  const body = (await response.json().catch(() => ({}))) as {
    title?: string;
    detail?: string;
    errors?: { pointer?: string; value?: unknown; detail?: string }[];
  };
  const errors = (body.errors ?? [])
    .slice(0, 20)
    .map(
      (e) =>
        `${e.pointer ?? ''}${e.value !== undefined ? ` ${JSON.stringify(e.value)}` : ''}: ${e.detail ?? ''}`,
    );
  return [`${response.status} ${body.detail ?? body.title ?? response.statusText}`, ...errors].join('; ');
}

const PAGE = `query($after: String, $priority: Priority) {
  attackPathsConnection(first: 100, after: $after, priority: $priority) {
    edges { node { id priority score nodes { name } } }
    pageInfo { hasNextPage endCursor }
  }
}`;

interface TemplateRecord {
  pathId: string;
  start: string;
  target: string;
  hops: string[];
  priority: string;
  score: number;
  outcome: string | null;
  evidence: string;
}

async function openPaths(
  api: string,
  io: CliIo,
  priority?: string,
): Promise<Omit<TemplateRecord, 'outcome' | 'evidence'>[]> {
  const out: Omit<TemplateRecord, 'outcome' | 'evidence'>[] = [];
  let after: string | undefined;
  for (;;) {
    let response: Response;
    try {
      response = await fetch(new URL('/graphql', api), {
        method: 'POST',
        headers: headers(io),
        body: JSON.stringify({ query: PAGE, variables: { after, priority } }),
        signal: AbortSignal.timeout(60_000),
      });
    } catch (error) {
      throw new ServiceError(`cannot reach ${api}: ${describeError(error)}`);
    }
    if (!response.ok) throw new ServiceError(await problemText(response));
    const body = (await response.json()) as {
      data?: {
        attackPathsConnection: {
          edges: { node: { id: string; priority: string; score: number; nodes: { name: string }[] } }[];
          pageInfo: { hasNextPage: boolean; endCursor: string | null };
        };
      };
      errors?: { message: string }[];
    };
    if (body.errors?.length || !body.data)
      throw new ServiceError(body.errors?.map((e) => e.message).join('; ') ?? 'no data');
    const page = body.data.attackPathsConnection;
    for (const { node } of page.edges) {
      const hops = node.nodes.map((n) => n.name);
      out.push({
        pathId: node.id,
        start: hops[0],
        target: hops.at(-1)!,
        hops,
        priority: node.priority,
        score: node.score,
      });
    }
    if (!page.pageInfo.hasNextPage || !page.pageInfo.endCursor) return out;
    after = page.pageInfo.endCursor;
  }
}

export async function genverdictsCommand(args: string[], io: CliIo): Promise<number> {
  const parsed = parseOrExit(GENVERDICTS_COMMAND, args, io);
  if (typeof parsed === 'number') return parsed;
  const { values } = parsed;
  let paths;
  try {
    paths = await openPaths(values.api, io, values.priority);
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    io.err(`pathgate genverdicts: ${error.message}\n`);
    return 1;
  }
  const records: TemplateRecord[] = paths.map((p) => ({
    ...p,
    outcome: values.outcome ?? null,
    evidence: '',
  }));
  const text =
    values.format === 'ndjson'
      ? records.map((r) => JSON.stringify({ source: values.source, ...r })).join('\n') +
        (records.length ? '\n' : '')
      : `${JSON.stringify({ source: values.source, tool: 'pathgate genverdicts', results: records }, null, 2)}\n`;
  if (values.o === undefined) io.out(text);
  else {
    try {
      await writeFile(values.o, text);
    } catch (error) {
      io.err(`pathgate genverdicts: cannot write ${values.o}: ${describeError(error)}\n`);
      return 2;
    }
    io.err(`${records.length} records written to ${values.o}\n`);
  }
  return 0;
}

/** A record as read from the file, with where it came from. */
interface Located {
  record: Record<string, unknown>;
  /** 1-based line (NDJSON) or record index (JSON) for messages */
  where: string;
  source?: string;
}

/** JSON (`{source, results}`, or a list of records) or NDJSON (one record a line). */
export function readRecords(text: string): { records: Located[]; source?: string } {
  const trimmed = text.trim();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      const value = JSON.parse(trimmed) as unknown;
      if (Array.isArray(value))
        return {
          records: value.map((record, i) => ({
            record: record as Record<string, unknown>,
            where: `record ${i + 1}`,
          })),
        };
      const body = value as { source?: unknown; results?: unknown };
      if (!Array.isArray(body.results))
        throw new SyntaxError('a JSON object needs "results": a list of records');
      return {
        source: typeof body.source === 'string' ? body.source : undefined,
        records: body.results.map((record, i) => ({
          record: record as Record<string, unknown>,
          where: `record ${i + 1} (/results/${i})`,
        })),
      };
    } catch (error) {
      // A first line that is a whole object may be NDJSON: tried below.
      if (!trimmed.startsWith('{') || !trimmed.includes('\n')) throw error;
    }
  }
  const records: Located[] = [];
  text.split('\n').forEach((line, i) => {
    if (!line.trim()) return;
    try {
      records.push({
        record: JSON.parse(line) as Record<string, unknown>,
        where: `record ${records.length + 1} (line ${i + 1})`,
      });
    } catch (error) {
      throw new SyntaxError(`line ${i + 1} is not JSON (${(error as Error).message})`, { cause: error });
    }
  });
  return { records };
}

const PATH_ID = /^ap-[0-9a-f]{16}$/;
const KNOWN = new Set([
  'pathId',
  'start',
  'target',
  'hops',
  'outcome',
  'evidence',
  'detected',
  'source',
  'priority',
  'score',
]);

/** The errors of one record, each naming the field and the value. */
export function checkRecord(record: unknown): string[] {
  if (!record || typeof record !== 'object' || Array.isArray(record))
    return [`is not an object: ${JSON.stringify(record)}`];
  const r = record as Record<string, unknown>;
  const errors: string[] = [];
  if (!(OUTCOMES as readonly unknown[]).includes(r.outcome))
    errors.push(`outcome ${JSON.stringify(r.outcome ?? null)} is not one of ${OUTCOMES.join(', ')}`);
  if (r.pathId !== undefined && (typeof r.pathId !== 'string' || !PATH_ID.test(r.pathId)))
    errors.push(`pathId ${JSON.stringify(r.pathId)} is not a path id (ap- and 16 hex digits)`);
  for (const key of ['start', 'target', 'evidence', 'source'] as const)
    if (r[key] !== undefined && typeof r[key] !== 'string')
      errors.push(`${key} ${JSON.stringify(r[key])} is not text`);
  if (
    r.hops !== undefined &&
    (!Array.isArray(r.hops) || !r.hops.length || r.hops.some((h) => typeof h !== 'string' || !h.trim()))
  )
    errors.push(`hops ${JSON.stringify(r.hops)} is not a list of node names`);
  if (r.detected !== undefined && typeof r.detected !== 'boolean')
    errors.push(`detected ${JSON.stringify(r.detected)} is not true or false`);
  if (r.pathId === undefined && !(r.start !== undefined && r.target !== undefined) && r.hops === undefined)
    errors.push('names no path: give pathId, start and target, or hops');
  if (r.outcome === 'refuted' && r.pathId === undefined && r.start === undefined && r.hops === undefined)
    errors.push('refuted needs the path it refutes');
  return errors;
}

export async function importverdictsCommand(args: string[], io: CliIo): Promise<number> {
  const parsed = parseOrExit(IMPORTVERDICTS_COMMAND, args, io);
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  const file = positionals[0];
  if (!isLoopbackUrl(values.api) && !values['allow-remote']) {
    io.err(
      `pathgate importverdicts: -api ${JSON.stringify(values.api)} is not a loopback address; give -allow-remote to write to it\n`,
    );
    return EXIT_USAGE;
  }
  let read: ReturnType<typeof readRecords>;
  try {
    read = readRecords(await readFile(file, 'utf8'));
  } catch (error) {
    io.err(`pathgate importverdicts: ${file}: ${describeError(error)}\n`);
    return 2;
  }
  if (!read.records.length) {
    io.err(`pathgate importverdicts: ${file} holds no record\n`);
    return 2;
  }
  // Every record checked before anything is sent: a file is imported whole or not at all.
  const problems: string[] = [];
  const bySource = new Map<string, Located[]>();
  for (const located of read.records) {
    const errors = checkRecord(located.record);
    const source =
      (typeof located.record?.source === 'string' && located.record.source.trim()) ||
      read.source ||
      values.source;
    if (!source) errors.push('names no source (give "source" in the file, or -source)');
    if (errors.length) {
      problems.push(...errors.map((e) => `${located.where}: ${e}`));
      continue;
    }
    bySource.set(source!, [...(bySource.get(source!) ?? []), located]);
  }
  if (problems.length) {
    for (const p of problems.slice(0, 100)) io.err(`pathgate importverdicts: ${file}: ${p}\n`);
    if (problems.length > 100) io.err(`pathgate importverdicts: ... and ${problems.length - 100} more\n`);
    io.err(
      `pathgate importverdicts: nothing was sent (${problems.length} problems in ${read.records.length} records)\n`,
    );
    return 1;
  }
  if (values['dry-run']) {
    io.out(`${read.records.length} records checked; nothing sent (-dry-run)\n`);
    return 0;
  }
  let recorded = 0;
  let unmatched = 0;
  for (const [source, located] of bySource) {
    // The route's own limit is 10,000 results a request.
    for (let at = 0; at < located.length; at += 10_000) {
      const slice = located.slice(at, at + 10_000);
      const results = slice.map(({ record }) => {
        const { source: _s, priority: _p, score: _sc, ...rest } = record;
        return Object.fromEntries(
          Object.entries(rest).filter(([k, v]) => KNOWN.has(k) && v !== '' && v !== null),
        );
      });
      let response: Response;
      try {
        response = await fetch(new URL('/validations/import', values.api), {
          method: 'POST',
          headers: headers(io),
          body: JSON.stringify({ source, tool: 'pathgate importverdicts', results }),
          signal: AbortSignal.timeout(120_000),
        });
      } catch (error) {
        io.err(`pathgate importverdicts: cannot reach ${values.api}: ${describeError(error)}\n`);
        return 3;
      }
      if (!response.ok) {
        io.err(
          `pathgate importverdicts: ${source}: ${await problemText(response)}${recorded ? ` (${recorded} records were recorded before)` : ''}\n`,
        );
        return 3;
      }
      const answer = (await response.json()) as {
        recorded: number;
        unmatched: { index: number; detail: string }[];
      };
      recorded += answer.recorded;
      for (const u of answer.unmatched) {
        unmatched++;
        io.err(
          `pathgate importverdicts: ${file}: ${slice[u.index]?.where ?? `record ${u.index + 1}`}: ${u.detail}\n`,
        );
      }
    }
  }
  io.out(
    `${recorded} verdicts recorded from ${read.records.length} records${unmatched ? `, ${unmatched} not matched` : ''}\n`,
  );
  return unmatched ? 1 : 0;
}
