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
  // An escalation primitive is a documented API call (DECISIONS "Escalation prices").
  CAN_ESCALATE_TO: 0.9,
  DEPENDS_ON: 0.3,
  COMPILED_INTO: 0.3,
  EXPLOITS: 0.3,
  AFFECTS: 0.3,
  // A mitigation is not an attacker move: it never carries an attack path.
  MITIGATES: 0,
};

/** A sign-in through an identity provider without MFA: phishable, a password is enough. */
export const PHISHABLE_LOGIN_PROBABILITY = 0.6;
/** A sign-in that needs a second factor. */
export const MFA_LOGIN_PROBABILITY = 0.1;

/**
 * An instance taking on its profile's role is stealing credentials from the metadata service: with IMDSv1
 * (tokens optional) one GET does it, including through a server-side request forgery; with tokens required
 * (IMDSv2) the attacker needs a PUT with a hop limit first.
 */
export const IMDS_V1_PROBABILITY = 0.8;
export const IMDS_V2_PROBABILITY = 0.3;

export function imdsPrice(httpTokens: string | undefined): number {
  return httpTokens === 'required' ? IMDS_V2_PROBABILITY : IMDS_V1_PROBABILITY;
}

// ---- Escalation (DECISIONS "Escalation prices"): an escalation primitive is a documented API call. ----

/** An escalation primitive held unconditionally on any resource. */
export const ESCALATION_PROBABILITY = 0.9;
/** Held only on literal resources (`resource_scoped`): the attacker needs exactly those. */
export const ESCALATION_RESOURCE_SCOPED_PROBABILITY = 0.6;
/** Held under a condition the policy evaluator does not understand: it may not apply. */
export const ESCALATION_CONDITIONAL_PROBABILITY = 0.45;
/** Already an administrator (`*` on `*`): nothing left to exploit. */
export const ADMIN_HELD_PROBABILITY = 1;

export type EscalationStrength = 'unconditional' | 'scoped' | 'conditional';

export function escalationPrice(strength: EscalationStrength): number {
  return strength === 'conditional'
    ? ESCALATION_CONDITIONAL_PROBABILITY
    : strength === 'scoped'
      ? ESCALATION_RESOURCE_SCOPED_PROBABILITY
      : ESCALATION_PROBABILITY;
}

/** Probabilities are clamped into (0, 1]; a hop of probability 0 is not traversable. */
export function clampProbability(p: number): number {
  if (!Number.isFinite(p) || p <= 0) return 0;
  return p > 1 ? 1 : p;
}

/**
 * The price of one hop: the report's explicit probability wins, else `fallback` (a workload's CVE price,
 * see priceWorkload), else the table. An edge stitched by a weaker identity join is multiplied by the
 * join's confidence.
 */
export function priceHop(edge: EdgeAttributes, fallback?: HopPrice): HopPrice {
  let price: HopPrice =
    edge.p !== undefined
      ? { p: clampProbability(edge.p), basis: edge.basis ?? 'heuristic' }
      : (fallback ?? { p: EDGE_TYPE_PROBABILITY[edge.type], basis: 'heuristic' });
  if (edge.resourceScoped && edge.type === 'CAN_ESCALATE_TO' && edge.p === undefined) {
    price = { p: Math.min(price.p, ESCALATION_RESOURCE_SCOPED_PROBABILITY), basis: price.basis };
  }
  if (edge.joinConfidence !== undefined && edge.joinConfidence < 1) {
    price = { p: price.p * edge.joinConfidence, basis: price.basis };
  }
  return price;
}

// ---- CVEs: the hop into a workload is priced from the most exploitable CVE of the image it runs. ----

/** A CVE listed in CISA's Known Exploited Vulnerabilities catalog: exploitation is observed in the wild. */
export const KEV_PROBABILITY = 0.9;
/** Exploitation of the CVE observed at runtime on this estate (a runtime sensor's alert). */
export const RUNTIME_PROBABILITY = 0.8;
/** CVSS base score s (0-10) maps to p = s / 10 × this: even a 10.0 is not a certainty on its own. */
export const CVSS_SCALE = 0.8;
/** The scanner's severity, when no score is given. */
export const SEVERITY_PROBABILITY: Readonly<Record<string, number>> = {
  CRITICAL: 0.7,
  HIGH: 0.5,
  MEDIUM: 0.25,
  LOW: 0.1,
};
/** A CVE with no usable signal at all. */
export const UNKNOWN_CVE_PROBABILITY = 0.05;
/**
 * A workload whose image was scanned and found to carry no known CVE: what is left is what no scanner
 * sees (an unknown flaw, the application's own bugs). Lower than any CVE's price, so fixing every CVE is an
 * improvement, never a fall-back to the untested table price.
 */
export const SCANNED_CLEAN_PROBABILITY = 0.05;

/** Evidence order: observed before estimated. A CVE is priced by the first signal it carries. */
export const CVE_EVIDENCE_ORDER: readonly WeightBasis[] = [
  'kev',
  'epss',
  'runtime',
  'cvss',
  'severity',
  'heuristic',
];

/**
 * The price of exploiting one CVE, from the first evidence it carries (CVE node properties):
 * `kev: true`, `epss` (the EPSS probability itself), `runtime_observed: true`, `cvss_score`, `severity`.
 */
export function priceCve(props: Record<string, unknown>): HopPrice {
  if (props.kev === true) return { p: KEV_PROBABILITY, basis: 'kev' };
  const epss = props.epss;
  if (typeof epss === 'number' && epss > 0 && epss <= 1) return { p: epss, basis: 'epss' };
  if (props.runtime_observed === true) return { p: RUNTIME_PROBABILITY, basis: 'runtime' };
  const cvss = props.cvss_score;
  if (typeof cvss === 'number' && cvss > 0 && cvss <= 10)
    return { p: (cvss / 10) * CVSS_SCALE, basis: 'cvss' };
  const severity =
    typeof props.severity === 'string' ? SEVERITY_PROBABILITY[props.severity.toUpperCase()] : undefined;
  if (severity !== undefined) return { p: severity, basis: 'severity' };
  return { p: UNKNOWN_CVE_PROBABILITY, basis: 'heuristic' };
}

/** The more exploitable of two prices; on a tie, the one on stronger evidence. */
const OBSERVED: ReadonlySet<WeightBasis> = new Set(['kev', 'epss', 'runtime']);

/**
 * The price of a hop into something a runtime sensor saw attacked (`runtime_observed`): observed evidence
 * beats estimates, so a runtime alert outranks a CVSS or severity estimate, and competes with other
 * observed evidence by probability.
 */
export function withRuntimeEvidence(price: HopPrice | undefined, observed: boolean): HopPrice | undefined {
  if (!observed) return price;
  const runtime: HopPrice = { p: RUNTIME_PROBABILITY, basis: 'runtime' };
  return price && OBSERVED.has(price.basis) ? moreExploitable(price, runtime) : runtime;
}

export function moreExploitable(a: HopPrice | undefined, b: HopPrice): HopPrice {
  if (!a || b.p > a.p) return b;
  if (b.p === a.p && CVE_EVIDENCE_ORDER.indexOf(b.basis) < CVE_EVIDENCE_ORDER.indexOf(a.basis)) return b;
  return a;
}

// ---- Kubernetes: escapes, node credentials, group membership, mounted secrets (issue 14). ----

/**
 * A container escape (T1611) by the rule that allows it (src/rules/k8s/): privileged containers, runtime
 * sockets and writable host mounts are a documented command away from root on the node; attacks that need
 * a crash, a debugger, key material or the kubelet's log endpoint take more. An escape allowed by several
 * rules takes the highest.
 */
export const CONTAINER_ESCAPE_PROBABILITY: Readonly<Record<string, number>> = {
  'privileged-mount': 0.9,
  nsenter: 0.9,
  'runtime-socket': 0.9,
  'host-write': 0.9,
  'module-load': 0.8,
  'kubelet-dirs': 0.8,
  'sys-ptrace': 0.7,
  'core-pattern': 0.7,
  'var-log-symlink': 0.6,
  'host-read': 0.5,
};

export function escapePrice(rules: readonly string[]): number {
  return Math.max(0, ...rules.map((rule) => CONTAINER_ESCAPE_PROBABILITY[rule] ?? 0));
}

/** Root on a node reads the service-account tokens of every pod scheduled there (T1528). */
export const NODE_TOKEN_THEFT_PROBABILITY = 0.9;
/** Membership of a Kubernetes group (system:authenticated, ...) is not an attacker move: it is given. */
export const GROUP_MEMBERSHIP_PROBABILITY = 1;
/** A compromised workload reads the secrets it is given (environment, mounted volume). */
export const WORKLOAD_SECRET_PROBABILITY = 0.9;
