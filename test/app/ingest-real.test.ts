// `pathgate ingestreal` on a folder of real reports in every format a source takes: Kubernetes YAML and
// JSON Lists, Falco NDJSON, a Trivy scan of a local path (named by -repo), an image scan; by content,
// whatever the file names say.
import { copyFile, mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ingestReal } from '../../app/ingest-real.js';
import { REAL } from '../helpers/normalize.js';
import { edgeLines } from '../helpers/graph-lines.js';
import { makeService, tempDir } from '../helpers/service.js';

describe('pathgate ingestreal', () => {
  it('recognises YAML, NDJSON and JSON reports by content and names clusters and repositories', async () => {
    const dir = await tempDir('pathgate-ingestreal-formats-');
    await mkdir(path.join(dir, 'k8s'));
    await copyFile(
      path.join(REAL, 'k8s/kubehound-attacks/CE_NSENTER.yaml'),
      path.join(dir, 'k8s/nsenter.yaml'),
    );
    // A misleading name: content decides.
    await copyFile(path.join(REAL, 'k8s/popeye-combined-list.json'), path.join(dir, 'k8s/dump.txt'));
    await copyFile(
      path.join(REAL, 'falco/falco-website-syscall-alerts.ndjson'),
      path.join(dir, 'alerts.log'),
    );
    await copyFile(
      new URL('../ingest/sources/fixtures/trivy-repo/npm.json', import.meta.url),
      path.join(dir, 'npm-scan.json'),
    );
    await copyFile(path.join(REAL, 'trivy/alpine-310-registry.json'), path.join(dir, 'image.json'));
    await writeFile(path.join(dir, 'README.md'), '# notes\n\nnot a report\n');
    await writeFile(path.join(dir, 'main.tf'), 'resource "aws_s3_bucket" "b" {\n  bucket = "b"\n}\n');
    // A screenshot's first bytes (PNG): skipped as binary, not read as YAML.
    await writeFile(
      path.join(dir, 'screenshot.png'),
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]),
    );
    const service = await makeService();
    const url = await service.ingestApp.listen({ host: '127.0.0.1', port: 0 });
    const lines: string[] = [];
    try {
      const summary = await ingestReal({
        dir,
        url,
        repo: 'github.com/acme/web',
        cluster: 'lab',
        out: (l) => lines.push(l),
      });
      expect(lines).toEqual(
        expect.arrayContaining([
          // The folder's Kubernetes files are one cluster: posted as one dump.
          expect.stringMatching(/^2 files \(k8s\/dump\.txt, k8s\/nsenter\.yaml\): k8s -> 202/),
          expect.stringMatching(/^alerts\.log: falco -> 202/),
          expect.stringMatching(/^npm-scan\.json: trivy -> 202/),
          expect.stringMatching(/^image\.json: trivy -> 202/),
          'screenshot.png: skipped, a binary file, not a text report',
          // Documentation and code are not read at all, and said in one line.
          '2 file(s) not read as reports: Terraform configuration (send `terraform show -json` of a plan or state) (1 .tf); source code and documentation (1 .md)',
        ]),
      );
      expect(summary).toEqual({ accepted: 5, rejected: 0, skipped: 3 });
      // Twin: a report is read by its content whatever its name (the dump above includes `dump.txt`).
      expect(lines.filter((l) => l.startsWith('README.md') || l.startsWith('main.tf'))).toEqual([]);
      await service.settle();
      const names: string[] = [];
      service.engine.tenant('default')!.graph.forEachNode((_id, a) => names.push(`${a.label} ${a.name}`));
      expect(names).toContain('Repository github.com/acme/web');
      expect(names).toContain('VirtualMachine lab/node/unscheduled');
      expect(names.filter((n) => n.startsWith('Service lab/')).length).toBeGreaterThan(0);
      // The Falco alerts are qualified by the same cluster: they land on its workloads, not beside them.
      expect(names).toContain('Service lab/default/alpine');
      expect(names).not.toContain('Service default/alpine');
    } finally {
      await service.dispose();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('posts a trivy k8s report to the trivy route, its objects named in -cluster like the dump', async () => {
    const dir = await tempDir('pathgate-ingestreal-trivy-k8s-');
    await copyFile(
      new URL('../../fixtures/unseen/trivy/defectdojo-kubernetes.json', import.meta.url),
      path.join(dir, 'cluster-scan.json'),
    );
    await writeFile(path.join(dir, 'empty-scan.json'), '{\n  "ClusterName": "docker-desktop"\n}\n');
    const service = await makeService();
    const url = await service.ingestApp.listen({ host: '127.0.0.1', port: 0 });
    const lines: string[] = [];
    try {
      const summary = await ingestReal({ dir, url, cluster: 'lab', out: (l) => lines.push(l) });
      expect(lines).toEqual([
        expect.stringMatching(/^cluster-scan\.json: trivy -> 202, \d+ nodes/),
        expect.stringMatching(
          /^empty-scan\.json: trivy -> 202, 0 nodes, 0 edges \(batch .*, 2 warning\(s\)\)$/,
        ),
        // each warning said in full under its file's line
        expect.stringMatching(/^ {2}warning: /),
        expect.stringMatching(/^ {2}warning: /),
        '2 accepted, 0 rejected, 0 skipped',
      ]);
      expect(summary).toEqual({ accepted: 2, rejected: 0, skipped: 0 });
      await service.settle();
      const names: string[] = [];
      service.engine.tenant('default')!.graph.forEachNode((_id, a) => names.push(`${a.label} ${a.name}`));
      expect(names).toContain('Service lab/default/redis-leader');
      expect(names).not.toContain('Service default/redis-leader');
      expect(names).toContain('Image redis:6.0.5');
    } finally {
      await service.dispose();
      await rm(dir, { recursive: true, force: true });
    }
  });

  /** ingestreal on folders of unseen manifests (each folder one run), and the edges the graph then holds. */
  const ingestFolders = async (folders: Record<string, [string, string][]>, rejected = 0) => {
    const service = await makeService();
    const url = await service.ingestApp.listen({ host: '127.0.0.1', port: 0 });
    const lines: string[] = [];
    const dirs: string[] = [];
    try {
      for (const files of Object.values(folders)) {
        const dir = await tempDir('pathgate-ingestreal-manifests-');
        dirs.push(dir);
        for (const [folder, f] of files)
          await copyFile(
            new URL(`../../fixtures/unseen/k8s/${folder}/${f}`, import.meta.url),
            path.join(dir, f),
          );
        const summary = await ingestReal({ dir, url, cluster: 'c', out: (l) => lines.push(l) });
        expect(summary).toEqual({ accepted: files.length - rejected, rejected, skipped: 0 });
      }
      await service.settle();
      const edges = edgeLines(service.engine.tenant('default')!.graph);
      return { lines, edges };
    } finally {
      await service.dispose();
      for (const dir of dirs) await rm(dir, { recursive: true, force: true });
    }
  };
  const GRAFANA: [string, string][] = [
    ['kube-prometheus', 'grafana-deployment.yaml'],
    ['kube-prometheus', 'grafana-service.yaml'],
  ];
  // Knative's controller: its account and aggregated role in one file, the rules aggregated in another.
  const KNATIVE: [string, string][] = [
    ['knative-serving', '200-serviceaccount.yaml'],
    ['knative-serving', '200-roles-clusterrole.yaml'],
  ];

  it('reads a folder of manifests as `kubectl apply -f` does: what one file says joins what another holds', async () => {
    const { lines, edges } = await ingestFolders({ all: [...GRAFANA, ...KNATIVE] });
    expect(lines[0]).toMatch(
      /^4 files \(200-roles-clusterrole\.yaml, 200-serviceaccount\.yaml, grafana-deployment\.yaml, grafana-service\.yaml\): k8s -> 202/,
    );
    expect(edges).toContain('EXPOSES c/monitoring/service/grafana -> c/monitoring/grafana');
    expect(edges).toContain('CAN_ESCALATE_TO c/clusterrole/knative-serving-admin -> c/cluster-admin');
  });

  it('a malformed Kubernetes file does not cost the others: refused as one dump, each is posted alone', async () => {
    const { lines, edges } = await ingestFolders(
      {
        kubelet: [
          ['kubelet', 'podlist_1.8-2.json'],
          ['kubelet', 'podlist_null_pod.json'],
        ],
      },
      1,
    );
    expect(lines[0]).toMatch(
      /^2 Kubernetes files refused as one dump \(k8s -> 400 .*\); posting each alone$/,
    );
    expect(lines).toContain(
      'podlist_null_pod.json: k8s -> 400 k8s report: /items/0: expected a Kubernetes object or List',
    );
    expect(lines.some((l) => l.startsWith('podlist_1.8-2.json: k8s -> 202'))).toBe(true);
    expect(edges).toContain('CAN_ESCALATE_TO c/kube-system/kube-proxy -> c/node/my-node-name');
  });

  it('twin: the same files posted one by one join nothing across them', async () => {
    const alone = Object.fromEntries([...GRAFANA, ...KNATIVE].map((f) => [f[1], [f]]));
    const { edges } = await ingestFolders(alone);
    expect(edges.filter((e) => e.startsWith('EXPOSES '))).toEqual([]);
    expect(edges.filter((e) => e.startsWith('CAN_ESCALATE_TO c/clusterrole/knative-serving-admin'))).toEqual(
      [],
    );
  });
});
