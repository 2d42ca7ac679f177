// `trivy k8s --format json` reports, in the three shapes Trivy has written (aquasecurity/trivy
// pkg/k8s/report): `Resources` (`--report all`, one entry per image an object runs, Metadata a list since
// 0.57), `Findings` (`--report summary`, a workload's entries merged) and 2022's `Vulnerabilities` /
// `Misconfigurations`, the last from a real report (fixtures/unseen/trivy/defectdojo-kubernetes.json). Image
// results land on the image nodes a `trivy image` scan of the same reference names; a manifest's failed
// checks on the node the k8s source draws for the object, qualified by ?cluster= as the dump is.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readReport, recognizeReport } from '../../../src/ingest/recognize.js';
import { createK8sSource, objectNode } from '../../../src/ingest/sources/k8s.js';
import { isTrivyClusterReport } from '../../../src/ingest/sources/trivy-k8s.js';
import { createTrivySource } from '../../../src/ingest/sources/trivy.js';
import { normalize, readReal, rejection } from '../../helpers/normalize.js';

const trivy = createTrivySource();
const k8s = createK8sSource();
type Json = Record<string, any>;

const DIGEST = `sha256:${'8f'.repeat(32)}`;
const cve = (id: string, score: number) => ({
  VulnerabilityID: id,
  PkgName: 'openssl',
  InstalledVersion: '1.1.1',
  Severity: 'HIGH',
  SeveritySource: 'nvd',
  CVSS: { nvd: { V3Score: score } },
});
const osResult = (ref: string, ...vulnerabilities: Json[]) => ({
  Target: `${ref} (debian 10.4)`,
  Class: 'os-pkgs',
  Type: 'debian',
  Vulnerabilities: vulnerabilities,
});
const manifestResult = (kind: string, name: string, ...checks: Json[]) => ({
  Target: `${kind}/${name}`,
  Class: 'config',
  Type: 'kubernetes',
  MisconfSummary: { Successes: 20, Failures: checks.length },
  Misconfigurations: checks,
});
const check = (id: string, status = 'FAIL') => ({
  Type: 'Kubernetes Security Check',
  ID: id,
  Title: id,
  Severity: 'MEDIUM',
  Status: status,
});

/** `trivy k8s --report all --format json` as Trivy 0.57+ writes it: one entry per image, one per manifest. */
const allReport = (): Json => ({
  ClusterName: 'kind-kind',
  Resources: [
    {
      Namespace: 'shop',
      Kind: 'Deployment',
      Name: 'web',
      Metadata: [
        {
          ImageID: 'sha256:4a1c',
          RepoTags: ['ghcr.io/acme/web:1.4'],
          RepoDigests: [`ghcr.io/acme/web@${DIGEST}`],
        },
      ],
      Results: [
        osResult('ghcr.io/acme/web:1.4', cve('CVE-2023-0286', 7.4)),
        {
          Target: 'app/package-lock.json',
          Class: 'lang-pkgs',
          Type: 'npm',
          Vulnerabilities: [{ ...cve('CVE-2022-24999', 7.5), PkgName: 'qs', InstalledVersion: '6.5.2' }],
        },
      ],
    },
    {
      Namespace: 'shop',
      Kind: 'Deployment',
      Name: 'web',
      Results: [manifestResult('Deployment', 'web', check('KSV-0001'))],
    },
    {
      Namespace: 'shop',
      Kind: 'Role',
      Name: 'reader',
      Results: [manifestResult('Role', 'reader', check('KSV-0113'))],
    },
    {
      Namespace: 'shop',
      Kind: 'ConfigMap',
      Name: 'settings',
      Results: [manifestResult('ConfigMap', 'settings', check('KSV-0109'))],
    },
    {
      Namespace: 'shop',
      Kind: 'Service',
      Name: 'web',
      Results: [manifestResult('Service', 'web', check('KSV-0117', 'PASS'))],
    },
  ],
});

const webDump = {
  apiVersion: 'v1',
  kind: 'List',
  items: [
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'shop' },
      spec: { template: { spec: { containers: [{ name: 'web', image: 'ghcr.io/acme/web:1.4' }] } } },
    },
  ],
};

describe('trivy k8s: --report all (Resources)', () => {
  it("lands each image's CVEs on the image node a trivy image scan of that reference names", () => {
    const out = normalize(trivy, allReport(), { cluster: 'prod' });
    expect(out.names('Image')).toEqual(['acme/web:1.4']);
    expect(out.node('Image', 'acme/web:1.4').properties).toMatchObject({
      image_ref: 'ghcr.io/acme/web:1.4',
      digests: [DIGEST],
      scanner: 'trivy',
      vulnerability_count: 2,
    });
    expect(out.edges).toContain('AFFECTS CVE-2023-0286 -> acme/web:1.4');
    expect(out.edges).toContain('AFFECTS CVE-2022-24999 -> pkg:npm/qs@6.5.2');
    expect(out.edges).toContain('DEPENDS_ON acme/web:1.4 -> pkg:npm/qs@6.5.2');
    // The same image scanned on its own is the same node; the k8s dump's reference names it too.
    const alone = normalize(trivy, {
      SchemaVersion: 2,
      ArtifactName: 'ghcr.io/acme/web:1.4',
      ArtifactType: 'container_image',
      Results: [osResult('ghcr.io/acme/web:1.4', cve('CVE-2023-0286', 7.4))],
    });
    expect(alone.node('Image', 'acme/web:1.4').id).toBe(out.node('Image', 'acme/web:1.4').id);
    const dump = normalize(k8s, webDump, { cluster: 'prod' });
    expect(dump.node('Image', 'acme/web:1.4').id).toBe(out.node('Image', 'acme/web:1.4').id);
    // Not complete for any scope: the report does not say which namespaces it covers.
    expect(out.scope).toBeUndefined();
  });

  it("lands a manifest's failed checks on the node the k8s source draws for the object, in ?cluster=", () => {
    const out = normalize(trivy, allReport(), { cluster: 'prod' });
    const dump = normalize(k8s, webDump, { cluster: 'prod' });
    const workload = dump.node('Service', 'prod/shop/web');
    expect(out.node('Service', 'prod/shop/web').id).toBe(workload.id);
    expect(out.edges).toContain('AFFECTS prod/shop/web:Deployment/web:KSV-0001 -> prod/shop/web');
    expect(out.edges).toContain(
      'AFFECTS prod/shop/role/reader:Role/reader:KSV-0113 -> prod/shop/role/reader',
    );
    expect(out.node('IAM_Role', 'prod/shop/role/reader').properties).toMatchObject({ cluster: 'prod' });
    // Twins: a passed check draws nothing (no node for the Service), a ConfigMap has no node to land on.
    expect(out.names('LoadBalancer')).toEqual([]);
    expect(out.names('Misconfiguration')).toHaveLength(2);
    expect(out.warnings).toEqual([
      'trivy k8s report: misconfigurations of kinds the k8s source draws no node for, not mapped: ConfigMap (1)',
    ]);
    // Without ?cluster= the names are unqualified, as a dump sent without it.
    expect(normalize(trivy, allReport()).names('Service')).toEqual(['shop/web']);
  });

  it('names objects as the k8s source does for every kind it draws', () => {
    const objects: Json[] = [
      { kind: 'Deployment', metadata: { name: 'd', namespace: 'n' }, spec: { template: { spec: {} } } },
      {
        kind: 'CronJob',
        metadata: { name: 'c', namespace: 'n' },
        spec: { jobTemplate: { spec: { template: { spec: {} } } } },
      },
      { kind: 'Pod', metadata: { name: 'p', namespace: 'n' }, spec: { containers: [] } },
      { kind: 'Service', metadata: { name: 's', namespace: 'n' }, spec: { type: 'NodePort' } },
      { kind: 'Ingress', metadata: { name: 'i', namespace: 'n' }, spec: {} },
      { kind: 'ServiceAccount', metadata: { name: 'a', namespace: 'n' } },
      { kind: 'Role', metadata: { name: 'r', namespace: 'n' }, rules: [] },
      { kind: 'ClusterRole', metadata: { name: 'cr' }, rules: [] },
      { kind: 'Secret', metadata: { name: 'x', namespace: 'n' }, type: 'Opaque' },
      { kind: 'Node', metadata: { name: 'node-1' } },
    ];
    const dump = normalize(k8s, { apiVersion: 'v1', kind: 'List', items: objects }, { cluster: 'prod' });
    for (const o of objects) {
      const node = objectNode(o.kind, o.metadata.namespace ?? '', o.metadata.name)!;
      expect(dump.node(node.label, `prod/${node.name}`), o.kind).toBeDefined();
    }
    expect(objectNode('ConfigMap', 'n', 'c')).toBeUndefined();
    expect(objectNode('RoleBinding', 'n', 'b')).toBeUndefined();
  });
});

describe('trivy k8s: the other shapes', () => {
  it('--report summary (Findings): a workload of two images, each OS result on its own image', () => {
    const report = {
      ClusterName: 'kind-kind',
      Findings: [
        {
          Namespace: 'shop',
          Kind: 'Pod',
          Name: 'multi',
          Metadata: [{ RepoTags: ['alpine:3.14'] }, { RepoTags: ['nginx:1.25'] }],
          Results: [
            osResult('alpine:3.14', cve('CVE-2022-1111', 5)),
            osResult('nginx:1.25', cve('CVE-2022-2222', 6)),
            {
              Target: 'usr/bin/app',
              Class: 'lang-pkgs',
              Type: 'gobinary',
              Vulnerabilities: [cve('CVE-2022-3333', 7)],
            },
            manifestResult('Pod', 'multi', check('KSV-0012')),
          ],
        },
      ],
    };
    const out = normalize(trivy, report);
    expect(out.edges).toContain('AFFECTS CVE-2022-1111 -> alpine:3.14');
    expect(out.edges).toContain('AFFECTS CVE-2022-2222 -> nginx:1.25');
    expect(out.edges).toContain('AFFECTS shop/multi:Pod/multi:KSV-0012 -> shop/multi');
    // Twin: a result that names neither image is not guessed onto one, and said.
    expect(out.names('CVE')).not.toContain('CVE-2022-3333');
    expect(out.warnings).toEqual([
      'trivy k8s report: results of an object running several images that name none of them, skipped: Pod shop/multi (/Findings/0/Results/2)',
    ]);
  });

  it("2022's Vulnerabilities and Misconfigurations (a real EKS report): images and the Deployments' checks", () => {
    const { body } = readReport(
      readFileSync(
        new URL('../../../fixtures/unseen/trivy/defectdojo-kubernetes.json', import.meta.url),
        'utf8',
      ),
    );
    expect(recognizeReport(body)).toBe('trivy');
    const out = normalize(trivy, body, { cluster: 'eks' });
    expect(out.names('Image')).toEqual(['google_samples/gb-redis-follower:v2', 'redis:6.0.5']);
    expect(out.node('Image', 'redis:6.0.5').properties).toMatchObject({
      image_ref: 'docker.io/redis:6.0.5',
      vulnerability_count: 5,
    });
    expect(out.edges).toContain('AFFECTS CVE-2019-18276 -> redis:6.0.5');
    // Its checks carry the legacy id alone (KSV001): the canonical id names them.
    expect(out.edges).toContain(
      'AFFECTS eks/default/redis-leader:Deployment/redis-leader:KSV-0001 -> eks/default/redis-leader',
    );
    expect(out.names('Service')).toEqual(['eks/default/redis-follower', 'eks/default/redis-leader']);
    // Twin: the Services' manifests passed every check: no node for them.
    expect(out.names('LoadBalancer')).toEqual([]);
    expect(out.warnings).toEqual([]);
  });

  it('says what it cannot place: components, failed scans, an image it cannot name', () => {
    const report = {
      ClusterName: 'kind-kind',
      Resources: [
        {
          Kind: 'NodeComponents',
          Name: 'kind-control-plane',
          Results: [{ Target: 'kubelet', Class: 'lang-pkgs', Vulnerabilities: [cve('CVE-2023-2431', 3.4)] }],
        },
        {
          Namespace: 'shop',
          Kind: 'Deployment',
          Name: 'private',
          Error: 'unable to pull image: unauthorized',
        },
        {
          Namespace: 'shop',
          Kind: 'Job',
          Name: 'once',
          Results: [
            { Target: 'usr/bin/app', Class: 'lang-pkgs', Vulnerabilities: [cve('CVE-2022-3333', 7)] },
          ],
        },
        {
          Kind: 'NodeInfo',
          Name: 'kind-control-plane',
          Results: [
            {
              Target: 'node-info',
              Class: 'config',
              Type: 'kubernetes',
              Misconfigurations: [check('KCV-0079')],
            },
          ],
        },
      ],
    };
    const out = normalize(trivy, report);
    expect(out.names('CVE')).toEqual([]);
    // A node's checks (Trivy's node collector names it NodeInfo) land on the node.
    expect(out.edges).toEqual([
      'AFFECTS node/kind-control-plane:node-info:KCV-0079 -> node/kind-control-plane',
    ]);
    expect(out.warnings.sort()).toEqual([
      "trivy k8s report: Kubernetes components' CVEs (kubelet, control plane) are not mapped to any node: NodeComponents kind-control-plane",
      'trivy k8s report: Trivy could not scan: Deployment shop/private (unable to pull image: unauthorized)',
      'trivy k8s report: image results naming no image (no OS result, no metadata reference or tag), skipped: Job shop/once (/Resources/2/Results/0)',
    ]);
  });
});

describe('trivy k8s: recognition, empty and malformed reports', () => {
  it('an empty scan ({"ClusterName"} alone, as Trivy writes it) is recognised and maps nothing, with a warning', () => {
    const empty = { ClusterName: 'docker-desktop' };
    expect(recognizeReport(empty)).toBe('trivy');
    const out = normalize(trivy, empty);
    expect(out.nodes).toEqual([]);
    expect(out.warnings).toEqual([
      'trivy k8s report of cluster "docker-desktop" lists no object (no Resources, Findings, Vulnerabilities or Misconfigurations): nothing to map',
    ]);
    expect(normalize(trivy, { ClusterName: 'kind-kind', Resources: [] }).warnings).toHaveLength(1);
  });

  it('twin: an ordinary trivy image report is read as before, never as a cluster report', () => {
    const registry = readReal('trivy/alpine-310-registry.json');
    expect(isTrivyClusterReport(registry)).toBe(false);
    expect(recognizeReport(registry)).toBe('trivy');
    const out = normalize(trivy, registry);
    expect(out.names('Image')).toEqual(['alpine:3.10']);
    expect(out.scope).toBe('image:alpine:3.10');
    // A ClusterName beside ArtifactName is an image report's stray field.
    expect(normalize(trivy, { ...registry, ClusterName: 'x' }).scope).toBe('image:alpine:3.10');
    // Recognition wants nothing but the report's own keys: other tools' `ClusterName` objects are not it.
    expect(recognizeReport({ ClusterName: 'minikube', Namespace: 'default' })).toBeUndefined();
    expect(recognizeReport({ ClusterName: 'minikube', Resources: {} })).toBeUndefined();
  });

  it('refuses a malformed report naming the offending value, and a bad ?cluster=', () => {
    expect(rejection(trivy, { ClusterName: 5 })).toEqual([
      expect.objectContaining({ pointer: '/ClusterName', value: 5 }),
    ]);
    expect(rejection(trivy, { ClusterName: 'k', Resources: {} })[0]).toMatchObject({ pointer: '/Resources' });
    expect(rejection(trivy, { ClusterName: 'k', Resources: [{ Kind: 'Deployment' }] })[0]).toMatchObject({
      pointer: '/Resources/0/Name',
    });
    expect(
      rejection(trivy, {
        ClusterName: 'k',
        Vulnerabilities: [{ Kind: 'Pod', Name: 'p', Results: [{ Class: 'os-pkgs' }] }],
      })[0],
    ).toMatchObject({ pointer: '/Vulnerabilities/0/Results/0/Target' });
    expect(rejection(trivy, allReport(), { cluster: 'a/b' })).toEqual([
      expect.objectContaining({ pointer: '/query/cluster', value: 'a/b' }),
    ]);
  });
});
