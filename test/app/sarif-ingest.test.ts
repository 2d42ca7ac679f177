// SARIF logs through the real ingest listener: `pathgate ingestreal` recognises them by content and names the
// folder's repository; CodeQL's, Semgrep's and Gitleaks' findings land on that Repository, a Grype log is
// refused by name; a tool's next log retracts only what that tool no longer reports, and no secret a
// scanner printed reaches the graph.
import { copyFile, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { ingestReal } from '../../app/ingest-real.js';
import { makeService, tempDir, type TestService } from '../helpers/service.js';

const REPO = 'github.com/acme/vulpy';
const FILES = [
  'defectdojo-codeQL-output.sarif',
  'defectdojo-semgrep-oss-1.69-issue_10191.sarif',
  'defectdojo-gitleaks_7.5.0.sarif',
  'defectdojo-cxf-3.4.6.sarif',
];
const fixture = (file: string) => new URL(`../../fixtures/unseen/sarif/${file}`, import.meta.url);

let service: TestService | undefined;
afterEach(async () => {
  await service?.dispose();
  service = undefined;
});

it('ingestreal posts SARIF logs for the folder’s repository; each tool’s next log retracts its own findings', async () => {
  const dir = await tempDir('pathgate-sarif-');
  for (const f of FILES) await copyFile(fixture(f), path.join(dir, f));
  service = await makeService();
  const url = await service.ingestApp.listen({ host: '127.0.0.1', port: 0 });
  const lines: string[] = [];
  const summary = await ingestReal({ dir, url, repo: REPO, out: (l) => lines.push(l) });
  expect(lines).toEqual(
    expect.arrayContaining([
      expect.stringMatching(/^defectdojo-codeQL-output\.sarif: sarif -> 202, 10 nodes, 9 edges/),
      expect.stringMatching(
        /^defectdojo-semgrep-oss-1\.69-issue_10191\.sarif: sarif -> 202, 78 nodes, 77 edges/,
      ),
      expect.stringMatching(/^defectdojo-gitleaks_7\.5\.0\.sarif: sarif -> 202, 5 nodes, 4 edges/),
      expect.stringMatching(
        /^defectdojo-cxf-3\.4\.6\.sarif: sarif -> 400 .*\/tool\/driver\/name: a vulnerability scan.*\/ingest\/grype/,
      ),
    ]),
  );
  expect(summary).toEqual({ accepted: 3, rejected: 1, skipped: 0 });
  await service.settle();

  const graph = service.engine.tenant('default')!.graph;
  const onRepo = (label: string, scanner?: string) =>
    graph.filterNodes(
      (_, a) =>
        a.label === label &&
        String(a.name).startsWith(`${REPO}:`) &&
        (scanner === undefined || a.props.scanner === scanner),
    ).length;
  expect(onRepo('Weakness', 'CodeQL')).toBe(9);
  expect(onRepo('Weakness', 'Semgrep OSS')).toBe(77);
  expect(onRepo('Secret')).toBe(4);
  // Gitleaks printed each secret it found (`offender`): none of them is anywhere in the graph.
  const offenders = [
    ...(await readFile(fixture('defectdojo-gitleaks_7.5.0.sarif'), 'utf8')).matchAll(
      /"offender": "([^"]+)"/g,
    ),
  ].map((m) => m[1]);
  expect(offenders.length).toBeGreaterThan(0);
  const everything = JSON.stringify(graph.export());
  for (const offender of offenders) expect(everything).not.toContain(offender);

  // CodeQL's next log no longer reports the SQL injections: they go, Semgrep's findings stay.
  const next = JSON.parse(await readFile(fixture('defectdojo-codeQL-output.sarif'), 'utf8'));
  next.runs[0].results = next.runs[0].results.filter(
    (r: { ruleId: string }) => r.ruleId !== 'py/sql-injection',
  );
  const response = await service.ingest(next, { source: 'sarif', query: `repo=${REPO}` });
  expect(response.status, JSON.stringify(response.json)).toBe(202);
  await service.settle();
  expect(onRepo('Weakness', 'CodeQL')).toBe(7);
  expect(onRepo('Weakness', 'Semgrep OSS')).toBe(77);
  expect(onRepo('Secret')).toBe(4);
});
