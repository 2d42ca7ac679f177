// Package names across tools: a purl's escapes and a legacy purl type must not split one package in two.
import { describe, expect, it } from 'vitest';
import { packageRef } from '../../src/identity/package-ref.js';

const name = (purl: string) => packageRef({ name: 'x', purl })?.name;

describe('packageRef', () => {
  it('names a purl with its escapes decoded, so Trivy (%2B) and Syft (+) meet', () => {
    expect(name('pkg:deb/debian/base-files@11.1%2Bdeb11u5?arch=amd64&distro=debian-11')).toBe(
      'pkg:deb/debian/base-files@11.1+deb11u5',
    );
    expect(name('pkg:deb/debian/base-files@11.1+deb11u5?arch=amd64&distro=debian-11')).toBe(
      'pkg:deb/debian/base-files@11.1+deb11u5',
    );
    expect(name('pkg:golang/github.com/docker/distribution@v2.7.1%2Bincompatible')).toBe(
      'pkg:golang/github.com/docker/distribution@v2.7.1+incompatible',
    );
    // Twins: a purl without escapes is unchanged, and a stray `%` is kept as written.
    expect(name('pkg:maven/org.springframework/spring-beans@5.3.15')).toBe(
      'pkg:maven/org.springframework/spring-beans@5.3.15',
    );
    expect(name('pkg:generic/odd@1%zz')).toBe('pkg:generic/odd@1%zz');
  });

  it("reads Syft's legacy `pkg:alpine/` as the apk package Trivy names `pkg:apk/alpine/`", () => {
    const legacy = packageRef({ name: 'musl', purl: 'pkg:alpine/musl@1.2.3-r0?arch=x86_64&upstream=musl' });
    expect(legacy).toMatchObject({
      label: 'Package',
      name: 'pkg:apk/alpine/musl@1.2.3-r0',
      ecosystem: 'apk',
      purl: 'pkg:alpine/musl@1.2.3-r0?arch=x86_64&upstream=musl',
    });
    expect(name('pkg:apk/alpine/musl@1.2.3-r0?distro=3.16.0')).toBe(legacy!.name);
    // Twin: another type whose name starts so is not rewritten.
    expect(packageRef({ name: 'a', purl: 'pkg:alpinejs/a@1' })).toMatchObject({
      label: 'Library',
      name: 'pkg:alpinejs/a@1',
    });
  });

  it("spells a name as its purl type says: Grype's `pkg:pypi/Django` is Trivy's `pkg:pypi/django`", () => {
    // PyPI: case-insensitive, and `-`, `_` and `.` one separator (PEP 503).
    expect(name('pkg:pypi/Django@3.2.9')).toBe('pkg:pypi/django@3.2.9');
    expect(name('pkg:pypi/zope.interface@5.4.0')).toBe('pkg:pypi/zope-interface@5.4.0');
    expect(name('pkg:pypi/typing_extensions@4.1.1')).toBe('pkg:pypi/typing-extensions@4.1.1');
    // A package with no purl (Trivy's older reports, SBOMs without one) is spelled alike.
    expect(packageRef({ name: 'Flask_Cors', type: 'pip', version: '3.0.10' })?.name).toBe(
      'pkg:pypi/flask-cors@3.0.10',
    );
    // Composer, deb and apk names are case-insensitive; an rpm's namespace (its vendor) too, not its name.
    expect(name('pkg:composer/Laravel/Framework@7.12.0')).toBe('pkg:composer/laravel/framework@7.12.0');
    expect(name('pkg:deb/Debian/libSSL1.1@1.1.1n-0+deb11u3')).toBe(
      'pkg:deb/debian/libssl1.1@1.1.1n-0+deb11u3',
    );
    expect(name('pkg:rpm/RedHat/NetworkManager@1.30.0')).toBe('pkg:rpm/redhat/NetworkManager@1.30.0');
    // Versions are never respelled.
    expect(name('pkg:pypi/PyYAML@5.4.1_Final')).toBe('pkg:pypi/pyyaml@5.4.1_Final');
  });

  it('twin: case-sensitive types keep their spelling (Maven groups, Go modules, npm, NuGet)', () => {
    for (const purl of [
      'pkg:maven/org.Apache.logging/log4j-core@2.14.1',
      'pkg:golang/github.com/Sirupsen/logrus@v1.0.0',
      'pkg:npm/JSONStream@1.3.5',
      'pkg:nuget/Newtonsoft.Json@13.0.1',
      'pkg:gem/Ascii85@1.0.3',
    ])
      expect(name(purl)).toBe(purl);
    expect(name('pkg:golang/github.com/Sirupsen/logrus@v1.0.0')).not.toBe(
      name('pkg:golang/github.com/sirupsen/logrus@v1.0.0'),
    );
  });
});
