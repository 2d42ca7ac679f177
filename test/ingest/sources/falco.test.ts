// The falco source on every real Falco alert (syscall, k8s audit, Elastic's samples), NDJSON through the
// listener, the join to the k8s dump's workload, and runtime evidence pricing the hop into it.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createFalcoSource, workloadOf } from '../../../src/ingest/sources/falco.js';
import { ndjsonToArray } from '../../../src/ingest/yaml.js';
import { RUNTIME_PROBABILITY } from '../../../src/model/probability.js';
import { edge, envelope, node } from '../../helpers/envelope.js';
import { normalize, REAL, rejection } from '../../helpers/normalize.js';
import { makeService } from '../../helpers/service.js';

const falco = createFalcoSource();
const alerts = (file: string) => ndjsonToArray(readFileSync(path.join(REAL, 'falco', file), 'utf8')) as any[];

describe('falco: the real alerts', () => {
  it('marks the pods of syscall alerts as observed under attack', () => {
    const out = normalize(falco, alerts('falco-website-syscall-alerts.ndjson'));
    const observed = out.nodes.filter((n) => n.properties?.runtime_observed === true);
    expect(observed.length).toBeGreaterThan(0);
    expect(out.node('Service', 'default/alpine').properties).toMatchObject({
      runtime_observed: true,
      runtime_rules: expect.arrayContaining(['Terminal shell in container']),
    });
  });

  it('marks the acting users of Kubernetes audit alerts', () => {
    const out = normalize(falco, alerts('falco-website-k8saudit-alerts.ndjson'));
    expect(out.names('User')).toContain('user/csi-cinder-controller');
    expect(out.nodes.every((n) => n.properties?.runtime_observed === true)).toBe(true);
  });

  it('takes containers by name and keeps ATT&CK tags (Elastic samples)', () => {
    const out = normalize(falco, alerts('elastic-integrations-falco-alerts.ndjson'));
    const service = out.node('Service', 'elastic-package-service-falco-event-generator-1');
    expect(service.properties).toMatchObject({
      runtime_observed: true,
      runtime_priority: 'warning',
      runtime_attack: expect.arrayContaining(['T1555']),
    });
  });

  it('refuses an alert that names nothing to attach it to, and malformed alerts, by pointer', () => {
    expect(
      rejection(falco, { rule: 'x', priority: 'Notice', output: 'o', output_fields: {} })[0].pointer,
    ).toBe('/output_fields');
    expect(rejection(falco, [{ rule: 'x', priority: 'Notice', output: 'o' }])[0].pointer).toBe(
      '/0/output_fields',
    );
  });

  it('names a Deployment pod by its workload', () => {
    expect(workloadOf('checkout-7d4b9c8f6d-x2x9q')).toBe('checkout');
    expect(workloadOf('alpine')).toBe('alpine');
  });

  it('strips only the suffixes Deployments and CronJobs generate (pod names of the real fixtures)', () => {
    const stripped: [string, string][] = [
      // The Falco website's alerts, and the kubelet pod lists the Datadog agent's tests keep.
      ['alpine-deployment-77789455d6-m7flp', 'alpine-deployment'],
      ['falco-pod-delete-7dc9f5fbb8-gbfk7', 'falco-pod-delete'],
      ['poolmgr-go-default-516098-5bdbf8c8f5-g8gvc', 'poolmgr-go-default-516098'],
      ['nginx-99d8b564-4r4vq', 'nginx'],
      ['redis-75586d7d7c-jrm7j', 'redis'],
      // A CronJob's Job is `<cronjob>-<minutes since 1970>`, its pod that and `-<5>`.
      ['nightly-29403180-x7k2p', 'nightly'],
    ];
    for (const [pod, workload] of stripped) expect(workloadOf(pod), pod).toBe(workload);
    // Twins, kept whole: static pods (`<name>-<node>`), a DaemonSet's and a StatefulSet's pods (aliased by
    // the k8s dump), and suffixes Kubernetes never generates (vowels, `0`, `1`, `3`; a 4-character hash).
    const whole = [
      'kube-scheduler-bpnn6',
      'kube-apiserver-node1',
      'kube-apiserver-my-node-name',
      'kube-proxy-gke-haissam-default-pool-be5066f1-wnvn',
      'kube-proxy-rnd5q',
      'web-0',
      'reviews-5f7c9d8b6c-abcde',
      'reviews-5f7c9d8b6c-x8k2',
      'reviews-7d4b-x8k2p',
      'etcd-kind-control-plane',
    ];
    for (const pod of whole) expect(workloadOf(pod), pod).toBe(pod);
  });

  it('an alert on a static pod marks that pod, not a workload named after its first word', () => {
    const out = normalize(falco, {
      rule: 'Terminal shell in container',
      priority: 'Notice',
      output: 'shell',
      output_fields: { 'k8s.ns.name': 'kube-system', 'k8s.pod.name': 'kube-scheduler-bpnn6' },
    });
    expect(out.names('Service')).toEqual(['kube-system/kube-scheduler-bpnn6']);
  });
});

describe('falco through the listener', () => {
  it('prices the hop into an alerted workload with basis runtime, and counts the path as runtime-confirmed', async () => {
    const service = await makeService();
    const lb = node('LoadBalancer', 'shop/ingress/web', { internet_exposed: true });
    const web = node('Service', 'shop/checkout');
    const db = node('Database', 'orders', { crown_jewel: true });
    await service.ingest(
      envelope([lb, web, db], [edge('ROUTES_TO', lb, web), edge('HAS_PERMISSION', web, db, 0.9)]),
    );
    await service.settle();
    const before = await service.graphql(
      '{ attackPaths { steps { probability weightBasis } } posture { runtimeConfirmed } }',
    );
    expect(before.attackPaths[0].steps[0]).toMatchObject({ weightBasis: 'heuristic' });
    expect(before.posture.runtimeConfirmed).toBe(0);
    const ndjson = [
      {
        rule: 'Terminal shell in container',
        priority: 'Notice',
        output: 'shell',
        output_fields: {
          'k8s.ns.name': 'shop',
          'k8s.pod.name': 'checkout-7d4b9c8f6d-x2x9q',
          'container.image.repository': 'ghcr.io/acme/checkout',
          'container.image.tag': '1.0',
        },
      },
      {
        rule: 'Read sensitive file untrusted',
        priority: 'Warning',
        output: 'shadow',
        output_fields: { 'k8s.ns.name': 'shop', 'k8s.pod.name': 'checkout-7d4b9c8f6d-x2x9q' },
      },
    ]
      .map((a) => JSON.stringify(a))
      .join('\n');
    const response = await service.ingestApp.inject({
      method: 'POST',
      url: '/ingest/falco',
      headers: { 'content-type': 'application/x-ndjson' },
      payload: ndjson,
    });
    expect(response.statusCode).toBe(202);
    await service.settle();
    const after = await service.graphql(
      '{ attackPaths { steps { probability weightBasis } } posture { runtimeConfirmed } }',
    );
    expect(after.attackPaths[0].steps[0]).toMatchObject({
      weightBasis: 'runtime',
      probability: RUNTIME_PROBABILITY,
    });
    expect(after.posture.runtimeConfirmed).toBe(1);
    const graph = service.engine.tenant('default')!.graph;
    expect(graph.getNodeAttribute(web.id, 'props')).toMatchObject({
      runtime_priority: 'warning',
      runtime_rules: ['Terminal shell in container', 'Read sensitive file untrusted'],
    });
    await service.dispose();
  });

  it('keeps an alert for a pod the graph does not hold yet, and the cluster dump lands on it later', async () => {
    const service = await makeService();
    const alert = {
      rule: 'Terminal shell in container',
      priority: 'Notice',
      output: 'shell',
      output_fields: { 'k8s.ns.name': 'shop', 'k8s.pod.name': 'reviews-5f7c9d8b6c-x8k2p' },
    };
    expect((await service.ingest(alert, { source: 'falco' })).status).toBe(202);
    expect((await service.ingest(alert, { source: 'falco' })).status).toBe(202);
    await service.settle();
    const graph = service.engine.tenant('default')!.graph;
    const reviews = node('Service', 'shop/reviews');
    expect(graph.getNodeAttribute(reviews.id, 'props')).toMatchObject({
      runtime_observed: true,
      runtime_alert_count: 1,
    });
    const dump = {
      apiVersion: 'v1',
      kind: 'List',
      items: [
        {
          kind: 'Deployment',
          metadata: { name: 'reviews', namespace: 'shop' },
          spec: {
            template: {
              metadata: { labels: { app: 'reviews' } },
              spec: { containers: [{ name: 'r', image: 'acme/reviews:1' }] },
            },
          },
        },
      ],
    };
    expect((await service.ingest(dump, { source: 'k8s' })).status).toBe(202);
    await service.settle();
    expect(graph.getNodeAttribute(reviews.id, 'props')).toMatchObject({
      runtime_observed: true,
      kind: 'deployment',
      image: 'acme/reviews:1',
    });
    await service.dispose();
  });
});
