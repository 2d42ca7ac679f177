// A large YAML body no longer freezes the service (issue 13): it is parsed on a worker thread, so /healthz
// on every listener answers while the parse is still running. Proven by the order of events, not by
// timing: the server has the whole body (the last byte read) → each listener's /healthz answers → the
// body is parsed (the route's preValidation) → 202. Parsed on the event loop, as before, the parse would
// run between the last byte and anything else, so no /healthz could answer before it.
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { makeService, type TestService } from '../helpers/service.js';

let service: TestService;
const urls: Record<'ingest' | 'api' | 'metrics', string> = { ingest: '', api: '', metrics: '' };
const events: string[] = [];
let received: () => void = () => {};
const bodyReceived = new Promise<void>((resolve) => (received = resolve));

const isYaml = (contentType: string | undefined) => contentType?.startsWith('application/yaml') ?? false;

beforeAll(async () => {
  service = await makeService({ METRICS_ADDR: '127.0.0.1:0' });
  // Observers only: the body passes through unchanged, and nothing is answered from here.
  service.ingestApp.addHook('preParsing', async (request, _reply, payload) => {
    if (!isYaml(request.headers['content-type'])) return payload;
    const observed = new PassThrough();
    // Registered before fastify's own 'end' listener, which hands the body to the parser.
    observed.on('end', () => {
      events.push('body received');
      received();
    });
    payload.pipe(observed);
    return observed;
  });
  service.ingestApp.addHook('preValidation', async (request) => {
    if (isYaml(request.headers['content-type'])) events.push('body parsed');
  });
  urls.ingest = await service.ingestApp.listen({ host: '127.0.0.1', port: 0 });
  urls.api = await service.apiApp.listen({ host: '127.0.0.1', port: 0 });
  urls.metrics = await service.metricsApp!.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(async () => {
  await service.dispose();
});

/** A Kubernetes dump as `kubectl get -o yaml` writes it, about `mib` MiB: Deployments with their pods' spec. */
function kubectlYaml(mib: number): string {
  const docs: string[] = [];
  let size = 0;
  for (let i = 0; size < mib * 1024 * 1024; i++) {
    const doc = [
      'apiVersion: apps/v1',
      'kind: Deployment',
      'metadata:',
      `  name: web-${i}`,
      '  namespace: shop',
      '  labels:',
      `    app: web-${i}`,
      '    team: payments',
      'spec:',
      '  replicas: 2',
      '  selector:',
      '    matchLabels:',
      `      app: web-${i}`,
      '  template:',
      '    metadata:',
      '      labels:',
      `        app: web-${i}`,
      '    spec:',
      '      containers:',
      '      - name: web',
      `        image: ghcr.io/acme/web-${i}:1.${i % 10}`,
      '        ports:',
      '        - containerPort: 8080',
      '        env:',
      '        - name: LOG_LEVEL',
      '          value: info',
      '        securityContext:',
      '          privileged: false',
      '          runAsNonRoot: true',
      '',
    ].join('\n');
    docs.push(doc);
    size += doc.length + 4;
  }
  return docs.join('---\n');
}

it('answers /healthz on every listener while a large YAML body is being parsed', async () => {
  const yaml = kubectlYaml(1.5);
  const ingest = fetch(`${urls.ingest}/ingest/k8s`, {
    method: 'POST',
    headers: { 'content-type': 'application/yaml' },
    body: yaml,
  }).then(async (response) => {
    events.push('report answered');
    return { status: response.status, body: await response.text() };
  });
  await bodyReceived;
  const health = (Object.keys(urls) as (keyof typeof urls)[]).map(async (listener) => {
    const response = await fetch(`${urls[listener]}/healthz`);
    events.push(`${listener} healthz ${response.status}`);
  });
  await Promise.all(health);
  const answer = await ingest;
  expect(answer.status, answer.body.slice(0, 300)).toBe(202);
  const at = (event: string) => {
    expect(events).toContain(event);
    return events.indexOf(event);
  };
  for (const listener of ['ingest', 'api', 'metrics']) {
    expect(at(`${listener} healthz 200`)).toBeGreaterThan(at('body received'));
    expect(at(`${listener} healthz 200`)).toBeLessThan(at('body parsed'));
  }
  expect(at('body parsed')).toBeLessThan(at('report answered'));
});
