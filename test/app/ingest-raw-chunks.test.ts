// POST /ingest/events journals chunks cut from the request's own text (src/ingest/chunk-raw.ts): a service
// started on a copy of the journal alone (no snapshot) replays it into the very graph the live delivery
// built, for bodies written in unusual ways (white space, CRLF, escapes, non-ASCII, a key given twice), with
// an id derived and a secret scrubbed; and the secret is in no journal file.
import { cp, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { graphState } from '../helpers/graph-state.js';
import { edge, envelope, node } from '../helpers/envelope.js';
import { makeService, tempDir, type TestService } from '../helpers/service.js';

const cleanup: TestService[] = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!.dispose();
});

const SECRET = 'AKIAIOSFODNN7EXAMPLE';

describe('events chunks cut from the request text', () => {
  it('replays from the journal alone into the graph the live delivery built', async () => {
    const live = await makeService({ SCRUB_INGEST: 'true' });
    cleanup.push(live);
    const lb = node('LoadBalancer', 'edge-lb ☃', { internet_exposed: true });
    const svc = node('Service', 'checkout — naïve 🚀', { note: 'quote " brace } bracket ] comma ,' });
    const db = node('Database', 'orders-db', { crown_jewel: true, nested: { list: [1, [2, { x: '}' }]] } });
    const { id: _id, ...noId } = node('Service', 'derived-id');
    const leaky = node('Service', 'leaky', { env: [`AWS_ACCESS_KEY_ID=${SECRET}`] });
    const many = Array.from({ length: 3000 }, (_, i) =>
      node('Service', `bulk-${i}`, { pad: 'é'.repeat(i % 50) }),
    );
    const bodies = [
      // written compact, large enough for several chunks
      JSON.stringify(
        envelope(
          [lb, ...many],
          many.map((n) => edge('ROUTES_TO', lb, n, 0.5)),
        ),
      ),
      // white space, CRLF, \u escapes, a number written long, a key given twice (the last counts)
      `{ "source" : "odd",\r\n "kind":"asset", "observed_at":"2025-01-01T00:00:00.000Z",\r\n "nodes":[{"label":"Service","name":"ghost"},1,"x",{"a":[]}],` +
        ` "n\\u006fdes" : [ ${JSON.stringify(svc).replace('checkout', '\\u0063heckout')} ,\r\n${JSON.stringify(db, null, 2)} ,\t${JSON.stringify(noId)}, ${JSON.stringify(leaky)} ],` +
        ` "edges":[ ${JSON.stringify(edge('ROUTES_TO', lb, svc, 0.9)).replace('0.9', '9.000e-1')} , ${JSON.stringify(edge('HAS_PERMISSION', svc, db, 0.25))} ] }`,
    ];
    for (const body of bodies) expect((await live.ingest(body)).status).toBe(202);
    // A pull request's scan: its stamp changes every node, so none is journaled as the request wrote it.
    const pr = JSON.stringify(envelope([node('Service', 'pr-service', { a: 1 })]));
    expect((await live.ingest(pr, { query: 'slug=acme/shop&pr=7&sha=abcdef1' })).status).toBe(202);
    await live.settle();
    const built = graphState(live.engine.tenant('default')!.graph);
    expect(built.order).toBe(3001 + 4 + 1);
    expect(built.nodes.find((n) => n.name === 'pr-service')?.props).toMatchObject({ pr_number: 7 });
    expect(built.nodes.some((n) => n.name === 'ghost')).toBe(false);
    expect(built.nodes.find((n) => n.name === 'derived-id')?.id).toBe(node('Service', 'derived-id').id);
    expect(JSON.stringify(built)).not.toContain(SECRET);

    const journal = path.join(live.dataDir, 'journal');
    const segments = await readdir(journal);
    expect(segments.length).toBeGreaterThan(0);
    let journaled = '';
    for (const file of segments) journaled += await readFile(path.join(journal, file), 'utf8');
    expect(journaled).toContain('derived-id');
    expect(journaled).not.toContain(SECRET);
    const copy = await tempDir();
    await cp(journal, path.join(copy, 'journal'), { recursive: true });
    const replayed = await makeService({ SCRUB_INGEST: 'true' }, { dataDir: copy });
    cleanup.push(replayed);
    await replayed.settle();
    expect(graphState(replayed.engine.tenant('default')!.graph)).toEqual(built);
  });
});
