// The one probability table: every hop's probability and the basis that produced it come from here.
// docs/model.md explains each value; test/model/probability.test.ts keeps the two in step.
import type { EdgeAttributes } from '../graph/model.js';
import type { EdgeType, WeightBasis } from '../graph/vocabulary.js';

export interface HopPrice {
  p: number;
  basis: WeightBasis;
}

/**
 * Heuristic probability of an attacker traversing a hop of each type when no evidence is attached.
 * Routing and hosting hops are near-certain; lateral movement and escalation are harder.
 */
export const EDGE_TYPE_PROBABILITY: Readonly<Record<EdgeType, number>> = {
  ROUTES_TO: 0.9,
  EXPOSES: 0.8,
  HOSTS: 0.7,
  AUTHENTICATES: 0.7,
  ASSUMES: 0.6,
  HAS_PERMISSION: 0.6,
  CONNECTS_TO: 0.5,
  BUILT_FROM: 0.4,
  CAN_ESCALATE_TO: 0.4,
  DEPENDS_ON: 0.3,
  COMPILED_INTO: 0.3,
  EXPLOITS: 0.3,
  AFFECTS: 0.3,
  // A mitigation is not an attacker move: it never carries an attack path.
  MITIGATES: 0,
};

/** A CAN_ESCALATE_TO held only on specific literal resources is harder to turn into a full escalation. */
export const RESOURCE_SCOPED_FACTOR = 0.5;

/** Probabilities are clamped into (0, 1]; a hop of probability 0 is not traversable. */
export function clampProbability(p: number): number {
  if (!Number.isFinite(p) || p <= 0) return 0;
  return p > 1 ? 1 : p;
}

/** The price of one hop: the report's explicit probability wins, else the table. */
export function priceHop(edge: EdgeAttributes): HopPrice {
  let price: HopPrice =
    edge.p !== undefined
      ? { p: clampProbability(edge.p), basis: edge.basis ?? 'heuristic' }
      : { p: EDGE_TYPE_PROBABILITY[edge.type], basis: 'heuristic' };
  if (edge.resourceScoped && edge.type === 'CAN_ESCALATE_TO' && edge.p === undefined) {
    price = { p: price.p * RESOURCE_SCOPED_FACTOR, basis: price.basis };
  }
  return price;
}
