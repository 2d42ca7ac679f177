// The closed vocabulary of the graph: node labels and edge types, spelled as the spec spells them.
// Adding a value is a minor version; removing one is major (docs/versioning in CHANGELOG.md).

/** Every node label the graph may hold. `Service` is a running workload (DECISIONS.md). */
export const NODE_LABELS = [
  'VirtualMachine',
  'Service',
  'VPC',
  'LoadBalancer',
  'Database',
  'Bucket',
  'Repository',
  'Package',
  'Library',
  'Image',
  'User',
  'IAM_Role',
  'ServiceAccount',
  'CVE',
  'Weakness',
  'Misconfiguration',
  'Secret',
  // Synthetic node drawn by the SSO collector.
  'IdentityProvider',
] as const;

/** Every edge type the graph may hold. AUTHENTICATES is drawn by the SSO collector. */
export const EDGE_TYPES = [
  'HOSTS',
  'CONNECTS_TO',
  'EXPOSES',
  'ROUTES_TO',
  'DEPENDS_ON',
  'COMPILED_INTO',
  'BUILT_FROM',
  'ASSUMES',
  'HAS_PERMISSION',
  'CAN_ESCALATE_TO',
  'AFFECTS',
  'EXPLOITS',
  'MITIGATES',
  'AUTHENTICATES',
] as const;

export type NodeLabel = (typeof NODE_LABELS)[number];
export type EdgeType = (typeof EDGE_TYPES)[number];

const labelSet: ReadonlySet<string> = new Set(NODE_LABELS);
const edgeTypeSet: ReadonlySet<string> = new Set(EDGE_TYPES);

export function isNodeLabel(value: unknown): value is NodeLabel {
  return typeof value === 'string' && labelSet.has(value);
}

export function isEdgeType(value: unknown): value is EdgeType {
  return typeof value === 'string' && edgeTypeSet.has(value);
}

/** Event kinds on the bus. */
export const EVENT_KINDS = ['asset', 'finding', 'relationship', 'runtime'] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

/** How a hop's probability was obtained: observed evidence first, then estimates. */
export const WEIGHT_BASES = ['kev', 'epss', 'runtime', 'cvss', 'severity', 'heuristic'] as const;
export type WeightBasis = (typeof WEIGHT_BASES)[number];

/** Node properties the engine itself reads or writes, spelled once. */
export const PROP = {
  internetExposed: 'internet_exposed',
  publicAccess: 'public_access',
  crownJewel: 'crown_jewel',
  crownJewelBasis: 'crown_jewel_basis',
  credentialExposed: 'credential_exposed',
  lastSeen: 'last_seen',
  secretsScrubbed: 'secrets_scrubbed',
  /** image (or package) signature verified; absent: not assessed (spec) */
  signed: 'signed',
  /** the state below, with `signature_problem` saying why a signature did not verify */
  signature: 'signature',
  signatureProblem: 'signature_problem',
} as const;

/**
 * What is known of a subject's signature (node property `signature`, docs/identity.md "Signatures"):
 * `signed` a signature verified (and `signed: true`), `signature_unverified` a signature is present but
 * did not verify (`signed: false`: never `signed`), `unsigned` none is present (`signed: false`).
 */
export const SIGNATURE_STATES = ['signed', 'signature_unverified', 'unsigned'] as const;
export type SignatureState = (typeof SIGNATURE_STATES)[number];
