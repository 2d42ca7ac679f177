// Graph writes wait while a large report body is read (src/engine/body-reads.ts), for at most maxHoldMs from
// the first of a run of bodies: a client trickling its body cannot hold the graph back.
import { describe, expect, it } from 'vitest';
import { BodyReads } from '../../src/engine/body-reads.js';

const settled = async (promise: Promise<void> | undefined) => {
  let done = false;
  void promise?.then(() => (done = true));
  await new Promise((resolve) => setImmediate(resolve));
  return done;
};

describe('BodyReads', () => {
  it('holds nothing while no body is read', () => {
    expect(new BodyReads().hold()).toBeUndefined();
  });

  it('holds writes until the last body of a run is read', async () => {
    const reads = new BodyReads(60_000);
    reads.started();
    reads.started();
    const held = reads.hold();
    expect(held).toBeInstanceOf(Promise);
    reads.ended();
    expect(await settled(held)).toBe(false);
    reads.ended();
    expect(await settled(held)).toBe(true);
    expect(reads.hold()).toBeUndefined();
  });

  it('holds at most maxHoldMs from the first body, however long the bodies take', async () => {
    let now = 0;
    const reads = new BodyReads(100, () => now);
    reads.started();
    now = 60;
    const held = reads.hold();
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(await settled(held)).toBe(true);
    now = 100;
    // The run's budget is spent: writes go on while the body is still being read.
    expect(reads.hold()).toBeUndefined();
  });

  it('an end without a start changes nothing', () => {
    const reads = new BodyReads();
    reads.ended();
    reads.started();
    expect(reads.hold()).toBeInstanceOf(Promise);
    reads.ended();
  });
});
