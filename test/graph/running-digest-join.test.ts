// A pod's status names the digest it runs; a scan that reports that digest is the image it runs (1.0),
// whichever arrives first. Found by running a kubectl dump (Deployment, ReplicaSet, Pods with imageID)
// and Trivy's alpine:3.10 scan through the service: dump first joined by tag (0.85), scan first by digest.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { findEdge, createTenantGraph } from '../../src/graph/model.js';
import { GraphWriter } from '../../src/graph/writer.js';
import { createK8sSource } from '../../src/ingest/sources/k8s.js';
import { createTrivySource } from '../../src/ingest/sources/trivy.js';
import type { EventEnvelope } from '../../src/ingest/envelope.js';
import { silentLog } from '../../src/log/logger.js';
import { node } from '../helpers/envelope.js';
import { REAL } from '../helpers/normalize.js';

const RUNNING = 'sha256:b1c5a500182b21d0bfa5a584a8526b56d8be316f89e87d951be04abed2446e60';

/** A pod of a Deployment running alpine:3.10, its status naming the digest (`imageID`). */
const dump = (digest: string) => ({
  apiVersion: 'v1',
  kind: 'List',
  items: [
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'web-6d4cf56db6-abcde',
        namespace: 'shop',
        labels: { app: 'web', 'pod-template-hash': '6d4cf56db6' },
        ownerReferences: [{ kind: 'ReplicaSet', name: 'web-6d4cf56db6', controller: true }],
      },
      spec: { nodeName: 'node-1', containers: [{ name: 'web', image: 'alpine:3.10' }] },
      status: {
        containerStatuses: [
          { name: 'web', image: 'alpine:3.10', imageID: `docker.io/library/alpine@${digest}` },
        ],
      },
    },
  ],
});

const normalized = (source: ReturnType<typeof createK8sSource>, body: unknown, query = {}): EventEnvelope[] =>
  source.normalize({ body, query, receivedAt: '2026-11-22T10:00:00.000Z' }).envelopes;
const scan = () =>
  normalized(
    createTrivySource(),
    JSON.parse(readFileSync(path.join(REAL, 'trivy/alpine-310-registry.json'), 'utf8')),
  );

function join(order: 'dump-first' | 'scan-first', digest: string) {
  const writer = new GraphWriter(createTenantGraph(), { log: silentLog(), parkedTtlMs: 1e12 });
  const k8s = normalized(createK8sSource(), dump(digest), { cluster: 'A' });
  const batches = order === 'dump-first' ? [k8s, scan()] : [scan(), k8s];
  batches.forEach((envelopes, i) => envelopes.forEach((e) => writer.apply(e, i + 1)));
  const workload = node('Service', 'A/shop/web').id;
  const image = node('Image', 'alpine:3.10').id;
  const stitched = findEdge(writer.graph, 'DEPENDS_ON', workload, image);
  expect(stitched, 'the workload depends on the scanned image').toBeDefined();
  return {
    confidence: writer.graph.getEdgeAttributes(stitched!).joinConfidence,
    method: writer.graph.getNodeAttributes(image).props.resolution_method,
  };
}

describe('a workload joins the scan of the digest its pod runs', () => {
  it.each(['dump-first', 'scan-first'] as const)('by digest (1.0) when the %s', (order) => {
    expect(join(order, RUNNING)).toEqual({ confidence: undefined, method: 'digest' });
  });

  it.each(['dump-first', 'scan-first'] as const)(
    'by tag (0.85) when the pod runs another build of the tag (%s)',
    (order) => {
      expect(join(order, `sha256:${'0'.repeat(64)}`)).toEqual({ confidence: 0.85, method: 'tag' });
    },
  );
});
