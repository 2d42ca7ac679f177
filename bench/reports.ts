// Report ingest benchmark: Trivy reports through the trivy normalizer alone, and through a running
// service's ingest listener (acknowledged = durably journaled) until the graph holds them.
// Reports: the largest real Trivy report in ../shared/fixtures/real/trivy, and a synthetic one with
// 10,000 vulnerabilities (2,000 packages, five findings each) shaped like Trivy's own output.
//   BENCH_REPORT_ROUNDS=20 (service posts per report)
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { createTrivySource } from '../src/ingest/sources/trivy.js';
import { startBenchService } from './child.js';

const rounds = Number(process.env.BENCH_REPORT_ROUNDS ?? 20);

interface Report {
  label: string;
  body: Record<string, unknown>;
}

function largestRealReport(realDir: string): Report {
  const files = readdirSync(realDir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => path.join(realDir, f))
    // A report the source refuses (the real one with an empty ArtifactName) measures nothing.
    .filter((f) => (JSON.parse(readFileSync(f, 'utf8')) as { ArtifactName?: string }).ArtifactName)
    .sort((a, b) => statSync(b).size - statSync(a).size);
  const file = files[0];
  return {
    label: `largest real report (${path.basename(file)}, ${(statSync(file).size / 1024).toFixed(0)} KiB)`,
    body: JSON.parse(readFileSync(file, 'utf8')),
  };
}

/** 10,000 findings over 2,000 packages, with the descriptions, references and CVSS Trivy writes. */
export function syntheticReport(vulnerabilities = 10_000): Record<string, unknown> {
  const severities = ['LOW', 'MEDIUM', 'HIGH', 'CRITICAL'];
  const findings = [];
  for (let i = 0; i < vulnerabilities; i++) {
    const pkg = `libsynthetic${Math.floor(i / 5)}`;
    const id = `CVE-2099-${String(10000 + i)}`;
    const score = 2 + (i % 79) / 10;
    findings.push({
      VulnerabilityID: id,
      PkgID: `${pkg}@1.${i % 7}.0-r0`,
      PkgName: pkg,
      PkgIdentifier: { PURL: `pkg:apk/alpine/${pkg}@1.${i % 7}.0-r0?arch=x86_64&distro=3.19.1` },
      InstalledVersion: `1.${i % 7}.0-r0`,
      FixedVersion: i % 3 ? `1.${i % 7}.1-r0` : '',
      Status: i % 3 ? 'fixed' : 'affected',
      Layer: { DiffID: 'sha256:' + 'ab'.repeat(32) },
      SeveritySource: 'nvd',
      PrimaryURL: `https://avd.aquasec.com/nvd/${id.toLowerCase()}`,
      DataSource: { ID: 'alpine', Name: 'Alpine Secdb', URL: 'https://secdb.alpinelinux.org/' },
      Title: `${pkg}: synthetic flaw number ${i} in the parser`,
      Description: `A synthetic vulnerability for benchmarking: ${pkg} before 1.${i % 7}.1 mishandles crafted input, which lets a remote attacker cause a denial of service or possibly execute code.`,
      Severity: severities[i % 4],
      CweIDs: [`CWE-${100 + (i % 700)}`],
      VendorSeverity: { nvd: (i % 4) + 1, redhat: ((i + 1) % 4) + 1 },
      CVSS: {
        nvd: {
          V3Vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
          V3Score: Number(score.toFixed(1)),
          V2Vector: 'AV:N/AC:L/Au:N/C:P/I:P/A:P',
          V2Score: 7.5,
        },
      },
      References: [
        `https://nvd.nist.gov/vuln/detail/${id}`,
        `https://security.alpinelinux.org/vuln/${id}`,
        `https://www.cve.org/CVERecord?id=${id}`,
      ],
      PublishedDate: '2024-03-01T12:00:00Z',
      LastModifiedDate: '2024-06-01T12:00:00Z',
    });
  }
  return {
    SchemaVersion: 2,
    CreatedAt: '2026-11-01T00:00:00Z',
    ArtifactName: 'ghcr.io/bench/synthetic:1.0',
    ArtifactType: 'container_image',
    Metadata: {
      OS: { Family: 'alpine', Name: '3.19.1' },
      ImageID: 'sha256:' + 'cd'.repeat(32),
      RepoTags: ['ghcr.io/bench/synthetic:1.0'],
      RepoDigests: ['ghcr.io/bench/synthetic@sha256:' + 'ef'.repeat(32)],
    },
    Results: [
      {
        Target: 'ghcr.io/bench/synthetic:1.0 (alpine 3.19.1)',
        Class: 'os-pkgs',
        Type: 'alpine',
        Vulnerabilities: findings,
      },
    ],
  };
}

/** The same report as another image (so that each post adds an image rather than rewriting one). */
function asImage(body: Record<string, unknown>, n: number): Record<string, unknown> {
  const name = `ghcr.io/bench/image-${n}:1.0`;
  return {
    ...body,
    ArtifactName: name,
    Metadata: {
      ...(body.Metadata as object),
      RepoTags: [name],
      RepoDigests: undefined,
      Reference: undefined,
    },
  };
}

function normalizeOnly(report: Report): void {
  const trivy = createTrivySource();
  const receivedAt = new Date().toISOString();
  const text = JSON.stringify(report.body);
  let iterations = 0;
  let nodes = 0;
  const began = performance.now();
  // At least 20 reports and 2 seconds, so that one GC pause does not decide the figure.
  while (iterations < 20 || performance.now() - began < 2000) {
    const out = trivy.normalize({ body: JSON.parse(text), query: {}, receivedAt });
    nodes = out.envelopes[0].nodes.length;
    iterations++;
  }
  const seconds = (performance.now() - began) / 1000;
  console.log(
    `  normalizer (JSON.parse + normalize): ${((seconds * 1000) / iterations).toFixed(2)} ms/report, ` +
      `${(iterations / seconds).toFixed(1)} reports/s (${nodes} nodes per report)`,
  );
}

async function throughService(root: string, outDir: string, report: Report): Promise<void> {
  const service = await startBenchService(root, path.join(outDir, 'data-reports'));
  try {
    const { ingestUrl, apiUrl } = service;
    const bodies = Array.from({ length: rounds }, (_, n) => JSON.stringify(asImage(report.body, n)));
    const bytes = bodies[0].length;
    let expectedNodes = 0;
    const began = performance.now();
    for (const body of bodies) {
      const response = await fetch(`${ingestUrl}/ingest/trivy`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      if (response.status !== 202)
        throw new Error(`trivy ingest answered ${response.status}: ${await response.text()}`);
      const receipt = (await response.json()) as { nodes: number };
      // Each post adds its image; the CVEs and libraries are the same nodes every time.
      expectedNodes = expectedNodes === 0 ? receipt.nodes : expectedNodes + 1;
    }
    const acknowledged = performance.now();
    for (;;) {
      const response = await fetch(`${apiUrl}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ status { graph { nodes } } }' }),
      });
      const { data } = (await response.json()) as { data: { status: { graph: { nodes: number } } } };
      if (data.status.graph.nodes >= expectedNodes) break;
      await new Promise((r) => setTimeout(r, 5));
    }
    const applied = performance.now();
    const perReport = (ms: number) =>
      `${(ms / rounds).toFixed(2)} ms/report, ${((rounds * 1000) / ms).toFixed(1)} reports/s`;
    console.log(
      `  through the service, ${rounds} posts of ${(bytes / 1048576).toFixed(2)} MiB: acknowledged (durable) ${perReport(acknowledged - began)}; ` +
        `in the graph ${perReport(applied - began)}`,
    );
  } finally {
    service.stop();
  }
}

export async function runReportBench(root: string, outDir: string): Promise<void> {
  const reports: Report[] = [
    largestRealReport(path.resolve(root, '..', 'shared', 'fixtures', 'real', 'trivy')),
    { label: 'synthetic report, 10,000 vulnerabilities', body: syntheticReport() },
  ];
  for (const report of reports) {
    console.log(`trivy: ${report.label}`);
    normalizeOnly(report);
    await throughService(root, outDir, report);
  }
}
