// Kubernetes manifests from a pull request at the gate, evaluated against the cluster that runs them
// (`?cluster=shop`: names qualified as the demo's shop cluster dump qualifies them). The PR makes the
// reviews Deployment privileged: a container escape (T1611) from a workload the storefront ingress
// reaches is blocked before it merges. The same manifest as it runs today is clean (negative twin); the
// manifest gated for another cluster lands on none of the shop cluster's objects.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { stringify } from 'yaml';
import { gateCommand } from '../../app/gate-cli.js';
import { requestGate } from '../../app/gate-client.js';
import { loadDemo } from '../../app/service.js';
import { makeService, tempDir, type TestService } from '../helpers/service.js';

let service: TestService;
let apiUrl: string;

/** The reviews Deployment as the pull request writes it. */
function deployment(securityContext?: Record<string, unknown>) {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'reviews', namespace: 'shop' },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: 'reviews' } },
      template: {
        metadata: { labels: { app: 'reviews' } },
        spec: {
          serviceAccountName: 'reviews-sa',
          containers: [
            {
              name: 'reviews',
              image: 'ghcr.io/acme/reviews:2.3.0',
              ports: [{ containerPort: 8080 }],
              ...(securityContext && { securityContext }),
            },
          ],
        },
      },
    },
  };
}

const ask = (manifest: unknown, query: Record<string, string>) =>
  requestGate({
    apiUrl,
    report: JSON.stringify(manifest),
    query: { source: 'k8s', ...query },
  }) as Promise<any>;

beforeAll(async () => {
  service = await makeService();
  apiUrl = await service.apiApp.listen({ host: '127.0.0.1', port: 0 });
  expect(await loadDemo(service)).toBe(true);
  await service.settle();
});
afterAll(() => service.dispose());

describe('Kubernetes manifests at the gate', () => {
  it('blocks a manifest that makes a reachable workload privileged (container escape)', async () => {
    const answer = await ask(deployment({ privileged: true }), { cluster: 'shop' });
    expect(answer.verdict, answer.reason).toBe('blocked');
    const escape = [...answer.opened, ...answer.worsened].find((r: any) =>
      r.steps.some(
        (s: any) => s.type === 'CAN_ESCALATE_TO' && r.nodes.some((n: any) => n.name.startsWith('shop/node/')),
      ),
    );
    expect(
      escape,
      JSON.stringify(answer.opened.map((r: any) => r.nodes.map((n: any) => n.name))),
    ).toBeDefined();
    expect(escape.nodes[0].name).toBe('shop/shop/ingress/storefront');
    expect(escape.origin.kubernetes).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'reviews' })]),
    );
  });

  it('is clean for the manifest as the cluster runs it (negative twin)', async () => {
    const answer = await ask(deployment(), { cluster: 'shop' });
    expect(answer).toMatchObject({ verdict: 'clean', opened: [], worsened: [] });
  });

  it('does not land on the shop cluster when gated for another cluster (two clusters share no node)', async () => {
    const answer = await ask(deployment({ privileged: true }), { cluster: 'staging' });
    // Only the image is shared; staging has no ingress to the workload, so no route opens.
    expect(answer).toMatchObject({ verdict: 'clean', opened: [], worsened: [] });
  });

  it('takes the manifest as the repository holds it (YAML) through pathgate gate -cluster', async () => {
    const file = path.join(await tempDir('pathgate-k8s-gate-'), 'reviews.yaml');
    await writeFile(
      file,
      `# deploy/reviews.yaml\n${stringify(deployment({ privileged: true }))}---\n${stringify({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'reviews-sa', namespace: 'shop' } })}`,
    );
    let out = '';
    const code = await gateCommand(
      ['-api', apiUrl, '-report', file, '-source', 'k8s', '-cluster', 'shop', '-json'],
      {
        out: (t) => (out += t),
        err: () => {},
        isTTY: false,
      },
    );
    expect(code).toBe(1);
    expect(JSON.parse(out).verdict).toBe('blocked');
  });
});
