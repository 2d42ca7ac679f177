// The small estate the gate, CLI, Action and GitHub app tests share: an internet load balancer routes to a
// workload running a scanned image (one LOW CVE), which may read a crown-jewel database; threat intel
// already knows log4shell is exploited. A PR that adds log4shell to the image makes the route critical.
import { edge, envelope, node } from './envelope.js';

export const IMAGE = 'ghcr.io/acme/checkout:1.0';

export const LOW_CVE = {
  VulnerabilityID: 'CVE-2023-0001',
  PkgName: 'libfoo',
  Severity: 'LOW',
  CVSS: { nvd: { V3Score: 3.1 } },
};

export const KEV_CVE = {
  VulnerabilityID: 'CVE-2021-44228',
  PkgName: 'log4j-core',
  FixedVersion: '2.15.0',
  Severity: 'CRITICAL',
};

/** A Trivy report of an image with these vulnerabilities. */
export function trivyReport(vulnerabilities: Record<string, unknown>[], artifact = IMAGE) {
  return {
    SchemaVersion: 2,
    ArtifactName: artifact,
    ArtifactType: 'container_image',
    Metadata: { RepoTags: [artifact] },
    Results: [{ Target: artifact, Class: 'os-pkgs', Type: 'debian', Vulnerabilities: vulnerabilities }],
  };
}

/** shop-alb ROUTES_TO checkout (runs the image) HAS_PERMISSION 0.9 orders; CVE-2021-44228 known exploited. */
export function gateEstate() {
  const lb = node('LoadBalancer', 'shop-alb', { internet_exposed: true });
  const web = node('Service', 'checkout');
  const img = node('Image', 'acme/checkout:1.0', { resolve_ref: IMAGE });
  const db = node('Database', 'orders', { crown_jewel: true });
  return envelope(
    [lb, web, img, db, node('CVE', 'CVE-2021-44228', { kev: true })],
    [edge('ROUTES_TO', lb, web), edge('DEPENDS_ON', web, img), edge('HAS_PERMISSION', web, db, 0.9)],
  );
}
