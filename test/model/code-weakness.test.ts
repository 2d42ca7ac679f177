// Which code scanner findings price the hop into a workload, and how much (src/model/code-weakness.ts).
import { describe, expect, it } from 'vitest';
import { CODE_FINDING_CONFIDENCE, priceWeakness, serverSideClass } from '../../src/model/code-weakness.js';
import { SEVERITY_PROBABILITY } from '../../src/model/probability.js';

describe('code weaknesses as hop evidence', () => {
  it('prices a server-side weakness from its severity, scaled by the rule’s confidence', () => {
    expect(priceWeakness({ cwe: ['CWE-89'], severity: 'HIGH', confidence: 'HIGH' })).toEqual({
      p: SEVERITY_PROBABILITY.HIGH,
      basis: 'severity',
    });
    // CodeQL says `precision`; a rule that says neither is taken as medium.
    expect(priceWeakness({ cwe: ['CWE-78'], severity: 'CRITICAL', precision: 'low' })!.p).toBeCloseTo(
      SEVERITY_PROBABILITY.CRITICAL * CODE_FINDING_CONFIDENCE.low,
    );
    expect(priceWeakness({ cwe: ['CWE-502'], severity: 'MEDIUM' })!.p).toBeCloseTo(
      SEVERITY_PROBABILITY.MEDIUM * CODE_FINDING_CONFIDENCE.medium,
    );
    // Any one of a finding's CWEs makes it server-side (CodeQL tags a path traversal with five).
    expect(serverSideClass(['CWE-99', 'cwe-22'])).toBe('path traversal');
  });

  it('prices nothing for client-side, denial-of-service, crypto or credential findings (negative twins)', () => {
    for (const cwe of ['CWE-79', 'CWE-352', 'CWE-601', 'CWE-327', 'CWE-400', 'CWE-798', 'CWE-787'])
      expect(priceWeakness({ cwe: [cwe], severity: 'CRITICAL', confidence: 'HIGH' }), cwe).toBeUndefined();
    // No CWE, or no severity: nothing to price from.
    expect(priceWeakness({ severity: 'HIGH' })).toBeUndefined();
    expect(priceWeakness({ cwe: 'CWE-89', severity: 'HIGH' })).toBeUndefined();
    expect(priceWeakness({ cwe: ['CWE-89'] })).toBeUndefined();
  });
});
