import { open, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { BusRecord, Delivery } from '../../src/bus/bus.js';
import { createEmbeddedBus, serializeRecord } from '../../src/bus/memory.js';
import { chunkEnvelope } from '../../src/ingest/chunk.js';
import { encodeForPosting } from '../../src/ingest/envelope-json.js';
import { tempDir } from '../helpers/service.js';
import { envelope, node } from '../helpers/envelope.js';

const record = (batchId: string, chunk = 0, chunks = 1): BusRecord => ({
  tenant: 't',
  ingestSource: 'events',
  batchId,
  chunk,
  chunks,
  receivedAt: 1000,
  envelope: envelope([node('Service', batchId)]),
});

function stubLog() {
  return { info: vi.fn(), warn: vi.fn(), error: vi.fn() };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('embedded bus', () => {
  it('delivers published batches in order, once, after they are durable', async () => {
    const dir = await tempDir();
    const bus = await createEmbeddedBus({ dir });
    const seen: Delivery[] = [];
    bus.consume((d) => {
      seen.push(d);
    });
    await bus.publish([record('a', 0, 2), record('a', 1, 2)]);
    await bus.publish([record('b')]);
    await bus.drain();
    expect(seen.map((d) => [d.seq, d.batchId, d.chunk])).toEqual([
      [1, 'a', 0],
      [2, 'a', 1],
      [3, 'b', 0],
    ]);
    expect(seen[0]).not.toHaveProperty('envelopeJson');
    await bus.close();
  });

  it('gives the event loop a turn while a long batch is applied, in order and once', async () => {
    // A large report's chunks are applied back to back; without a turn, the next request's bytes (and every
    // API call of the process) would wait for the whole batch.
    const dir = await tempDir();
    const bus = await createEmbeddedBus({ dir });
    const seen: number[] = [];
    let turnAfter = -1;
    bus.consume((d) => {
      // Asked for as the batch starts: without turns it would run only once the batch is through.
      if (d.chunk === 0) setImmediate(() => (turnAfter = seen.length));
      const until = performance.now() + 4;
      while (performance.now() < until); // the apply of a chunk holding the thread
      seen.push(d.chunk);
    });
    const chunks = 20;
    await bus.publish(Array.from({ length: chunks }, (_, i) => record('big', i, chunks)));
    await bus.drain();
    expect(seen).toEqual(Array.from({ length: chunks }, (_, i) => i));
    expect(turnAfter).toBeGreaterThan(0);
    expect(turnAfter).toBeLessThan(chunks);
    await bus.close();
  });

  it('replays what was journaled before, after the snapshot point, then live records', async () => {
    const dir = await tempDir();
    const first = await createEmbeddedBus({ dir });
    first.consume(() => undefined);
    await first.publish([record('a')]);
    await first.publish([record('b')]);
    await first.publish([record('c')]);
    await first.close();

    const second = await createEmbeddedBus({ dir, afterSeq: 1 });
    const seen: string[] = [];
    second.consume(async (d) => {
      await new Promise((r) => setTimeout(r, 1));
      seen.push(`${d.seq}:${d.batchId}`);
    });
    await second.publish([record('d')]);
    await second.drain();
    expect(seen).toEqual(['2:b', '3:c', '4:d']);
    await second.close();
  });

  it('keeps delivering after the consumer throws on one record', async () => {
    const bus = await createEmbeddedBus({ dir: await tempDir() });
    const seen: string[] = [];
    bus.consume((d) => {
      if (d.batchId === 'bad') throw new Error('boom');
      seen.push(d.batchId);
    });
    await bus.publish([record('bad')]);
    await bus.publish([record('good')]);
    await bus.drain();
    expect(seen).toEqual(['good']);
    await bus.close();
  });

  it('serializes a record with the producer-supplied envelope JSON spliced in', () => {
    const r = record('a');
    const withJson = serializeRecord({ ...r, envelopeJson: JSON.stringify(r.envelope) });
    expect(JSON.parse(withJson)).toEqual(JSON.parse(serializeRecord(r)));
    expect(JSON.parse(withJson)).not.toHaveProperty('envelopeJson');
  });
  it('journals a chunk JSON given in pieces byte for byte as the joined JSON, and delivers it parsed', async () => {
    const chunks = chunkEnvelope(
      envelope(Array.from({ length: 60 }, (_, i) => node('Service', `svc-${i} ☃`, { pad: 'p'.repeat(40) }))),
      1024,
    );
    expect(chunks.length).toBeGreaterThan(2);
    const forms = ['joined', 'split', 'encoded'] as const;
    const records = (form: (typeof forms)[number]): BusRecord[] =>
      chunks.map((c, chunk) => ({
        ...record('a', chunk, chunks.length),
        envelope: undefined,
        envelopeJson:
          form === 'joined'
            ? c.json
            : form === 'split'
              ? c.split!
              : { ...encodeForPosting(c.split!), release: () => released.push(chunk) },
      }));
    // The chunks whose bytes the bus said it was done with (a worker may fill them again).
    const released: number[] = [];
    const journals: string[] = [];
    for (const form of forms) {
      const dir = await tempDir();
      const bus = await createEmbeddedBus({ dir });
      const seen: Delivery[] = [];
      bus.consume((d) => {
        seen.push(d);
      });
      await bus.publish(records(form));
      await bus.drain();
      await bus.close();
      expect(seen.map((d) => d.envelope)).toEqual(chunks.map((c) => c.envelope));
      journals.push(await readFile(path.join(dir, '000000000001.log'), 'utf8'));
    }
    // Each once, by the time the bus drained.
    expect(released).toEqual(chunks.map((_c, i) => i));
    expect(journals[0]).toContain(chunks[1].json);
    expect(journals[1]).toBe(journals[0]);
    expect(journals[2]).toBe(journals[0]);
  });

  it('delivers the published objects themselves, one at a time, awaiting an async consumer', async () => {
    const bus = await createEmbeddedBus({ dir: await tempDir() });
    const published = [record('a', 0, 3), record('a', 1, 3), record('a', 2, 3)];
    const seen: Delivery[] = [];
    let inside = 0;
    bus.consume(async (d) => {
      expect(inside++).toBe(0);
      await new Promise((r) => setImmediate(r));
      seen.push(d);
      inside--;
    });
    await Promise.all([bus.publish(published.slice(0, 2)), bus.publish(published.slice(2))]);
    await bus.drain();
    expect(seen.map((d) => d.seq)).toEqual([1, 2, 3]);
    seen.forEach((d, i) => expect(d.envelope).toBe(published[i].envelope));
    await bus.close();
  });

  it('delivers a batch published before consume() exactly once', async () => {
    const bus = await createEmbeddedBus({ dir: await tempDir() });
    await bus.publish([record('early')]);
    const seen: string[] = [];
    bus.consume((d) => {
      seen.push(`${d.seq}:${d.batchId}`);
    });
    await bus.publish([record('late')]);
    await bus.drain();
    expect(seen).toEqual(['1:early', '2:late']);
    await bus.close();
  });

  it('replays everything after a reopen exactly once and in order; afterSeq skips what a snapshot holds', async () => {
    const dir = await tempDir();
    const first = await createEmbeddedBus({ dir, rotateAt: 300 });
    first.consume(() => undefined);
    for (let i = 1; i <= 12; i++) await first.publish([record(`b${i}`, 0, 2), record(`b${i}`, 1, 2)]);
    expect(first.lastSeq()).toBe(24);
    await first.close();

    for (const afterSeq of [0, 7, 24]) {
      const bus = await createEmbeddedBus({ dir, afterSeq, rotateAt: 300 });
      const seqs: number[] = [];
      bus.consume((d) => {
        seqs.push(d.seq);
        expect(d.batchId).toBe(`b${Math.ceil(d.seq / 2)}`);
        expect(d.envelope.nodes[0].name).toBe(d.batchId);
      });
      await bus.drain();
      expect(seqs).toEqual(Array.from({ length: 24 - afterSeq }, (_, i) => afterSeq + i + 1));
      await bus.close();
    }
  });

  it('drain() waits for a publish still being journaled', async () => {
    const bus = await createEmbeddedBus({ dir: await tempDir() });
    const seen: string[] = [];
    bus.consume((d) => {
      seen.push(d.batchId);
    });
    const publishing = bus.publish([record('a')]);
    await bus.drain();
    expect(seen).toEqual(['a']);
    await publishing;
    await bus.close();
  });

  it('rejects a publish whose journal write fails, delivers none of it, logs it, and goes on', async () => {
    const dir = await tempDir();
    const log = stubLog();
    const bus = await createEmbeddedBus({ dir, logger: log });
    const seen: string[] = [];
    bus.consume((d) => {
      seen.push(d.batchId);
    });
    const probe = await open(path.join(dir, 'probe'), 'w');
    await probe.close();
    vi.spyOn(Object.getPrototypeOf(probe), 'datasync').mockRejectedValueOnce(
      new Error('EIO: i/o error, fsync'),
    );
    await expect(bus.publish([record('lost', 0, 2), record('lost', 1, 2)])).rejects.toThrow(/EIO/);
    expect(log.error).toHaveBeenCalledWith(expect.objectContaining({ records: 2 }), expect.any(String));
    await bus.publish([record('kept')]);
    await bus.drain();
    expect(seen).toEqual(['kept']);
    await bus.close();

    const reopened = await createEmbeddedBus({ dir });
    const replayed: string[] = [];
    reopened.consume((d) => {
      replayed.push(`${d.seq}:${d.batchId}`);
    });
    await reopened.drain();
    expect(replayed).toEqual(['1:kept']);
    await reopened.close();
  });

  it('warns when opening cut off a torn write', async () => {
    const dir = await tempDir();
    const first = await createEmbeddedBus({ dir });
    await first.publish([record('a')]);
    await first.close();
    const file = path.join(dir, '000000000001.log');
    await writeFile(file, `${await readFile(file, 'utf8')}2 {"tena`);
    const log = stubLog();
    const bus = await createEmbeddedBus({ dir, logger: log });
    expect(log.warn).toHaveBeenCalledWith(
      expect.objectContaining({ file, droppedBytes: 8 }),
      expect.any(String),
    );
    expect(bus.lastSeq()).toBe(1);
    await bus.close();
  });

  it('refuses to open on damage to committed records; stops delivering when replay finds later damage', async () => {
    const dir = await tempDir();
    const first = await createEmbeddedBus({ dir, rotateAt: 100 });
    for (const id of ['a', 'b', 'c']) await first.publish([record(id)]);
    await first.close();
    const file = path.join(dir, '000000000001.log');
    const text = await readFile(file, 'utf8');
    const log = stubLog();
    const bus = await createEmbeddedBus({ dir, rotateAt: 100, logger: log });
    await writeFile(file, text.replace('"batchId":"a"', '"batchId":"z"'));
    const seen: string[] = [];
    bus.consume((d) => {
      seen.push(d.batchId);
    });
    await bus.publish([record('d')]);
    await expect(bus.drain()).rejects.toThrow(/000000000001\.log is damaged at byte \d+/);
    expect(seen).toEqual([]);
    expect(log.error).toHaveBeenCalled();
    await bus.close();
    await expect(createEmbeddedBus({ dir, rotateAt: 100 })).rejects.toThrow(
      /000000000001\.log is damaged at byte \d+ .*record 1 \(batch z\) committed, and may have been acknowledged/,
    );
  });

  it('closes without a consumer; what was published waits in the journal', async () => {
    const dir = await tempDir();
    const bus = await createEmbeddedBus({ dir });
    await bus.publish([record('a')]);
    await bus.close();
    await expect(bus.publish([record('b')])).rejects.toThrow(/closed/);
    const reopened = await createEmbeddedBus({ dir });
    const seen: string[] = [];
    reopened.consume((d) => {
      seen.push(d.batchId);
    });
    await reopened.drain();
    expect(seen).toEqual(['a']);
    await reopened.close();
  });

  it('answers a publish only once what is waiting for the consumer is back under the bound', async () => {
    // A client sending large reports back to back would otherwise pile them up in memory faster than the
    // graph takes them; they are durable either way.
    const dir = await tempDir();
    const bound = serializeRecord(record('a')).length * 2;
    const bus = await createEmbeddedBus({ dir, backlogChars: bound });
    const applied: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    bus.consume(async (d) => {
      if (d.batchId === 'a') await held;
      applied.push(d.batchId);
    });
    // Within the bound: answered at once although nothing is applied yet.
    await bus.publish([record('a')]);
    expect(applied).toEqual([]);
    let answered = false;
    const second = bus.publish([record('b'), record('c')]).then(() => (answered = true));
    await new Promise((resolve) => setTimeout(resolve, 30));
    // Three records wait (a is held): over the bound, so the second batch's answer waits, durable already.
    expect(answered).toBe(false);
    expect(bus.lastSeq()).toBe(3);
    release();
    await second;
    expect(applied[0]).toBe('a');
    await bus.drain();
    expect(applied).toEqual(['a', 'b', 'c']);
    await bus.close();
  });

  it('tells how much waits for the consumer, in bytes of journal lines, until it is through', async () => {
    // The engine weighs a large report against it: a worker prepares it only beside enough writes.
    const dir = await tempDir();
    const bus = await createEmbeddedBus({ dir });
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const applied: string[] = [];
    bus.consume(async (d) => {
      if (d.batchId === 'a') await held;
      applied.push(d.batchId);
    });
    expect(bus.backlogBytes()).toBe(0);
    await bus.publish([record('a'), record('b')]);
    const line = (batchId: string) => Buffer.byteLength(serializeRecord(record(batchId)));
    expect(bus.backlogBytes()).toBe(line('a') + line('b'));
    release();
    await bus.drain();
    expect(applied).toEqual(['a', 'b']);
    expect(bus.backlogBytes()).toBe(0);
    await bus.close();
  });

  it('answers at once without a consumer: nothing applies yet, so nothing is waited for', async () => {
    const dir = await tempDir();
    const bus = await createEmbeddedBus({ dir, backlogChars: 1 });
    await bus.publish([record('a'), record('b')]);
    expect(bus.lastSeq()).toBe(2);
    await bus.close();
  });
});
