// The embedded store after the things an operator meets: a journal folder emptied or restored from an
// older backup, damaged commits and snapshots, a 0-byte segment, a compacted journal without its
// snapshot, a missing segment. Each through the whole service on a real DATA_DIR.
import { cp, readdir, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { BusRecord } from '../../src/bus/bus.js';
import { createEmbeddedBus } from '../../src/bus/memory.js';
import { StoreError } from '../../src/bus/store.js';
import { repairStore } from '../../app/verify-store.js';
import { envelope, node } from '../helpers/envelope.js';
import { makeService, tempDir, type TestService } from '../helpers/service.js';

const cleanup: TestService[] = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!.dispose();
});

const svc = (i: number) => node('Service', `svc-${i}`, { n: i });

/** A logger whose lines the test reads back. */
function capturedLog() {
  const lines: { level: number; msg: string }[] = [];
  const logger = pino(
    { level: 'info' },
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString('utf8').split('\n')) if (line) lines.push(JSON.parse(line));
        done();
      },
    }),
  );
  return { logger, messages: () => lines.map((l) => l.msg) };
}

async function start(dataDir: string, log = capturedLog()): Promise<TestService> {
  const service = await makeService({}, { dataDir, logger: log.logger });
  cleanup.push(service);
  return service;
}

async function send(service: TestService, from: number, to: number): Promise<string[]> {
  const batches: string[] = [];
  for (let i = from; i < to; i++) {
    const answer = await service.ingest(envelope([svc(i)]));
    expect(answer.status).toBe(202);
    batches.push(answer.json.batchId);
  }
  return batches;
}

/** Which of svc-0 .. svc-(n-1) the default tenant's graph holds. */
function present(service: TestService, n: number): number[] {
  const graph = service.engine.tenant('default')?.graph;
  return Array.from({ length: n }, (_, i) => i).filter((i) => graph?.hasNode(svc(i).id));
}

async function stop(service: TestService): Promise<void> {
  cleanup.splice(cleanup.indexOf(service), 1);
  await service.dispose({ keepData: true });
}

async function segments(dataDir: string): Promise<string[]> {
  return (await readdir(path.join(dataDir, 'journal'))).filter((f) => f.endsWith('.log')).sort();
}

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

/** Journal records as the ingest listener writes them, through the bus, with small segments. */
async function journalOf(dataDir: string, count: number, rotateAt = 1500) {
  const bus = await createEmbeddedBus({ dir: path.join(dataDir, 'journal'), rotateAt });
  for (let i = 0; i < count; i++) {
    const record: BusRecord = {
      tenant: 'default',
      ingestSource: 'events',
      batchId: `b-${i}`,
      chunk: 0,
      chunks: 1,
      receivedAt: Date.now(),
      envelope: envelope([svc(i)]),
    };
    await bus.publish([record]);
  }
  return bus;
}

describe('store recovery', () => {
  it('numbers new reports after the snapshot when the journal folder was emptied after a clean stop', async () => {
    const dataDir = await tempDir();
    const first = await start(dataDir);
    await send(first, 0, 12);
    await stop(first);
    await rm(path.join(dataDir, 'journal'), { recursive: true });

    const log = capturedLog();
    const second = await start(dataDir, log);
    await send(second, 12, 22);
    await second.engine.drain();
    // Every one of the ten new reports, answered 202, reaches the graph, and stays after a restart.
    expect(present(second, 22)).toEqual(range(0, 22));
    expect(log.messages().join('\n')).toMatch(/journal: it ends at seq 0, before the snapshot's 12/);
    await stop(second);
    const third = await start(dataDir);
    expect(present(third, 22)).toEqual(range(0, 22));
  });

  it('numbers new reports after the snapshot when the journal was restored from an older backup', async () => {
    const dataDir = await tempDir();
    const backup = await tempDir();
    const first = await start(dataDir);
    await send(first, 0, 2);
    await first.engine.drain();
    await cp(path.join(dataDir, 'journal'), backup, { recursive: true });
    await send(first, 2, 12);
    await stop(first);
    await rm(path.join(dataDir, 'journal'), { recursive: true });
    await cp(backup, path.join(dataDir, 'journal'), { recursive: true });

    const second = await start(dataDir);
    await send(second, 12, 17);
    await second.engine.drain();
    expect(present(second, 17)).toEqual(range(0, 17));
    await stop(second);
    expect(present(await start(dataDir), 17)).toEqual(range(0, 17));
  });

  it('refuses to start when a whole final commit is damaged, naming the acknowledged batch; a repair keeps a copy', async () => {
    const dataDir = await tempDir();
    const first = await start(dataDir);
    const batches = await send(first, 0, 2);
    await stop(first);
    // Without the snapshot the journal is all there is.
    await rm(path.join(dataDir, 'state'), { recursive: true });
    const [segment] = await segments(dataDir);
    const file = path.join(dataDir, 'journal', segment);
    const text = await readFile(file, 'utf8');
    const at = text.indexOf('\n2 {') + 1;
    await writeFile(file, text.replace('"svc-1"', '"svc-7"'));

    const refused = await makeService({}, { dataDir }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(StoreError);
    const message = (refused as Error).message;
    expect(message).toContain(`refusing to start: journal: ${file} is damaged at byte ${at}`);
    expect(message).toContain(`record 2 (batch ${batches[1]}) committed, and may have been acknowledged`);
    expect(message).toContain('pathgate verify-store -repair');
    expect(message).not.toContain('not been acknowledged');

    const repair = await repairStore(dataDir, {});
    expect(repair.before.healthy).toBe(false);
    expect(repair.after.healthy).toBe(true);
    expect(repair.actions.join('\n')).toContain(`record 2 (batch ${batches[1]})`);
    const copy = path.join(dataDir, 'journal', 'quarantine', `${segment}.${at}.cut`);
    expect(await readFile(copy, 'utf8')).toBe(text.replace('"svc-1"', '"svc-7"').slice(at));
    const revived = await start(dataDir);
    expect(present(revived, 2)).toEqual([0]);
  });

  it('refuses to start on a 0-byte journal segment instead of starting empty', async () => {
    const dataDir = await tempDir();
    const first = await start(dataDir);
    await send(first, 0, 3);
    await stop(first);
    await rm(path.join(dataDir, 'state'), { recursive: true });
    const [segment] = await segments(dataDir);
    await truncate(path.join(dataDir, 'journal', segment), 0);
    const refused = await makeService({}, { dataDir }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(StoreError);
    expect((refused as Error).message).toMatch(
      /000000000001\.log is empty \(0 bytes\).*from seq 1 on is lost and may have been acknowledged/,
    );
  });

  it('refuses to start on a compacted journal whose snapshot is missing, naming the lost records', async () => {
    const dataDir = await tempDir();
    const bus = await journalOf(dataDir, 30);
    await bus.compact(24);
    await bus.close();
    const files = await segments(dataDir);
    const firstSeq = Number(files[0].slice(0, 12));
    expect(firstSeq).toBeGreaterThan(1);
    const refused = await makeService({}, { dataDir }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(StoreError);
    expect((refused as Error).message).toContain(
      `the journal starts at seq ${firstSeq} and there is no intact snapshot: ${firstSeq - 1} records 1-${firstSeq - 1}`,
    );
    // The operator's decision: start with what the journal holds, said out loud.
    const repair = await repairStore(dataDir, {});
    expect(repair.actions.join('\n')).toContain(`records 1-${firstSeq - 1}`);
    const revived = await start(dataDir);
    expect(present(revived, 30)).toEqual(range(firstSeq - 1, 30));
  });

  it('refuses to start when a segment in the middle is missing, naming the gap', async () => {
    const dataDir = await tempDir();
    const bus = await journalOf(dataDir, 30);
    await bus.close();
    const files = await segments(dataDir);
    expect(files.length).toBeGreaterThan(3);
    const gone = files[1];
    await rm(path.join(dataDir, 'journal', gone));
    const from = Number(gone.slice(0, 12));
    const to = Number(files[2].slice(0, 12)) - 1;
    const refused = await makeService({}, { dataDir }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(StoreError);
    expect((refused as Error).message).toMatch(
      new RegExp(
        `the journal lacks ${to - from + 1} records ${from}-${to} .*they are lost and were acknowledged`,
      ),
    );
  });

  it('starts from the journal when the snapshot is damaged and the journal holds everything', async () => {
    const dataDir = await tempDir();
    const first = await start(dataDir);
    await send(first, 0, 5);
    await stop(first);
    const snapshot = path.join(dataDir, 'state', 'snapshot.ndjson');
    const text = await readFile(snapshot, 'utf8');
    await writeFile(snapshot, text.replace('svc-3', 'svc-8'));

    const log = capturedLog();
    const second = await start(dataDir, log);
    expect(present(second, 5)).toEqual(range(0, 5));
    const [moved] = await readdir(path.join(dataDir, 'state', 'quarantine'));
    expect(moved).toMatch(/^snapshot\.ndjson\..*\.damaged$/);
    expect(await readFile(path.join(dataDir, 'state', 'quarantine', moved), 'utf8')).toBe(
      text.replace('svc-3', 'svc-8'),
    );
    expect(log.messages().join('\n')).toContain(
      `snapshot: ${snapshot} is damaged (the trailer does not match the content)`,
    );
    await send(second, 5, 7);
    await stop(second);
    expect(present(await start(dataDir), 7)).toEqual(range(0, 7));
  });
});
