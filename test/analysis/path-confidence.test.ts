// AttackPath.confidence and confidenceLabel (spec "Attack path"): Π of the hops' identity-join confidence ×
// the weakest hop's evidence weight; high from 0.8, medium from 0.5, else low (docs/model.md, "Confidence").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDemo } from '../../app/service.js';
import { confidenceLabel, pathConfidence } from '../../src/analysis/path-confidence.js';
import { makeService, type TestService } from '../helpers/service.js';

describe('pathConfidence', () => {
  it('observed evidence on reported hops is high; a direct-access path (no hop) is 1', () => {
    expect(pathConfidence([])).toEqual({ confidence: 1, label: 'high' });
    expect(
      pathConfidence([
        { weightBasis: 'kev', joinConfidence: 1 },
        { weightBasis: 'runtime', joinConfidence: 1 },
      ]),
    ).toEqual({ confidence: 1, label: 'high' });
  });

  it('the weakest evidence bounds it; joins compound', () => {
    expect(
      pathConfidence([
        { weightBasis: 'kev', joinConfidence: 1 },
        { weightBasis: 'severity', joinConfidence: 1 },
      ]),
    ).toEqual({ confidence: 0.75, label: 'medium' });
    // Two bare-name joins (0.6 each) on estimated hops: 0.36 × 0.9.
    expect(
      pathConfidence([
        { weightBasis: 'cvss', joinConfidence: 0.6 },
        { weightBasis: 'cvss', joinConfidence: 0.6 },
      ]),
    ).toEqual({ confidence: 0.324, label: 'low' });
  });

  it('labels at the documented thresholds', () => {
    expect([0.8, 0.7999, 0.5, 0.4999].map(confidenceLabel)).toEqual(['high', 'medium', 'medium', 'low']);
  });
});

describe('confidence on the demo estate (its real reports through the service)', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await makeService();
    await loadDemo(service);
    await service.settle();
  });
  afterAll(() => service.dispose());

  const paths = async () =>
    (
      await service.graphql(
        '{ attackPaths { confidence confidenceLabel directAccess nodes { name } steps { weightBasis } } }',
      )
    ).attackPaths as {
      confidence: number;
      confidenceLabel: string;
      directAccess: boolean;
      nodes: { name: string }[];
    }[];
  const through = (list: Awaited<ReturnType<typeof paths>>, name: string) =>
    list.filter((p) => p.nodes.some((n) => n.name === name));

  it('a route into checkout-api rests on the tag join of its image to the Trivy scan: medium', async () => {
    const list = await paths();
    const checkout = through(list, 'checkout-api');
    expect(checkout.length).toBeGreaterThan(0);
    // The Kubernetes workload runs `…/checkout-api:<tag>`, joined to the scanned image by tag (0.85), and its
    // routes' weakest evidence is a pricing rule (0.85).
    for (const p of checkout) expect(p).toMatchObject({ confidence: 0.7225, confidenceLabel: 'medium' });
  });

  it('routes of reported facts only (the cluster RBAC, the cloud IAM) stay high: the negative twin', async () => {
    const list = await paths();
    const facts = [...through(list, 'shop/cluster-admin'), ...through(list, '111122223333/account-admin')];
    expect(facts.length).toBeGreaterThan(0);
    for (const p of facts) expect(p.confidenceLabel).toBe('high');
    const direct = list.filter((p) => p.directAccess);
    expect(direct.length).toBeGreaterThan(0);
    for (const p of direct) expect(p).toMatchObject({ confidence: 1, confidenceLabel: 'high' });
  });
});
