import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  CVSS_SCALE,
  EDGE_TYPE_PROBABILITY,
  KEV_PROBABILITY,
  ESCALATION_CONDITIONAL_PROBABILITY,
  ESCALATION_PROBABILITY,
  ESCALATION_RESOURCE_SCOPED_PROBABILITY,
  escalationPrice,
  RUNTIME_PROBABILITY,
  SEVERITY_PROBABILITY,
  UNKNOWN_CVE_PROBABILITY,
  SCANNED_CLEAN_PROBABILITY,
  clampProbability,
  moreExploitable,
  priceCve,
  priceHop,
} from '../../src/model/probability.js';
import { EDGE_TYPES } from '../../src/graph/vocabulary.js';

const doc = readFileSync(new URL('../../docs/model.md', import.meta.url), 'utf8');

describe('probability table', () => {
  it('prices every edge type of the vocabulary, exactly as docs/model.md lists it', () => {
    const documented = Object.fromEntries(
      [...doc.matchAll(/^\|\s*`([A-Z_]+)`\s*\|\s*([\d.]+)\s*\|/gm)].map((m) => [m[1], Number(m[2])]),
    );
    expect(Object.keys(EDGE_TYPE_PROBABILITY).sort()).toEqual([...EDGE_TYPES].sort());
    expect(documented).toEqual(EDGE_TYPE_PROBABILITY);
  });

  it('lets an explicit probability win, with its declared basis or heuristic', () => {
    expect(priceHop({ type: 'ROUTES_TO', p: 0.12, lastSeen: 0 })).toEqual({ p: 0.12, basis: 'heuristic' });
    expect(priceHop({ type: 'ROUTES_TO', p: 0.97, basis: 'kev', lastSeen: 0 })).toEqual({
      p: 0.97,
      basis: 'kev',
    });
  });

  it('prices escalation as DECISIONS says: 0.9 unconditional, 0.6 resource-scoped, 0.45 conditional', () => {
    expect(EDGE_TYPE_PROBABILITY.CAN_ESCALATE_TO).toBe(ESCALATION_PROBABILITY);
    expect(priceHop({ type: 'CAN_ESCALATE_TO', lastSeen: 0 }).p).toBe(0.9);
    expect(priceHop({ type: 'CAN_ESCALATE_TO', resourceScoped: true, lastSeen: 0 }).p).toBe(
      ESCALATION_RESOURCE_SCOPED_PROBABILITY,
    );
    expect([
      escalationPrice('unconditional'),
      escalationPrice('scoped'),
      escalationPrice('conditional'),
    ]).toEqual([0.9, 0.6, 0.45]);
    expect(ESCALATION_CONDITIONAL_PROBABILITY).toBe(0.45);
    // The model doc writes the same numbers.
    expect(doc).toMatch(/unconditional[^|\n]*\|\s*0\.9/);
    expect(doc).toMatch(/resource_scoped[^|\n]*\|\s*0\.6/);
    expect(doc).toMatch(/condition not understood[^|\n]*\|\s*0\.45/);
  });

  it.each([
    [-1, 0],
    [0, 0],
    [Number.NaN, 0],
    [0.3, 0.3],
    [1.5, 1],
  ])('clamps %s to %s', (input, expected) => {
    expect(clampProbability(input)).toBe(expected);
  });

  it('prices a CVE by its first evidence, observed before estimated, as docs/model.md lists it', () => {
    expect(priceCve({ kev: true, epss: 0.02, cvss_score: 9.8 })).toEqual({
      p: KEV_PROBABILITY,
      basis: 'kev',
    });
    expect(priceCve({ epss: 0.02, cvss_score: 9.8 })).toEqual({ p: 0.02, basis: 'epss' });
    expect(priceCve({ runtime_observed: true, cvss_score: 9.8 })).toEqual({
      p: RUNTIME_PROBABILITY,
      basis: 'runtime',
    });
    expect(priceCve({ cvss_score: 9.8, severity: 'LOW' }).p).toBeCloseTo(0.98 * CVSS_SCALE);
    expect(priceCve({ severity: 'high' })).toEqual({ p: SEVERITY_PROBABILITY.HIGH, basis: 'severity' });
    expect(priceCve({})).toEqual({ p: UNKNOWN_CVE_PROBABILITY, basis: 'heuristic' });
    const cveSection = doc.slice(doc.indexOf('## Hops into a workload'));
    expect(cveSection).toMatch(new RegExp(`\\| kev +\\| \`kev: true\`[^|]*\\| ${KEV_PROBABILITY} `));
    expect(cveSection).toContain(`score ÷ 10 × ${CVSS_SCALE}`);
    for (const [severity, p] of Object.entries(SEVERITY_PROBABILITY))
      expect(cveSection).toContain(`${severity} ${p}`);
    expect(cveSection).toMatch(
      new RegExp(`\\| heuristic +\\| nothing usable +\\| ${UNKNOWN_CVE_PROBABILITY} `),
    );
    expect(cveSection).toContain(
      `priced **scanned clean**: ${SCANNED_CLEAN_PROBABILITY}, basis \`heuristic\``,
    );
  });

  it('keeps the more exploitable price, the stronger basis on a tie', () => {
    expect(moreExploitable({ p: 0.5, basis: 'cvss' }, { p: 0.6, basis: 'severity' })).toEqual({
      p: 0.6,
      basis: 'severity',
    });
    expect(moreExploitable({ p: 0.5, basis: 'cvss' }, { p: 0.5, basis: 'epss' })).toEqual({
      p: 0.5,
      basis: 'epss',
    });
  });

  it('multiplies a hop stitched by a weaker identity join by its confidence', () => {
    expect(priceHop({ type: 'BUILT_FROM', joinConfidence: 0.6, lastSeen: 0 }).p).toBeCloseTo(
      EDGE_TYPE_PROBABILITY.BUILT_FROM * 0.6,
    );
    expect(priceHop({ type: 'ROUTES_TO', lastSeen: 0 }, { p: 0.7, basis: 'cvss' })).toEqual({
      p: 0.7,
      basis: 'cvss',
    });
  });
});
