// Code scanners on the route, end to end through the real ingest and the gate, from real reports: the
// ingress-nginx docker-registry example runs an image whose own Trivy scan is clean and that was built from
// a repository. A Semgrep scan of that repository finding XML external entities (real DefectDojo output)
// prices the hop into the workload (basis `severity`); at the gate, a pull request's code scan that brings
// the weakness makes the route likelier and names the rule and file to fix; code scans that find only
// client-side or credential weaknesses (XSS, CSRF, a hard-coded secret: real outputs too) change no route.
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { CODE_FINDING_CONFIDENCE } from '../../src/model/code-weakness.js';
import { SEVERITY_PROBABILITY } from '../../src/model/probability.js';
import { readReal } from '../helpers/normalize.js';
import { registryDump, type Json } from '../helpers/registry-dump.js';
import { makeService, type TestService } from '../helpers/service.js';
import { gateImpact, ingestOk } from '../helpers/service-calls.js';

let service: TestService | undefined;
afterEach(async () => {
  await service?.dispose();
  service = undefined;
});

const IMAGE = 'ghcr.io/steadybit/checkout-go:main';
const REPO = 'github.com/steadybit/checkout-go';
const XXE = 'semgrep/defectdojo-many_vulns.json';
const PR = `repo=${REPO}&slug=steadybit/checkout-go&pr=12&sha=0123abc`;

/** The cluster runs the scanned-clean image; the build record says which repository it was built from. */
async function estate(): Promise<TestService> {
  const s = await makeService();
  const dump = registryDump();
  for (const o of dump.items) if (o.kind === 'Deployment') o.spec.template.spec.containers[0].image = IMAGE;
  await ingest(s, dump, 'k8s', 'cluster=prod');
  await ingest(s, readReal('trivy/steadybit-checkout-go-registry-clean.json'), 'trivy');
  await ingest(s, { image: IMAGE, repository: REPO, slug: 'steadybit/checkout-go' }, 'build');
  return s;
}

const ingest = ingestOk;

async function intoWorkload(s: TestService) {
  await s.settle();
  const { attackPaths } = await s.graphql(
    '{ attackPaths { id nodes { name } steps { to probability weightBasis } } }',
  );
  expect(attackPaths).toHaveLength(1);
  return { id: attackPaths[0].id as string, step: (attackPaths[0].steps as Json[])[1] };
}

const gate = (s: TestService, body: unknown, query = PR) => gateImpact(s, body, `source=semgrep&${query}`);

describe('code weaknesses on the route', () => {
  it('a code scan of the repository an image was built from prices the hop into the workload running it', async () => {
    service = await estate();
    const before = await intoWorkload(service);
    expect(before.step.weightBasis).toBe('heuristic');
    await ingest(service, readReal(XXE), 'semgrep', `repo=${REPO}`);
    const after = await intoWorkload(service);
    expect(after.id).toBe(before.id);
    expect(after.step.weightBasis).toBe('severity');
    // CWE-611 at ERROR (HIGH), no confidence stated (medium), through two tag joins (workload to image,
    // image to repository).
    expect(after.step.probability).toBeCloseTo(
      SEVERITY_PROBABILITY.HIGH * CODE_FINDING_CONFIDENCE.medium * 0.85 * 0.85,
      9,
    );
  });

  it('the gate sees a pull request’s code scan bring the weakness, and says what to fix where', async () => {
    service = await estate();
    const { id } = await intoWorkload(service);
    const answer = await gate(service, readReal(XXE));
    expect(answer.analysed).toBe(true);
    expect(answer.worsened.map((p: Json) => p.id)).toEqual([id]);
    const [route] = answer.worsened;
    expect(route.why).toEqual([
      expect.objectContaining({
        change: 'repriced',
        weightBasis: 'severity',
        previousProbability: expect.any(Number),
      }),
    ]);
    expect(route.fix).toMatch(
      /^fix the XML external entities \(.+ CWE-611\) at \S+:\d+ before this code is deployed$/,
    );
    expect(route.origin.code).toEqual({
      path: expect.any(String),
      line: expect.any(Number),
      rule: expect.any(String),
    });
    // Nothing was written to the live estate.
    expect((await intoWorkload(service)).step.weightBasis).toBe('heuristic');
  });

  it('a SARIF log of the pull request (Semgrep OSS 1.69 --sarif, real) is gated the same way', async () => {
    service = await estate();
    const { id } = await intoWorkload(service);
    const sarif = JSON.parse(
      readFileSync(
        new URL('../../fixtures/unseen/sarif/defectdojo-semgrep-oss-1.69-issue_10191.sarif', import.meta.url),
        'utf8',
      ),
    );
    const answer = await gateImpact(service, sarif, `source=sarif&${PR}`);
    expect(answer.worsened.map((p: Json) => p.id)).toEqual([id]);
    // Its worst server-side finding is a HIGH one at very-high precision: NoSQL injection, SSRF, deserialization…
    expect(answer.worsened[0].why[0]).toMatchObject({ change: 'repriced', weightBasis: 'severity' });
    expect(answer.worsened[0].fix).toMatch(
      /^fix the (NoSQL injection|server-side request forgery|unsafe deserialization|XPath injection) /,
    );
  });

  it('the gate takes the repository from the pull request’s slug when the call names none (as the Action calls)', async () => {
    service = await estate();
    const { id } = await intoWorkload(service);
    // The estate's repository of that slug (the build record's), not one made up from the slug.
    const bySlug = await gate(service, readReal(XXE), 'slug=Steadybit/checkout-go&pr=12&sha=0123abc');
    expect(bySlug.artifact).toBe(`repo:${REPO}`);
    expect(bySlug.worsened.map((p: Json) => p.id)).toEqual([id]);
    // A repository the estate does not hold: named as `trivy repo` names one, and no route to compare.
    const other = await gate(service, readReal(XXE), 'slug=acme/elsewhere&pr=3&sha=0123abc');
    expect(other.artifact).toBe('repo:github.com/acme/elsewhere');
    expect(other.verdict, other.reason).toBe('unknown');
    // Twin: neither repo nor slug, so nothing says which repository the scan read.
    const neither = await gate(service, readReal(XXE), 'pr=12&sha=0123abc');
    expect(neither.verdict).toBe('unknown');
    expect(neither.errors).toEqual([expect.objectContaining({ pointer: '/query/repo' })]);
  });

  it('code scans finding only client-side or credential weaknesses change no route (negative twins)', async () => {
    service = await estate();
    const before = await intoWorkload(service);
    for (const file of [
      'semgrep/defectdojo-semgrep_version_1_30_0_line_26.json', // CWE-79, cross-site scripting
      'semgrep/defectdojo-cwe_list.json', // CWE-352, cross-site request forgery
      'semgrep/defectdojo-issue_8435.json', // CWE-798, a hard-coded credential (a Secret's business)
    ]) {
      const answer = await gate(service, readReal(file));
      expect(answer.verdict, file).toBe('clean');
      expect([...answer.opened, ...answer.worsened], file).toEqual([]);
      await ingest(service, readReal(file), 'semgrep', `repo=${REPO}`);
      expect(await intoWorkload(service), file).toEqual(before);
    }
  });
});
