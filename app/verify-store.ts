// `pathgate verify-store`: reads the embedded store under DATA_DIR and says what it holds, what is
// damaged or missing, and what a start would do; `-repair` makes the operator's decision to go on
// without what is lost: damaged bytes are moved aside (a copy kept), the state is rebuilt from the
// newest intact snapshot and every record the journal still holds, and a fresh snapshot is written.
import { stat } from 'node:fs/promises';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { DataDirLocked, lockDataDir } from '../src/bus/data-dir-lock.js';
import { formatReport, inspectStore, storeOwner, type StoreReport } from '../src/bus/store.js';
import { loadSettings, SettingsError } from '../src/config/settings.js';
import { createEngine } from '../src/engine/engine.js';
import { createMetrics } from '../src/metrics/metrics.js';
import { parseOrExit, type CommandSpec } from './cli-flags.js';
import { engineConfigFrom } from './service.js';

export const VERIFY_STORE_COMMAND = {
  name: 'verify-store',
  summary: 'check (and repair) the embedded store under DATA_DIR',
  synopsis: '[-data-dir DIR] [-repair [-force]] [-json]',
  description:
    'Reads the snapshots and journal segments: sequence ranges, gaps, damaged records, and what a start would do. -repair (service stopped) moves damaged bytes aside, keeping a copy, and rebuilds the snapshot from what survives. A store another process holds (its DATA_DIR lock) is reported "in use", naming the pid. docs/operations.md',
  flags: {
    'data-dir': { type: 'string', value: 'DIR', help: 'the store (default $DATA_DIR or ./data)' },
    repair: { type: 'boolean', help: 'repair it (the service stopped)' },
    force: {
      type: 'boolean',
      help: 'with -repair: the store was last opened on another host, and that service is stopped',
    },
    json: { type: 'boolean', help: 'print the report as JSON' },
  },
  exits: '0 healthy, 1 problems found (left after -repair) or the store is in use, 2 no store at DIR',
} as const satisfies CommandSpec;

export interface RepairResult {
  before: StoreReport;
  after: StoreReport;
  /** What the repair did and what it went on without, one line each. */
  actions: string[];
}

/**
 * Starts the engine on the store in repair mode (the same start-up code as the service, told that known
 * loss is accepted), then closes it, which writes a snapshot of everything it could restore.
 */
export async function repairStore(dataDir: string, env: NodeJS.ProcessEnv): Promise<RepairResult> {
  // A repair writes the store: it holds DATA_DIR's lock as a service does (refused while one runs).
  const lock = await lockDataDir(dataDir);
  try {
    return await repairLocked(dataDir, env);
  } finally {
    await lock.release();
  }
}

async function repairLocked(dataDir: string, env: NodeJS.ProcessEnv): Promise<RepairResult> {
  const before = await inspectStore(dataDir);
  let settings;
  try {
    settings = loadSettings({ ...env, DATA_DIR: dataDir }, { demoData: false });
  } catch (error) {
    // Settings of other parts (listeners, auth) do not matter here.
    if (!(error instanceof SettingsError)) throw error;
    settings = loadSettings({ DATA_DIR: dataDir }, { demoData: false });
  }
  const actions: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (!line) continue;
        const entry = JSON.parse(line) as { level: number; msg?: string };
        // warn and above: what was cut, moved aside or gone without.
        if (entry.level >= 40 && entry.msg) actions.push(entry.msg);
      }
      done();
    },
  });
  const engine = await createEngine({
    config: { ...engineConfigFrom(settings), analyzerThreads: 1, storeRepair: true },
    log: pino({ level: 'warn' }, sink),
    metrics: createMetrics({ processMetrics: false }),
  });
  await engine.close();
  const after = await inspectStore(dataDir);
  if (!actions.length) actions.push('nothing needed repairing');
  else
    actions.push(
      `wrote a new snapshot${after.snapshots[0].seq !== undefined ? ` (seq ${after.snapshots[0].seq})` : ''}`,
    );
  return { before, after, actions };
}

export async function verifyStoreCommand(
  args: string[],
  io: { out: (text: string) => void; err: (text: string) => void; env: NodeJS.ProcessEnv },
): Promise<number> {
  const parsed = parseOrExit(VERIFY_STORE_COMMAND, args, io);
  if (typeof parsed === 'number') return parsed;
  const { values } = parsed;
  const dataDir = values['data-dir'] || io.env.DATA_DIR?.trim() || './data';
  // A mistyped folder would otherwise read as an empty, healthy store (and a repair would create it).
  if (!(await stat(dataDir).catch(() => undefined))?.isDirectory()) {
    io.err(`pathgate verify-store: no store at ${dataDir} (no such folder)\n`);
    return 2;
  }
  if (!values.repair) {
    const report = await inspectStore(dataDir);
    io.out(values.json ? `${JSON.stringify(report, null, 2)}\n` : `${formatReport(report).join('\n')}\n`);
    // A store another process holds is "in use", not "healthy": exit 1 with its holder named.
    return report.healthy && !report.inUse ? 0 : 1;
  }
  // Two writers on one journal would tear it: the owner file names who has it open.
  const owner = await storeOwner(dataDir);
  if (owner && owner.running !== false && !values.force) {
    const who = `pid ${owner.pid} on ${owner.host}, since ${owner.startedAt}`;
    io.err(
      owner.running === true
        ? `pathgate verify-store: a service (${who}) has ${dataDir} open; stop it before -repair\n`
        : `pathgate verify-store: ${dataDir} was opened on another host (${who}) and not closed; if that service is stopped (or was killed), run again with -force\n`,
    );
    return 1;
  }
  let result;
  try {
    result = await repairStore(dataDir, io.env);
  } catch (error) {
    if (!(error instanceof DataDirLocked)) throw error;
    io.err(`pathgate verify-store: ${error.message}; stop it before -repair\n`);
    return 1;
  }
  if (values.json) io.out(`${JSON.stringify(result, null, 2)}\n`);
  else {
    const lines = [
      ...formatReport(result.before),
      '',
      'repair:',
      ...result.actions.map((a) => `  ${a}`),
      '',
      ...formatReport(result.after),
    ];
    io.out(`${lines.join('\n')}\n`);
  }
  return result.after.healthy ? 0 : 1;
}
