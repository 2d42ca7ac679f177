// Which files `pathgate ingestreal` leaves unread by their name (app/not-reports.ts): code, documentation,
// build files and Terraform's HCL; every other file is read by its content, whatever it is called.
import { describe, expect, it } from 'vitest';
import { notAReportByName, SkippedByName } from '../../app/not-reports.js';

describe('files not read by name', () => {
  it('code, documentation, build files and Terraform configuration', () => {
    expect(notAReportByName('repo/README.md')).toBe('source code and documentation');
    expect(notAReportByName('scripts/setup-kubernetes-goat.sh')).toBe('source code and documentation');
    expect(notAReportByName('app/main.PY')).toBe('source code and documentation');
    expect(notAReportByName('infra/main.tf')).toMatch(
      /^Terraform configuration \(send `terraform show -json`/,
    );
    expect(notAReportByName('Dockerfile')).toBe('build files');
    expect(notAReportByName('intel/epss-scores.csv')).toMatch(
      /^tables \(threat intel is loaded with `pathgate intel/,
    );
    expect(notAReportByName('docker/Dockerfile.alpine')).toBe('build files');
  });

  it('twin: reports by any name are read by content (JSON, YAML, NDJSON, SARIF, no extension, a plan)', () => {
    for (const name of [
      'scan.json',
      'deploy.yaml',
      'alerts.log',
      'dump.txt',
      'results.sarif',
      'bom.xml',
      'trivy-report',
      'tfplan.json',
      '.md.json',
    ])
      expect(notAReportByName(`reports/${name}`), name).toBeUndefined();
  });

  it('says what it skipped in one line, by kind and extension', () => {
    const skipped = new SkippedByName();
    expect(skipped.line()).toBeUndefined();
    for (const f of ['a.md', 'b.md', 'run.sh', 'main.tf']) skipped.add(f, notAReportByName(f)!);
    expect(skipped.line()).toBe(
      '4 file(s) not read as reports: source code and documentation (2 .md, 1 .sh); ' +
        'Terraform configuration (send `terraform show -json` of a plan or state) (1 .tf)',
    );
  });
});
