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
});
