// The GraphQL schema (SDL). A stable surface: test/graphql/schema.test.ts compares it with the committed
// snapshot and fails on any drift.
import { ANALYSES_SDL } from './analyses.js';
import { PATH_DETAILS_SDL } from './path-details.js';

export const SCHEMA_SDL = /* GraphQL */ `
  """
  pathgate GraphQL API. The schema is a stable surface (semver): test/graphql/schema.test.ts fails on any
  drift from test/graphql/schema.snapshot.graphql, and CHANGELOG.md lists every change.
  """
  type Query {
    """
    Attack paths from internet-exposed nodes to crown jewels, highest score first (ties by id).
    Open paths by default; \`state\` selects resolved ones or all. One request is refused (400 query-limit)
    when its answer would pass GRAPHQL_MAX_COST values or GRAPHQL_MAX_PATHS paths: page with \`first\`.
    """
    attackPaths(
      "At most this many paths (default: all, within the request limits)."
      first: Int
      "Cursor: the id of the last path of the previous page."
      after: ID
      priority: Priority
      minScore: Float
      "A target node, by id or by name (case-insensitive)."
      target: String
      state: PathState = OPEN
    ): [AttackPath!]!
    "One attack path by id, open or resolved."
    attackPath(id: ID!): AttackPath
    posture: Posture!
    status: Status!
    "Whether every chunk of an ingest batch has reached the graph; null for an unknown id."
    ingestBatch(id: ID!): IngestBatch
    "Policy invariant violations in the caller's tenant (for example no-internet-exposed-sensitive-asset)."
    violations: [Violation!]!
    "The merge gate's last verdict for a commit (full SHA, or a unique prefix of 7+); null when never gated."
    prVerdict(sha: String!): PrVerdict
    """
    How well predicted path scores match red-team and BAS verdicts (POST /validations): Brier score, log loss,
    expected calibration error, reliability by score bin, by weight basis and by path structure, and one
    diagnosis. Deliberately not limited to the caller's applications: it judges the model, not an estate.
    """
    calibration: Calibration!
  }

  "A suppression (POST /suppressions): the path is not critical while it is active."
  type Suppression {
    "accept-risk, false-positive, mitigating-control or duplicate."
    reason: String!
    owner: String!
    note: String
    ttlDays: Int!
    createdAt: String!
    createdBy: String!
    "From this instant the suppression is expired and the path counts again."
    expiresAt: String!
    state: SuppressionState!
  }

  enum SuppressionState {
    active
    expired
  }

  type Calibration {
    "Tested paths with a captured prediction (the latest verdict of each)."
    scored: Int!
    "Distinct routes that worked and that the service did not report."
    missed: Int!
    "Mean squared difference between predicted score and outcome (confirmed 1, partial 0.5, refuted 0)."
    brierScore: Float
    logLoss: Float
    "Expected calibration error over ten equal-width score bins."
    ece: Float
    reliability: [ReliabilityBin!]!
    byWeightBasis: [BasisCalibration!]!
    "By path structure: direct-access, 1-hop, 2-hops, 3+-hops."
    byStructure: [StructureCalibration!]!
    """
    Cross-validated recalibration map: an isotonic fit of outcomes on predicted scores, as steps over the
    predicted range (empty under 4 scored verdicts).
    """
    recalibration: [RecalibrationStep!]!
    "Brier score of the recalibration map's predictions in k-fold cross-validation (up to 5 folds)."
    recalibratedBrier: Float
    "recalibrate-first, structural, detection-axis, per-basis, low-resolution or inverted-order; null when none applies."
    diagnosis: String
    diagnosisDetail: String!
    "Precision over the tested subset (same as GET /validations metrics)."
    precision: Float
    recall: Float
  }

  "Predicted scores from \`from\` to \`to\` are recalibrated to \`calibrated\` (the observed rate of \`count\` verdicts)."
  type RecalibrationStep {
    from: Float!
    to: Float!
    calibrated: Float!
    count: Int!
  }

  type ReliabilityBin {
    from: Float!
    to: Float!
    count: Int!
    meanPredicted: Float
    observedRate: Float
    "observedRate - meanPredicted."
    gap: Float
    brier: Float
  }

  type BasisCalibration {
    basis: WeightBasis!
    count: Int!
    meanPredicted: Float
    observedRate: Float
    gap: Float
    brier: Float
  }

  type StructureCalibration {
    segment: String!
    count: Int!
    meanPredicted: Float
    observedRate: Float
    gap: Float
    brier: Float
  }

  "A node breaking a policy invariant."
  type Violation {
    "Stable: <invariant>:<node id>."
    id: ID!
    invariant: String!
    severity: String!
    node: PathNode!
    detail: String!
  }

  enum GateVerdict {
    clean
    blocked
    unknown
  }

  "A merge gate decision for one commit (POST /gate/impact with sha)."
  type PrVerdict {
    sha: String!
    verdict: GateVerdict!
    reason: String!
    "report (routes the change opens or makes likelier) or commit (routes through assets stamped with it)."
    attribution: String!
    opened: Int!
    worsened: Int!
    "Crown jewels the commit's reports expose to the internet themselves (each blocks)."
    exposed: Int!
    preexisting: Int!
    slug: String
    pr: Int
    decidedAt: String!
  }

  enum Priority {
    P1
    P2
    P3
  }

  enum PathState {
    OPEN
    RESOLVED
    ALL
  }

  enum WeightBasis {
    kev
    epss
    runtime
    cvss
    severity
    heuristic
  }

  type AttackPath {
    "Stable per (starting node, target) pair."
    id: ID!
    "Baseline score: the product of the per-hop probabilities (1 for a direct-access path)."
    score: Float!
    "Natural log of the score, summed hop by hop: exact even where a long, weak route's score underflows to 0."
    logScore: Float!
    priority: Priority!
    "The target is open to anyone as it stands: no steps, score 1, P1."
    directAccess: Boolean!
    state: PathState!
    "An open P1 path that is not suppressed (the one definition of critical)."
    critical: Boolean!
    "Its suppression, active or expired; null when it was never suppressed (or the entry was deleted)."
    suppression: Suppression
    firstSeen: String!
    "Seconds the path has been open in its current open period (for a resolved path: how long it was open)."
    openForSeconds: Int!
    "How many times the path came back after being resolved."
    reopens: Int!
    resolvedAt: String
    start: PathNode!
    target: PathNode!
    "The nodes along the route, from the starting node to the target."
    nodes: [PathNode!]!
    "The hops along the route, in attack order."
    steps: [PathStep!]!
  }

  type PathNode {
    id: ID!
    name: String!
    label: String!
  }

  type PathStep {
    from: ID!
    to: ID!
    type: String!
    probability: Float!
    weightBasis: WeightBasis!
  }

  type Posture {
    "Open critical paths (P1, not suppressed)."
    criticalPaths: Int!
    "Open P1 paths left out of criticalPaths because they are suppressed."
    suppressedCriticalPaths: Int!
    "Open paths with a hop priced from a known-exploited vulnerability."
    kevOnPaths: Int!
    "Open paths with a hop confirmed by a runtime sensor."
    runtimeConfirmed: Int!
    openPaths: Int!
  }

  type Status {
    prunedNodes: Int!
    prunedEdges: Int!
    lastPrunedAt: String
    graph: GraphStatus!
    analyzer: AnalyzerStatus!
  }

  type GraphStatus {
    nodes: Int!
    edges: Int!
    pendingEdges: Int!
  }

  type AnalyzerStatus {
    passes: Int!
    lastPassAt: String
    lastPassSeconds: Float
    compileSeconds: Float
    pathfindingSeconds: Float
    starts: Int
    targets: Int
    "False while the graph has changed since the last pass."
    upToDate: Boolean!
  }

  type IngestBatch {
    id: ID!
    source: String!
    complete: Boolean!
    chunks: Int!
    chunksApplied: Int!
    nodes: Int!
    edges: Int!
    receivedAt: String!
    completedAt: String
  }
  ${ANALYSES_SDL}
  ${PATH_DETAILS_SDL}
`;
