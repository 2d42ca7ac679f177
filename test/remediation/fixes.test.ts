// The fix kinds a fix pull request carries, on the files they change: a Dockerfile rebuilt on a patched
// base, a Kubernetes manifest hardened (comments kept), an explicit Deny of a role's escalation primitives;
// each generated from a route in a real service's graph, each with the twin that must not change anything.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bumpBaseImage, fixesFor, hardenManifest } from '../../src/remediation/fixes.js';
import { edge, envelope, node } from '../helpers/envelope.js';
import { makeService, type TestService } from '../helpers/service.js';

const DOCKERFILE = [
  '# syntax=docker/dockerfile:1',
  'FROM maven:3.9-eclipse-temurin-17 AS build',
  'RUN mvn -q package',
  'FROM eclipse-temurin:17-jre@sha256:' + 'ab'.repeat(32),
  'COPY --from=build /app/target/app.jar /app/app.jar',
  '',
].join('\n');

const MANIFEST = `# reviews: the storefront's review service
apiVersion: apps/v1
kind: Deployment
metadata:
  name: reviews
  namespace: shop
spec:
  template:
    spec:
      hostPID: true
      containers:
        - name: reviews # the API
          image: ghcr.io/acme/reviews:2.3.0
          securityContext:
            privileged: true
            capabilities:
              add: ["SYS_ADMIN"]
---
apiVersion: v1
kind: Service
metadata:
  name: reviews
spec:
  ports:
    - port: 80
`;

describe('bump-base-image', () => {
  it('drops the digest pin of the final FROM and upgrades the packages after it', () => {
    const next = bumpBaseImage(DOCKERFILE, 'debian 12.7', [{ name: 'libexpat1', fixed: '2.5.0-1+deb12u1' }])!;
    const lines = next.split('\n');
    expect(lines[1]).toBe('FROM maven:3.9-eclipse-temurin-17 AS build');
    expect(lines[3]).toBe('FROM eclipse-temurin:17-jre');
    expect(lines[5]).toBe(
      'RUN apt-get update && apt-get install -y --only-upgrade libexpat1 && rm -rf /var/lib/apt/lists/*',
    );
    expect(bumpBaseImage(DOCKERFILE, 'alpine 3.19', [{ name: 'openssl', fixed: '3.1.4-r1' }])).toContain(
      'RUN apk upgrade --no-cache openssl',
    );
    // Applied once: a second run changes nothing; no FROM, nothing to change.
    expect(
      bumpBaseImage(next, 'debian 12.7', [{ name: 'libexpat1', fixed: '2.5.0-1+deb12u1' }]),
    ).toBeUndefined();
    expect(bumpBaseImage('RUN true\n', 'debian', [{ name: 'x', fixed: '1' }])).toBeUndefined();
    expect(bumpBaseImage(undefined, 'debian', [{ name: 'x', fixed: '1' }])).toBeUndefined();
  });
});

describe('harden-workload', () => {
  it('removes privileged mode and host namespaces, keeps comments and the other documents', () => {
    const next = hardenManifest(MANIFEST, 'reviews')!;
    expect(next).toContain('# reviews: the storefront');
    expect(next).toContain('name: reviews # the API');
    expect(next).not.toContain('hostPID');
    expect(next).not.toContain('SYS_ADMIN');
    expect(next).toMatch(/privileged: false/);
    expect(next).toMatch(/allowPrivilegeEscalation: false/);
    expect(next).toMatch(/runAsNonRoot: true/);
    expect(next).toMatch(/drop:\s*\n\s*- ALL/);
    expect(next).toContain('kind: Service');
    // Already hardened, or another workload: nothing to change.
    expect(hardenManifest(next, 'reviews')).toBeUndefined();
    expect(hardenManifest(MANIFEST, 'storefront')).toBeUndefined();
  });
});

describe('fixes generated from routes', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await makeService();
  });
  afterAll(() => service.dispose());

  it('offers a base-image patch, a manifest hardening and an escalation Deny where the route has them', async () => {
    const alb = node('LoadBalancer', 'shop-alb', { internet_exposed: true });
    const web = node('Service', 'shop/reviews', { repo_slug: 'acme/reviews' });
    const img = node('Image', 'acme/reviews:2.3.0', { os: 'debian 12.7' });
    const repo = node('Repository', 'github.com/acme/reviews', { repo_slug: 'acme/reviews' });
    const pkg = node('Package', 'pkg:deb/debian/libexpat1@2.5.0-1');
    const cve = node('CVE', 'CVE-2024-45490', { cvss_score: 9.8 });
    const host = node('VirtualMachine', 'shop/node/worker-1', { sensitive: true });
    const role = node('IAM_Role', '111122223333/node-role', { repo_slug: 'acme/infra' });
    const admin = node('IAM_Role', '111122223333/account-admin', { crown_jewel: true });
    await service.ingest(
      envelope(
        [alb, web, img, repo, pkg, cve, host, role, admin],
        [
          edge('ROUTES_TO', alb, web),
          edge('DEPENDS_ON', web, img),
          edge('BUILT_FROM', img, repo),
          edge('DEPENDS_ON', img, pkg),
          { ...edge('AFFECTS', cve, pkg), properties: { fixed_version: '2.5.0-1+deb12u1' } },
          { ...edge('AFFECTS', cve, img) },
          { ...edge('CAN_ESCALATE_TO', web, host, 0.9), properties: { technique: 'T1611' } },
          edge('ASSUMES', host, role, 0.8),
          {
            ...edge('CAN_ESCALATE_TO', role, admin, 0.9),
            properties: { primitives: ['iam:PassRole+ec2:RunInstances'] },
          },
        ],
      ),
    );
    await service.settle();
    const tenant = service.engine.tenant('default')!;
    const route = tenant.paths.open().find((p) => p.score > 0 && JSON.stringify(p).includes('account-admin'));
    expect(route).toBeDefined();
    const fixes = fixesFor(route!, tenant.graph);
    expect(fixes.map((f) => [f.kind, f.repo])).toEqual(
      expect.arrayContaining([
        ['bump-base-image', 'acme/reviews'],
        ['harden-workload', 'acme/reviews'],
        ['deny-escalation', 'acme/infra'],
      ]),
    );
    const deny = fixes.find((f) => f.kind === 'deny-escalation')!;
    const tf = deny.changes[0].apply(undefined)!;
    expect(tf).toContain('resource "aws_iam_role_policy" "pathgate_deny_escalation_node_role"');
    expect(tf).toContain('Action   = ["ec2:RunInstances", "iam:PassRole"]');
    const harden = fixes.find((f) => f.kind === 'harden-workload')!;
    expect(harden.changes[0].alternatives).toContain('deploy/reviews.yaml');
    expect(harden.changes[0].apply(MANIFEST)).toMatch(/privileged: false/);
    const base = fixes.find((f) => f.kind === 'bump-base-image')!;
    expect(base.changes[0].apply(DOCKERFILE)).toContain('--only-upgrade libexpat1');
  });
});
