import { describe, expect, it } from 'vitest';
import type { BusRecord, Delivery } from '../../src/bus/bus.js';
import { createEmbeddedBus, serializeRecord } from '../../src/bus/memory.js';
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
});
