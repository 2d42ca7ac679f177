import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  EDGE_TYPE_PROBABILITY,
  RESOURCE_SCOPED_FACTOR,
  clampProbability,
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

  it('halves a resource-scoped escalation without explicit probability', () => {
    expect(priceHop({ type: 'CAN_ESCALATE_TO', resourceScoped: true, lastSeen: 0 }).p).toBeCloseTo(
      EDGE_TYPE_PROBABILITY.CAN_ESCALATE_TO * RESOURCE_SCOPED_FACTOR,
    );
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
});
