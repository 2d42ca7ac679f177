// `trivy repo` / `trivy fs` reports (ArtifactType repository, filesystem) on Trivy's own goldens: the
// Repository named from the URL or from ?repo=, its libraries and their CVEs, secrets and
// misconfigurations; a local path without ?repo= is a 400 naming /query/repo.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { repositoryFromUrl } from '../../../src/identity/repository-name.js';
import { createTrivySource } from '../../../src/ingest/sources/trivy.js';
import { normalize, rejection } from '../../helpers/normalize.js';

const trivy = createTrivySource();
const fixture = (name: string) =>
  JSON.parse(readFileSync(new URL(`./fixtures/trivy-repo/${name}.json`, import.meta.url), 'utf8'));

describe('trivy: repository and filesystem scans', () => {
  it('names a remote repository scan from its URL; it depends on its libraries, whose CVEs affect them', () => {
    const out = normalize(trivy, fixture('test-repo'));
    expect(out.names('Repository')).toEqual(['github.com/knqyf263/trivy-ci-test']);
    expect(out.names('Image')).toEqual([]);
    expect(out.node('Repository', 'github.com/knqyf263/trivy-ci-test').properties).toMatchObject({
      code_scanner: 'trivy',
      artifact_type: 'repository',
      commit_sha: '5ae342eb2802672402d9b2c26f09e2051bbd91b8',
      branch: 'master',
    });
    expect(out.edges).toContain('DEPENDS_ON github.com/knqyf263/trivy-ci-test -> pkg:cargo/ammonia@1.9.0');
    expect(out.edges).toContain('AFFECTS CVE-2019-15542 -> pkg:cargo/ammonia@1.9.0');
    expect(out.edges).toContain('AFFECTS CVE-2019-15542 -> github.com/knqyf263/trivy-ci-test');
    expect(out.scope).toBe('repo:github.com/knqyf263/trivy-ci-test');
  });

  it('needs ?repo= for a local path, and names the repository by it', () => {
    expect(rejection(trivy, fixture('npm'))[0]).toMatchObject({ pointer: '/query/repo', value: null });
    const out = normalize(trivy, fixture('npm'), { repo: 'github.com/acme/web' });
    expect(out.names('Repository')).toEqual(['github.com/acme/web']);
    expect(out.edges).toContain('DEPENDS_ON github.com/acme/web -> pkg:npm/jquery@3.3.9');
    expect(out.edges).toContain('AFFECTS CVE-2019-11358 -> pkg:npm/jquery@3.3.9');
    expect(out.node('CVE', 'CVE-2019-11358').properties).toMatchObject({
      cvss_score: 6.1,
      severity: 'MEDIUM',
    });
  });

  it("reads a filesystem scan's libraries the same way", () => {
    const out = normalize(trivy, fixture('composer.vendor'), { repo: 'github.com/acme/php' });
    expect(out.edges.filter((e) => e.startsWith('DEPENDS_ON github.com/acme/php ->')).length).toBeGreaterThan(
      0,
    );
  });

  it('turns secrets and failed misconfiguration checks into nodes that affect the repository, no matched text', () => {
    const secrets = normalize(trivy, fixture('secrets'), { repo: 'github.com/acme/ops' });
    expect(secrets.names('Secret').length).toBe(2);
    expect(
      secrets.edges.filter((e) => e.startsWith('AFFECTS') && e.endsWith('-> github.com/acme/ops')),
    ).toHaveLength(2);
    const raw = fixture('secrets').Results[0].Secrets[0].Match as string;
    expect(JSON.stringify(secrets.envelopes)).not.toContain(raw);
    const dockerfile = normalize(trivy, fixture('dockerfile'), { repo: 'github.com/acme/ops' });
    expect(dockerfile.names('Misconfiguration')).toHaveLength(1);
  });

  it('still refuses a kind of scan it does not read', () => {
    expect(rejection(trivy, { ...fixture('test-repo'), ArtifactType: 'vm' })[0]).toMatchObject({
      pointer: '/ArtifactType',
    });
  });

  it.each([
    ['https://github.com/acme/shop', 'github.com/acme/shop'],
    ['https://GitHub.com/acme/shop.git', 'github.com/acme/shop'],
    ['git@github.com:acme/shop.git', 'github.com/acme/shop'],
    ['testdata/fixtures/repo/npm', undefined],
    ['/home/runner/work/shop', undefined],
    ['https://example.com/', undefined],
  ])('reads %s as %s', (url, expected) => {
    expect(repositoryFromUrl(url)).toBe(expected);
  });
});
