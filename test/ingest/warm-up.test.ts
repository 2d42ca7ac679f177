// The start-up warm-up of the ingest path (src/ingest/warm-up.ts): its samples must keep exercising what a
// real report does (a sample the normalizer stopped understanding would warm nothing), and it must leave
// no trace in the service it runs in.
import { afterEach, describe, expect, it } from 'vitest';
import { prepareEventsByItem } from '../../src/ingest/events-by-item.js';
import { createSources } from '../../src/ingest/sources/index.js';
import type { IngestSource } from '../../src/ingest/sources/source.js';
import {
  NORMALIZE_ROUNDS,
  ROUNDS,
  warmUpClusterDump,
  warmUpEnvelope,
  warmUpIngest,
} from '../../src/ingest/warm-up.js';
import { makeService, type TestService } from '../helpers/service.js';

const sources = createSources();
const normalize = (name: string, body: object) =>
  sources.get(name)!.normalize({
    body: JSON.parse(JSON.stringify(body)),
    query: {},
    receivedAt: new Date().toISOString(),
  });

describe('ingest warm-up samples', () => {
  it('the cluster dump reaches the joins a real dump does: images, escapes, secrets, one workload per controller', () => {
    const namespaces = 3;
    const { envelopes, warnings } = normalize('k8s', warmUpClusterDump(namespaces));
    expect(warnings).toEqual([]);
    const [envelope] = envelopes;
    const byId = new Map(envelope.nodes.map((n) => [n.id, n]));
    const types = (type: string, toLabel: string) =>
      envelope.edges.filter((e) => e.type === type && byId.get(e.to)?.label === toLabel);
    expect(types('DEPENDS_ON', 'Image').length).toBeGreaterThan(0);
    expect(types('CAN_ESCALATE_TO', 'VirtualMachine').length).toBeGreaterThan(0);
    expect(types('HAS_PERMISSION', 'Secret').length).toBeGreaterThan(0);
    // A Deployment, its ReplicaSet and its two Pods are one workload.
    const workloads = envelope.nodes.filter((n) => n.label === 'Service' && /\/app-\d$/.test(n.name));
    expect(workloads).toHaveLength(namespaces * 3);
    // A pods-only listing: six Pods with no owner in the dump, six workloads, all selected by one Service.
    const web = envelope.nodes.filter(
      (n) => n.label === 'Service' && /\/web-7d4b9c8f6d-x2z4\d$/.test(n.name),
    );
    expect(web).toHaveLength(namespaces * 6);
    expect(envelope.edges.filter((e) => e.type === 'EXPOSES' && web.some((w) => w.id === e.to))).toHaveLength(
      namespaces * 6,
    );
  });

  it('the envelope sample passes the events source unchanged in size', () => {
    const { envelopes } = normalize('events', warmUpEnvelope(100));
    expect(envelopes[0].nodes).toHaveLength(100);
    expect(envelopes[0].edges.length).toBeGreaterThan(300);
  });

  it('the envelope sample is prepared item by item, as a worker reads a large events body', () => {
    const told: string[] = [];
    const prepared = prepareEventsByItem(sources.get('events')!, JSON.stringify(warmUpEnvelope(100)), {
      query: {},
      receivedAt: 0,
      scrub: true,
      onChunk: (chunk) => told.push(chunk.json),
    });
    expect(prepared?.nodes).toBe(100);
    expect(told.length).toBeGreaterThan(0);
  });

  it('runs every sample through its source, and skips a source the service does not have', () => {
    const called: string[] = [];
    const spy = (source: IngestSource): IngestSource => ({
      ...source,
      normalize: (input) => (called.push(source.name), source.normalize(input)),
    });
    const ms = warmUpIngest(new Map([['k8s', spy(sources.get('k8s')!)]]));
    expect(Number.isFinite(ms)).toBe(true);
    // the normalizer-only rounds, then the whole path's rounds, of the one sample whose source exists;
    // `events` is absent and skipped
    expect(called).toEqual(Array(NORMALIZE_ROUNDS + ROUNDS).fill('k8s'));
  });
});

describe('ingest warm-up in a started service', () => {
  let service: TestService | undefined;
  afterEach(async () => {
    await service?.dispose();
    service = undefined;
  });

  it('leaves the graph, the tenants and the batch tracker untouched', async () => {
    service = await makeService();
    service.engine.start();
    const data = await service.graphql('{ status { graph { nodes edges } } }');
    expect(data.status.graph).toEqual({ nodes: 0, edges: 0 });
    expect([...service.engine.tenants()]).toEqual([]);
    expect(service.engine.batches.size).toBe(0);
  });
});
