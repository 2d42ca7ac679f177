// Which large bodies the ingest listener leaves for a worker (src/engine/ingest-workers.ts): an `events` body
// whenever graph writes are pending (a worker reads it item by item, src/ingest/events-by-item.ts); another
// source's when the writes pending would keep the event loop busy for at least half as long as the body
// itself takes to prepare. With none pending, the event loop prepares it (no copy, no re-parse).
import { afterEach, describe, expect, it } from 'vitest';
import {
  createIngestWorkers,
  pendingWrites,
  WORKER_PENDING_SHARE,
  type IngestWorkers,
} from '../../src/engine/ingest-workers.js';
import { WORKER_BODY_BYTES } from '../../src/ingest/report-pool.js';

const MiB = 1024 * 1024;
let open: IngestWorkers[] = [];
afterEach(async () => {
  await Promise.all(open.map((workers) => workers.close()));
  open = [];
});

/** Workers whose pending writes are whatever `pending` says at the time of asking. */
function workers(pending: () => number, options: { threads?: number; always?: boolean } = {}): IngestWorkers {
  const made = createIngestWorkers({
    threads: options.threads ?? 1,
    seedIamUsers: false,
    always: options.always ?? false,
    pendingWriteBytes: pending,
  });
  open.push(made);
  return made;
}

describe('IngestWorkers.defersBody', () => {
  it("sends an events body to a worker behind any pending write: the 100k estate's second request", () => {
    // The 100k estate's second request arrives behind the first's 9.4 MiB of writes.
    let pending = 9.4 * MiB;
    const ingest = workers(() => pending);
    expect(ingest.defersBody('events', 30 * MiB)).toBe(true);
    pending = 1;
    expect(ingest.defersBody('events', 30 * MiB)).toBe(true);
    pending = 0;
    expect(ingest.defersBody('events', 30 * MiB)).toBe(false);
  });

  it("leaves another source's 30 MiB body to the event loop behind 9.4 MiB of writes, to a worker behind 29 MiB", () => {
    let pending = 9.4 * MiB;
    const ingest = workers(() => pending);
    expect(ingest.defersBody('k8s', 30 * MiB)).toBe(false);
    pending = 29 * MiB;
    expect(ingest.defersBody('k8s', 18.7 * MiB)).toBe(true);
  });

  it("defers another source's body from exactly half of it pending on, not a byte before", () => {
    const body = 8 * MiB;
    let pending = body * WORKER_PENDING_SHARE;
    const ingest = workers(() => pending);
    expect(ingest.defersBody('trivy', body)).toBe(true);
    pending -= 1;
    expect(ingest.defersBody('trivy', body)).toBe(false);
  });

  it('prepares on the event loop while nothing is pending, and any body under the megabyte', () => {
    expect(workers(() => 0).defersBody('events', 64 * MiB)).toBe(false);
    expect(workers(() => Number.POSITIVE_INFINITY).defersBody('events', WORKER_BODY_BYTES - 1)).toBe(false);
  });

  it('defers whenever something is pending on a bus that cannot say how much (Infinity)', () => {
    expect(workers(() => Number.POSITIVE_INFINITY).defersBody('events', 64 * MiB)).toBe(true);
  });

  it('defers every large body when told to (tests of the worker path), and none without workers', () => {
    expect(workers(() => 0, { always: true }).defersBody('events', WORKER_BODY_BYTES)).toBe(true);
    expect(workers(() => Number.POSITIVE_INFINITY, { threads: 0 }).defersBody('events', 64 * MiB)).toBe(
      false,
    );
  });

  it('leaves a source no worker prepares to the event loop, however much is pending', () => {
    expect(workers(() => Number.POSITIVE_INFINITY).defersBody('supplychain', 64 * MiB)).toBe(false);
  });
});

describe('pendingWrites', () => {
  it('is 0 once every journaled record is applied, whatever the bus says', () => {
    expect(pendingWrites(7, 7, () => 123)).toBe(0);
    expect(pendingWrites(7, 7)).toBe(0);
  });

  it("is the embedded bus's backlog while records wait", () => {
    expect(pendingWrites(9, 7, () => 4 * MiB)).toBe(4 * MiB);
  });

  it('is unknown (Infinity) behind a bus that cannot tell, and while a replay waits outside the backlog', () => {
    expect(pendingWrites(9, 7)).toBe(Number.POSITIVE_INFINITY);
    expect(pendingWrites(9, 7, () => 0)).toBe(Number.POSITIVE_INFINITY);
  });
});
