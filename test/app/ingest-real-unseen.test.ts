// `pathgate ingestreal` on a folder of the unseen non-Kubernetes reports (fixtures/unseen, SOURCES.md):
// every file recognised by its content and posted to the running ingest listener (an SPDX SBOM of no image as
// the folder repository's), and what they say reaching the graph under the names the other sources use.
import { copyFile, mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { expect, it } from 'vitest';
import { nodeId } from '../../src/graph/ids.js';
import { edgeLines } from '../helpers/graph-lines.js';
import { ingestRealRun, unseenFolder } from '../helpers/ingest-real-run.js';
import { makeService, tempDir } from '../helpers/service.js';

const FILES = [
  'semgrep/defectdojo-fingerprint_test.json',
  'sbom/trivy-pom-cyclonedx.json',
  'sbom/guac-syft-alpine-cyclonedx.json',
  'sbom/trivy-conda-spdx.json',
  'provenance/trivy-centos-7-cyclonedx.intoto.jsonl',
  'provenance/slsa-verifier-gcb-v0.2-gcloud-container-github.json',
  'awsnet/cloudmapper-demo-ec2-describe-instances.json',
  'iam/cloudmapper-demo-iam-get-account-authorization-details.json',
  'terraform/trivy-tfjson-plan.json',
  'terraform/checkov-plan_with_utf_16_encoding-tfplan.json',
  'terraform/infracost-terraform_v0.14_state.json',
  'trivy/defectdojo-issue_9092.json',
  'grype/defectdojo-many_vulns_with_epss_values.json',
  'grype/defectdojo-many_vulns4.json',
];

it('posts the unseen reports by content: each to its source, an SPDX SBOM as the folder repository’s', async () => {
  const dir = await unseenFolder(FILES, 'pathgate-ingestreal-unseen-');
  const service = await makeService();
  try {
    const { summary, lines } = await ingestRealRun(service, dir, { repo: 'github.com/acme/web' });
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^defectdojo-fingerprint_test\.json: semgrep -> 202, 3 nodes, 2 edges/),
        // A repository's SBOM: named by -repo, as the code scan is.
        expect.stringMatching(/^trivy-pom-cyclonedx\.json: supplychain -> 202/),
        expect.stringMatching(/^guac-syft-alpine-cyclonedx\.json: supplychain -> 202, 15 nodes, 14 edges/),
        expect.stringMatching(/^trivy-conda-spdx\.json: supplychain -> 202, 3 nodes, 2 edges/),
        expect.stringMatching(
          /^trivy-centos-7-cyclonedx\.intoto\.jsonl: supplychain -> 202, 3 nodes, 2 edges/,
        ),
        expect.stringMatching(
          /^slsa-verifier-gcb-v0\.2-gcloud-container-github\.json: supplychain -> 202, 2 nodes, 1 edges/,
        ),
        expect.stringMatching(
          /^cloudmapper-demo-ec2-describe-instances\.json: cloudnet -> 202, 4 nodes, 3 edges/,
        ),
        expect.stringMatching(/^cloudmapper-demo-iam-get-account-authorization-details\.json: iam -> 202/),
        expect.stringMatching(/^trivy-tfjson-plan\.json: terraform -> 202/),
        // Written as UTF-16 by Windows PowerShell: read all the same.
        expect.stringMatching(/^checkov-plan_with_utf_16_encoding-tfplan\.json: terraform -> 202, 1 nodes/),
        // A state (terraform show -json of no plan): what is deployed, six instances (two of them sharing
        // a Name tag, so each named by its id), a role and a (private) database.
        expect.stringMatching(/^infracost-terraform_v0\.14_state\.json: terraform -> 202, 8 nodes/),
        // A user's `trivy sbom sbom.json` of a Python project: the folder's repository, as an SBOM of no image.
        expect.stringMatching(/^defectdojo-issue_9092\.json: trivy -> 202/),
        // Grype: an image scan, and a directory scan named by the folder's repository.
        expect.stringMatching(/^defectdojo-many_vulns_with_epss_values\.json: grype -> 202/),
        expect.stringMatching(/^defectdojo-many_vulns4\.json: grype -> 202/),
      ]),
    );
    expect(summary).toEqual({ accepted: FILES.length, rejected: 0, skipped: 0 });
    await service.settle();
    const edges = edgeLines(service.engine.tenant('default')!.graph);
    // The code scan's findings and the SBOM's library land on the one repository -repo names.
    expect(edges).toContain(
      'AFFECTS github.com/acme/web:sample/function.go:37:go.lang.security.audit.database.string-formatted-query.string-formatted-query -> github.com/acme/web',
    );
    expect(edges).toContain(
      'DEPENDS_ON github.com/acme/web -> pkg:maven/com.fasterxml.jackson.core/jackson-databind@2.9.1',
    );
    expect(edges).toContain('DEPENDS_ON alpine:latest -> pkg:apk/alpine/musl@1.2.3-r0');
    expect(edges).toContain(
      'BUILT_FROM gosst-scare-sandbox/quickstart-docker-repo/quickstart-image:v14 -> github.com/laurentsimon/gcb-tests',
    );
    expect(edges).toContain('CAN_ESCALATE_TO 123456789012/bad_role -> 123456789012/account-admin');
    expect(edges).toContain('HOSTS 123456789012/vpc-12345678 -> 123456789012/Bastion');
    expect(edges).toContain('AFFECTS CVE-2023-37920 -> github.com/acme/web');
    expect(edges).toContain('AFFECTS CVE-2022-28391 -> busybox:1.32.1');
    expect(edges).toContain('DEPENDS_ON github.com/acme/web -> pkg:npm/static-eval@2.1.0');
  } finally {
    await service.dispose();
    await rm(dir, { recursive: true, force: true });
  }
});

// `custodian run -s out` writes out/<policy>/{resources.json, metadata.json, custodian-run.log}; a Falco
// host alert names its machine. Each posted by content, the metadata read with its resources.json.
it('posts custodian run folders with their metadata, and a Falco host alert to its host', async () => {
  const dir = await tempDir('pathgate-ingestreal-unseen-runs-');
  for (const run of ['c7n-ec2-running-instances', 'astuto-cloudtrail-enabled']) {
    await mkdir(path.join(dir, run));
    for (const f of ['resources.json', 'metadata.json'])
      await copyFile(
        new URL(`../../fixtures/unseen/custodian/${run}/${f}`, import.meta.url),
        path.join(dir, run, f),
      );
  }
  await mkdir(path.join(dir, 'bare'));
  await copyFile(
    new URL('../../fixtures/unseen/custodian/c7n-ec2-running-instances/resources.json', import.meta.url),
    path.join(dir, 'bare', 'resources.json'),
  );
  const falcoFile = 'falco-website-grpc-client-rust-host-alert.json';
  await copyFile(
    new URL(`../../fixtures/unseen/falco/${falcoFile}`, import.meta.url),
    path.join(dir, falcoFile),
  );
  const service = await makeService();
  try {
    const { summary, lines } = await ingestRealRun(service, dir);
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^c7n-ec2-running-instances\/resources\.json: custodian -> 202, 1 nodes/),
        expect.stringMatching(/^2 file\(s\) not read as reports: Cloud Custodian run metadata/),
        expect.stringMatching(
          /^astuto-cloudtrail-enabled\/resources\.json: custodian -> 202, 0 nodes.*warning/,
        ),
        // No metadata beside it: said, not guessed.
        expect.stringMatching(/^bare\/resources\.json: skipped, .*no metadata\.json beside it/),
        expect.stringMatching(/^falco-website-grpc-client-rust-host-alert\.json: falco -> 202, 1 nodes/),
      ]),
    );
    expect(summary).toEqual({ accepted: 3, rejected: 0, skipped: 3 });
    await service.settle();
    const graph = service.engine.tenant('default')!.graph;
    expect(graph.hasNode(nodeId('VirtualMachine', '644160558196/i-014296505597bf519'))).toBe(true);
    expect(graph.hasNode(nodeId('VirtualMachine', 'localhost.localdomain'))).toBe(true);
    expect(graph.hasNode(nodeId('Service', 'host'))).toBe(false);
  } finally {
    await service.dispose();
    await rm(dir, { recursive: true, force: true });
  }
});

it('posts signatures and summaries: a blob bundle is said, not refused; PEP 740 and VSA reach the graph', async () => {
  const files = [
    'provenance/sigstore-python-integration-Python-3.12.5.tgz.sigstore',
    'provenance/pypi-attestations-rfc8785-0.1.2-py3-none-any.whl.publish.attestation',
    'provenance/slsa-verifier-vsa-gce-v1-gke-gce-pre.bcid-vsa.jsonl',
  ];
  const dir = await unseenFolder(files, 'pathgate-ingestreal-signatures-');
  const service = await makeService();
  try {
    const { summary, lines } = await ingestRealRun(service, dir);
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /^sigstore-python-integration-Python-3\.12\.5\.tgz\.sigstore: supplychain -> 202, 0 nodes/,
        ),
        expect.stringMatching(
          /^ {2}warning: .*signs a blob \(messageSignature over sha256:38dc4e2c.*, signed by thomas@python\.org/,
        ),
        expect.stringMatching(
          /^pypi-attestations-rfc8785-.*\.publish\.attestation: supplychain -> 202, 1 nodes/,
        ),
        expect.stringMatching(
          /^slsa-verifier-vsa-gce-v1-gke-gce-pre\.bcid-vsa\.jsonl: supplychain -> 202, 1 nodes/,
        ),
      ]),
    );
    expect(summary).toEqual({ accepted: 3, rejected: 0, skipped: 0 });
    await service.settle();
    const graph = service.engine.tenant('default')!.graph;
    const wheel = nodeId('Library', 'pkg:pypi/rfc8785@0.1.2');
    expect(graph.hasNode(wheel)).toBe(true);
    expect(graph.getNodeAttributes(wheel)).toMatchObject({
      // signed on Sigstore's staging instance: signature_unverified against the public-good root
      props: { signed: false, signature: 'signature_unverified', signer_identity: 'william@yossarian.net' },
    });
  } finally {
    await service.dispose();
    await rm(dir, { recursive: true, force: true });
  }
});
