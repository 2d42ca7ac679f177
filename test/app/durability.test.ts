import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { edge, envelope, node } from '../helpers/envelope.js';
import { makeService, tempDir, type TestService } from '../helpers/service.js';

const lb = node('LoadBalancer', 'public-lb', { internet_exposed: true });
const app = node('Service', 'checkout');
const db = node('Database', 'orders-db', { crown_jewel: true });

const cleanup: TestService[] = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!.dispose();
});

describe('restart', () => {
  it('restores graph, parked edges and path history from the snapshot written at shutdown', async () => {
    const first = await makeService();
    await first.ingest(
      envelope([lb, app, db], [edge('ROUTES_TO', lb, app, 0.9), edge('HAS_PERMISSION', app, db, 0.9)]),
    );
    await first.ingest(envelope([], [edge('CONNECTS_TO', app, node('Service', 'not-yet'))]));
    await first.settle();
    const before = (await first.graphql('{ attackPaths { id score firstSeen reopens } }')).attackPaths;
    expect(before).toHaveLength(1);
    await first.dispose({ keepData: true });

    const second = await makeService({}, { dataDir: first.dataDir });
    cleanup.push(second);
    const state = second.engine.tenant('default')!;
    expect(state.graph.order).toBe(3);
    expect(state.graph.size).toBe(2);
    expect(state.writer.pendingEdges).toBe(1);
    // Path history survives: same id, same first_seen, even before the first pass.
    expect((await second.graphql('{ attackPaths { id score firstSeen reopens } }')).attackPaths).toEqual(
      before,
    );
    await second.settle();
    expect((await second.graphql('{ attackPaths { id score firstSeen reopens } }')).attackPaths).toEqual(
      before,
    );
  });

  it('keeps every acknowledged batch when the process is killed (journal replay)', async () => {
    const dataDir = await tempDir();
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', new URL('./fixtures/serve-child.ts', import.meta.url).pathname],
      {
        env: {
          ...process.env,
          DATA_DIR: dataDir,
          INGEST_ADDR: '127.0.0.1:0',
          API_ADDR: '127.0.0.1:0',
          ANALYZER_THREADS: '1',
          SNAPSHOT_INTERVAL: '1h',
        },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    try {
      const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
      const { ingestUrl } = JSON.parse(line) as { ingestUrl: string };
      const acknowledged: string[] = [];
      for (let i = 0; i < 20; i++) {
        const svcNode = node('Service', `svc-${i}`, { n: i });
        const response = await fetch(`${ingestUrl}/ingest/events`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(
            envelope(i === 0 ? [lb, svcNode] : [svcNode], [edge('ROUTES_TO', lb, svcNode)]),
          ),
        });
        expect(response.status).toBe(202);
        acknowledged.push(svcNode.id);
      }
      child.kill('SIGKILL');
      await once(child, 'exit');
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }

    const revived = await makeService({}, { dataDir });
    cleanup.push(revived);
    const state = revived.engine.tenant('default')!;
    expect(state.graph.order).toBe(21);
    expect(state.graph.size).toBe(20);
    for (let i = 0; i < 20; i++)
      expect(state.graph.getNodeAttribute(node('Service', `svc-${i}`).id, 'props')).toEqual({ n: i });
  });
  it('loses none of the reports acknowledged while it was killed mid-stream, again and again, snapshots included', async () => {
    const dataDir = await tempDir();
    const acknowledged: string[] = [];
    // Each round restarts on what the last kill left: a torn write, a half-written snapshot, a compaction.
    for (let round = 0; round < 3; round++) {
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', new URL('./fixtures/serve-child.ts', import.meta.url).pathname],
        {
          env: {
            ...process.env,
            DATA_DIR: dataDir,
            INGEST_ADDR: '127.0.0.1:0',
            API_ADDR: '127.0.0.1:0',
            ANALYZER_THREADS: '1',
            SNAPSHOT_INTERVAL: '150ms',
          },
          stdio: ['ignore', 'pipe', 'inherit'],
        },
      );
      try {
        const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
        const { ingestUrl } = JSON.parse(line) as { ingestUrl: string };
        const before = acknowledged.length;
        let n = 0;
        let killing = false;
        // Six clients posting back to back: the kill lands with requests in flight, mid-write or mid-fsync.
        const poster = async () => {
          for (;;) {
            const name = `r${round}-${n++}`;
            const svcNode = node('Service', name, { pad: 'x'.repeat(2000) });
            let status: number;
            try {
              const response = await fetch(`${ingestUrl}/ingest/events`, {
                method: 'POST',
                headers: { 'content-type': 'application/json' },
                body: JSON.stringify(envelope([svcNode])),
              });
              status = response.status;
            } catch {
              return;
            }
            if (status === 202) acknowledged.push(svcNode.id);
            if (!killing && acknowledged.length - before >= 60) {
              killing = true;
              setTimeout(() => child.kill('SIGKILL'), Math.random() * 40);
            }
          }
        };
        await Promise.all(Array.from({ length: 6 }, poster));
        if (child.exitCode === null && child.signalCode === null) await once(child, 'exit');
        expect(child.signalCode).toBe('SIGKILL');
      } finally {
        if (child.exitCode === null) child.kill('SIGKILL');
      }
    }

    const revived = await makeService({}, { dataDir });
    cleanup.push(revived);
    const graph = revived.engine.tenant('default')!.graph;
    const lost = acknowledged.filter((id) => !graph.hasNode(id));
    expect(acknowledged.length).toBeGreaterThanOrEqual(180);
    expect({ acknowledged: acknowledged.length, lost }).toEqual({
      acknowledged: acknowledged.length,
      lost: [],
    });
  });
});
