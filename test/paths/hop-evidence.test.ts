// The evidence a hop stands on, read from the graph the way the pricing reads it.
import { describe, expect, it } from 'vitest';
import { createTenantGraph, type TenantGraph } from '../../src/graph/model.js';
import { hopEvidence } from '../../src/paths/hop-evidence.js';

function estate(): TenantGraph {
  const g = createTenantGraph();
  const node = (id: string, label: string, props: Record<string, unknown> = {}) =>
    g.addNode(id, { label: label as never, name: id, props, lastSeen: 0 });
  node('alb', 'LoadBalancer');
  node('checkout', 'Service', {
    runtime_observed: true,
    runtime_rules: ['Terminal shell in container'],
    runtime_alert_count: 3,
  });
  node('checkout:1.2', 'Image');
  node('other:2.0', 'Image');
  node('CVE-2024-1', 'CVE', { cvss_score: 9.8, kev: true, severity: 'CRITICAL', title: 'parser overflow' });
  node('CVE-2024-2', 'CVE', { cvss_score: 5.0, epss: 0.02 });
  node('CVE-2024-9', 'CVE', { cvss_score: 10 });
  node('db', 'Database');
  g.addEdge('alb', 'checkout', { type: 'ROUTES_TO', lastSeen: 0 });
  g.addEdge('checkout', 'checkout:1.2', { type: 'DEPENDS_ON', lastSeen: 0 });
  g.addEdge('CVE-2024-2', 'checkout:1.2', { type: 'AFFECTS', lastSeen: 0 });
  g.addEdge('CVE-2024-1', 'checkout:1.2', { type: 'AFFECTS', lastSeen: 0 });
  g.addEdge('CVE-2024-9', 'other:2.0', { type: 'AFFECTS', lastSeen: 0 });
  g.addEdge('checkout', 'db', {
    type: 'CONNECTS_TO',
    props: { security_group: 'sg-1', port: 5432 },
    lastSeen: 0,
  });
  return g;
}

describe('hopEvidence', () => {
  it('lists the CVEs of the images a workload runs, most exploitable first, and the runtime alert on it', () => {
    const evidence = hopEvidence(estate(), { from: 'alb', to: 'checkout', type: 'ROUTES_TO' });
    expect(evidence.map((e) => [e.kind, e.name])).toEqual([
      ['cve', 'CVE-2024-1'],
      ['cve', 'CVE-2024-2'],
      ['runtime', 'Terminal shell in container'],
    ]);
    expect(evidence[0]).toMatchObject({
      cvss: 9.8,
      kev: true,
      severity: 'CRITICAL',
      detail: 'parser overflow — in checkout:1.2',
    });
    expect(evidence[1]).toMatchObject({ cvss: 5, epss: 0.02, kev: null });
    expect(evidence[2].detail).toBe('3 alerts');
  });

  it('does not list a CVE of an image the workload does not run (the negative twin)', () => {
    const evidence = hopEvidence(estate(), { from: 'alb', to: 'checkout', type: 'ROUTES_TO' });
    expect(evidence.map((e) => e.name)).not.toContain('CVE-2024-9');
  });

  it("lists the hop's own properties (a network rule) and nothing for a hop into a non-workload", () => {
    expect(hopEvidence(estate(), { from: 'checkout', to: 'db', type: 'CONNECTS_TO' })).toEqual([
      {
        kind: 'rule',
        name: 'security_group',
        cvss: null,
        epss: null,
        kev: null,
        severity: null,
        detail: 'sg-1',
      },
      { kind: 'rule', name: 'port', cvss: null, epss: null, kev: null, severity: null, detail: '5432' },
    ]);
    // a hop the graph no longer has (the route was stored before a retraction) has no evidence, not an error
    expect(hopEvidence(estate(), { from: 'db', to: 'checkout', type: 'CONNECTS_TO' })).toEqual([]);
    expect(hopEvidence(estate(), { from: 'gone', to: 'db', type: 'CONNECTS_TO' })).toEqual([]);
  });
});
