// What a restart must keep beyond the graph (issue 13, items 10 and 11): a path's history (first_seen,
// reopens, resolved_at) and ingest batch progress, through a real process killed with SIGKILL between
// snapshots and through a graceful stop (SIGTERM, final snapshot).
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { cp, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { PATH_LOG_FILE } from '../../src/paths/path-log.js';
import { edge, envelope, node } from '../helpers/envelope.js';
import { readReal } from '../helpers/normalize.js';
import { makeService, tempDir, type TestService } from '../helpers/service.js';

const lb = node('LoadBalancer', 'public-lb', { internet_exposed: true });
const app = node('Service', 'checkout');
const db = node('Database', 'orders-db', { crown_jewel: true });
const SCOPE = 'snapshot=aws:111122223333/us-east-1';
const withRoute = envelope(
  [lb, app, db],
  [edge('ROUTES_TO', lb, app, 0.9), edge('HAS_PERMISSION', app, db, 0.9)],
);
const withoutRoute = envelope([lb, app, db], [edge('ROUTES_TO', lb, app, 0.9)]);
const HISTORY = '{ attackPaths(state: ALL) { id state firstSeen reopens resolvedAt } }';
const BATCH =
  'query ($id: ID!) { ingestBatch(id: $id) { id source chunks chunksApplied nodes edges complete } }';

const cleanup: TestService[] = [];
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  while (cleanup.length) await cleanup.pop()!.dispose();
});

interface Child {
  process: ChildProcess;
  ingest(body: unknown, source?: string, query?: string): Promise<{ status: number; json: any }>;
  graphql(query: string, variables?: Record<string, unknown>): Promise<any>;
}

/** A real service process on `dataDir`; `graceful` stops on SIGTERM as `pathgate serve` does. */
async function startChild(dataDir: string, fixture: 'serve-child' | 'graceful-child'): Promise<Child> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', new URL(`./fixtures/${fixture}.ts`, import.meta.url).pathname],
    {
      env: {
        ...process.env,
        DATA_DIR: dataDir,
        INGEST_ADDR: '127.0.0.1:0',
        API_ADDR: '127.0.0.1:0',
        ANALYZER_THREADS: '1',
        ANALYZER_INTERVAL: '100ms',
        SNAPSHOT_INTERVAL: '1h',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  children.push(child);
  const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
  const { ingestUrl, apiUrl } = JSON.parse(line) as { ingestUrl: string; apiUrl: string };
  return {
    process: child,
    async ingest(body, source = 'events', query = '') {
      const response = await fetch(`${ingestUrl}/ingest/${source}${query ? `?${query}` : ''}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: response.status, json: await response.json() };
    },
    async graphql(query, variables) {
      const response = await fetch(`${apiUrl}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query, variables }),
      });
      const body = (await response.json()) as { data?: any; errors?: unknown };
      if (body.errors) throw new Error(`graphql: ${JSON.stringify(body.errors)}`);
      return body.data;
    },
  };
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function kill(child: Child, signal: 'SIGKILL' | 'SIGTERM'): Promise<number | null> {
  const exited = once(child.process, 'exit');
  child.process.kill(signal);
  const [code] = (await exited) as [number | null];
  return code;
}

/** Opens the lb -> checkout -> orders-db path, resolves it, reopens it; answers its history. */
async function reopenPath(child: Child): Promise<{ id: string; firstSeen: string; resolvedAt: string }> {
  expect((await child.ingest(withRoute, 'events', SCOPE)).status).toBe(202);
  const [opened] = (
    await until(
      () => child.graphql(HISTORY),
      (d) => d.attackPaths.length === 1,
      'the path to open',
    )
  ).attackPaths;
  expect(opened).toMatchObject({ state: 'OPEN', reopens: 0, resolvedAt: null });
  // The next complete snapshot no longer holds the permission: the path resolves.
  expect((await child.ingest(withoutRoute, 'events', SCOPE)).status).toBe(202);
  const [resolved] = (
    await until(
      () => child.graphql(HISTORY),
      (d) => d.attackPaths[0]?.state === 'RESOLVED',
      'the path to resolve',
    )
  ).attackPaths;
  // And the one after holds it again: the path reopens, keeping its first_seen.
  expect((await child.ingest(withRoute, 'events', SCOPE)).status).toBe(202);
  const [reopened] = (
    await until(
      () => child.graphql(HISTORY),
      (d) => d.attackPaths[0]?.reopens === 1,
      'the path to reopen',
    )
  ).attackPaths;
  expect(reopened).toMatchObject({ id: opened.id, state: 'OPEN', firstSeen: opened.firstSeen });
  return { id: opened.id, firstSeen: opened.firstSeen, resolvedAt: resolved.resolvedAt };
}

describe('path history', () => {
  it('survives SIGKILL between snapshots: reopens and the original first_seen are kept', async () => {
    const dataDir = await tempDir();
    const child = await startChild(dataDir, 'serve-child');
    const history = await reopenPath(child);
    // A pass answers queries before its lifecycle lines are synced (engine.ts, logPathChanges); what a
    // SIGKILL must not lose is what the log acknowledged, so the kill waits for the reopening's line.
    await until(
      () => readFile(path.join(dataDir, 'state', PATH_LOG_FILE), 'utf8').catch(() => ''),
      (text) => text.includes('"reopens":1'),
      'the reopening in the path log',
    );
    await kill(child, 'SIGKILL');

    const revived = await makeService({}, { dataDir });
    cleanup.push(revived);
    const expected = [
      {
        id: history.id,
        state: 'OPEN',
        firstSeen: history.firstSeen,
        reopens: 1,
        resolvedAt: history.resolvedAt,
      },
    ];
    // Before the first pass (from the path log) and after it (the same path found again, not a new one).
    expect((await revived.graphql(HISTORY)).attackPaths).toEqual(expected);
    await revived.settle();
    expect((await revived.graphql(HISTORY)).attackPaths).toEqual(expected);
  });

  it('keeps a resolution made after the last snapshot, and the log is emptied by the next snapshot', async () => {
    const service = await makeService();
    cleanup.push(service);
    const log = path.join(service.dataDir, 'state', PATH_LOG_FILE);
    expect((await service.ingest(withRoute, { query: SCOPE })).status).toBe(202);
    await service.settle();
    const [opened] = (await service.graphql(HISTORY)).attackPaths;
    expect((await stat(log)).size).toBeGreaterThan(0);
    await service.engine.takeSnapshot();
    expect((await stat(log)).size).toBe(0);
    expect((await service.ingest(withoutRoute, { query: SCOPE })).status).toBe(202);
    await service.settle();
    const [resolved] = (await service.graphql(HISTORY)).attackPaths;
    expect(resolved).toMatchObject({ id: opened.id, state: 'RESOLVED', firstSeen: opened.firstSeen });
    // What a crash now leaves on disk: everything is synced, so a copy of the folder is that state.
    const crashed = await tempDir();
    await cp(service.dataDir, crashed, { recursive: true });
    const revived = await makeService({}, { dataDir: crashed });
    cleanup.push(revived);
    expect((await revived.graphql(HISTORY)).attackPaths).toEqual([resolved]);
    await revived.settle();
    expect((await revived.graphql(HISTORY)).attackPaths).toEqual([resolved]);
  });

  it('skips log lines a snapshot already covers (a crash between the snapshot and emptying the log)', async () => {
    const service = await makeService();
    cleanup.push(service);
    const log = path.join(service.dataDir, 'state', PATH_LOG_FILE);
    expect((await service.ingest(withRoute, { query: SCOPE })).status).toBe(202);
    await service.settle();
    expect((await service.ingest(withoutRoute, { query: SCOPE })).status).toBe(202);
    await service.settle();
    expect((await service.ingest(withRoute, { query: SCOPE })).status).toBe(202);
    await service.settle();
    const stale = await readFile(log);
    // Three lifecycle records (opened, resolved, reopened); the trend is the posture history's, not here.
    const lines = stale.toString().trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines.filter((l) => l.includes('"trendPoint"'))).toHaveLength(0);
    await service.engine.takeSnapshot();
    const [current] = (await service.graphql(HISTORY)).attackPaths;
    expect(current).toMatchObject({ state: 'OPEN', reopens: 1 });
    const crashed = await tempDir();
    await cp(service.dataDir, crashed, { recursive: true });
    // The snapshot is durable but the log still holds the lines it covers, plus a torn final line.
    await writeFile(path.join(crashed, 'state', PATH_LOG_FILE), Buffer.concat([stale, Buffer.from('{"e":')]));
    const revived = await makeService({}, { dataDir: crashed });
    cleanup.push(revived);
    expect((await revived.graphql(HISTORY)).attackPaths).toEqual([current]);
    expect((await stat(path.join(crashed, 'state', PATH_LOG_FILE))).size).toBe(stale.length);
  });
});

describe('ingest batch progress', () => {
  const iam = readReal('iam/cloudsplaining-test-example-authz-details.json');
  // Over the 1 MiB bus message limit: several chunks, so progress is counted chunk by chunk on replay.
  const services = Array.from({ length: 4000 }, (_, i) =>
    node('Service', `svc-${i}`, { owner: `team-${i % 17}`, note: 'x'.repeat(200) }),
  );
  const large = envelope(
    [lb, ...services],
    services.map((s) => edge('ROUTES_TO', lb, s)),
  );

  async function acknowledge(child: Child) {
    const receipts = [];
    for (const [body, source] of [
      [iam, 'iam'],
      [large, 'events'],
      [withRoute, 'events'],
    ] as const) {
      const response = await child.ingest(body, source);
      expect(response.status).toBe(202);
      receipts.push({
        id: response.json.batchId,
        source,
        nodes: response.json.nodes,
        edges: response.json.edges,
      });
    }
    expect(receipts[1].nodes).toBe(4001);
    return receipts;
  }

  async function expectProgress(service: TestService, receipts: Awaited<ReturnType<typeof acknowledge>>) {
    for (const receipt of receipts) {
      const { ingestBatch } = await service.graphql(BATCH, { variables: { id: receipt.id } });
      expect(ingestBatch, receipt.id).toMatchObject({ ...receipt, complete: true });
      expect(ingestBatch.chunksApplied).toBe(ingestBatch.chunks);
    }
    const large = (await service.graphql(BATCH, { variables: { id: receipts[1].id } })).ingestBatch;
    expect(large.chunks).toBeGreaterThan(1);
  }

  it('survives SIGKILL: replay rebuilds each acknowledged batch with its counts', async () => {
    const dataDir = await tempDir();
    const child = await startChild(dataDir, 'serve-child');
    const receipts = await acknowledge(child);
    await kill(child, 'SIGKILL');
    const revived = await makeService({}, { dataDir });
    cleanup.push(revived);
    await expectProgress(revived, receipts);
  });

  it('survives a graceful restart: the final snapshot carries batch progress', async () => {
    const dataDir = await tempDir();
    const child = await startChild(dataDir, 'graceful-child');
    const receipts = await acknowledge(child);
    await until(
      () => child.graphql(BATCH, { id: receipts[2].id }),
      (d) => d.ingestBatch?.complete === true,
      'the last batch to reach the graph',
    );
    expect(await kill(child, 'SIGTERM')).toBe(0);
    const revived = await makeService({}, { dataDir });
    cleanup.push(revived);
    await expectProgress(revived, receipts);
    // And through a second restart, once the journal those batches came from has been compacted away.
    await revived.dispose({ keepData: true });
    cleanup.pop();
    const again = await makeService({}, { dataDir });
    cleanup.push(again);
    await expectProgress(again, receipts);
  });

  it('forgets batches older than PARKED_EDGE_TTL at the next snapshot', async () => {
    let clock = Date.parse('2026-11-23T10:00:00Z');
    const service = await makeService({ PARKED_EDGE_TTL: '1h' }, { now: () => clock });
    const response = await service.ingest(withRoute);
    await service.settle();
    clock += 59 * 60_000;
    await service.dispose({ keepData: true });
    const kept = await makeService({ PARKED_EDGE_TTL: '1h' }, { dataDir: service.dataDir, now: () => clock });
    expect(
      (await kept.graphql(BATCH, { variables: { id: response.json.batchId } })).ingestBatch,
    ).toMatchObject({
      complete: true,
    });
    clock += 2 * 60_000;
    await kept.ingest(withoutRoute);
    await kept.dispose({ keepData: true });
    const later = await makeService(
      { PARKED_EDGE_TTL: '1h' },
      { dataDir: service.dataDir, now: () => clock },
    );
    cleanup.push(later);
    expect((await later.graphql(BATCH, { variables: { id: response.json.batchId } })).ingestBatch).toBeNull();
  });
});
