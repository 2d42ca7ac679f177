// The GraphQL schema (SDL). A stable surface: test/graphql/schema.test.ts compares it with the committed
// snapshot and fails on any drift.
import { ANALYSES_SDL } from './analyses.js';
import { GATE_VERDICTS_SDL } from './gate-verdicts.js';
import { NEIGHBOURHOOD_SDL } from './neighbourhood.js';
import { PATH_DETAILS_SDL } from './path-details.js';
import { SEARCH_SDL } from './search.js';

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
      "Only paths of this priority."
      priority: Priority
      "Only paths whose score is at least this (0 to 1)."
      minScore: Float
      "A target node, by id or by name (case-insensitive)."
      target: String
      "Which paths: open (default), resolved, or all."
      state: PathState = OPEN
      """
      Only paths that belong to this application: a node of the route names it in its \`app\` or \`apps\`
      property (AttackPath.applications; the reading a credential scoped to the application sees by).
      """
      application: String
    ): [AttackPath!]!
      @deprecated(
        reason: "Use attackPathsConnection: the same listing and filters as a connection (edges, pageInfo, totalCount)."
      )
    """
    Attack paths as a connection (edges with cursors, pageInfo, totalCount), highest score first (ties by
    id), with the filters of attackPaths. Pages of \`first\` (default 100); pass pageInfo.endCursor as
    \`after\` for the next page. The request limits (GRAPHQL_MAX_COST, GRAPHQL_MAX_PATHS) apply to the page.
    """
    attackPathsConnection(
      "Page size (default 100)."
      first: Int
      "The cursor of the last edge of the previous page (pageInfo.endCursor); the first page without it."
      after: String
      "Only paths of this priority."
      priority: Priority
      "Only paths whose score is at least this (0 to 1)."
      minScore: Float
      "A target node, by id or by name (case-insensitive)."
      target: String
      "Which paths: open (default), resolved, or all."
      state: PathState = OPEN
      """
      Only paths that belong to this application: a node of the route names it in its \`app\` or \`apps\`
      property (AttackPath.applications; the reading a credential scoped to the application sees by).
      """
      application: String
    ): AttackPathConnection!
    "One attack path by id, open or resolved; null when the caller's tenant has no such path."
    attackPath("The path id (attackPaths id, a connection cursor)." id: ID!): AttackPath
    "The caller's security posture in counts of open paths."
    posture: Posture!
    "The graph's size and the analyzer's last pass for the caller's tenant."
    status: Status!
    "Whether every chunk of an ingest batch has reached the graph; null for an unknown id."
    ingestBatch("The batch id an ingest answer (202) returned." id: ID!): IngestBatch
    "Policy invariant violations in the caller's tenant (for example no-internet-exposed-sensitive-asset)."
    violations: [Violation!]!
    "The merge gate's last verdict for a commit (full SHA, or a unique prefix of 7+); null when never gated, and for a credential bound to applications when the commit's repository is none of theirs."
    prVerdict("A full commit SHA or a unique prefix of at least 7 hex digits." sha: String!): PrVerdict
    """
    How well predicted path scores match red-team and BAS verdicts (POST /validations): Brier score, log loss,
    expected calibration error, reliability by score bin, by weight basis and by path structure, and one
    diagnosis. Deliberately not limited to the caller's applications: it judges the model, not an estate.
    """
    calibration: Calibration!
  }

  "One page of attack paths (Query.attackPathsConnection)."
  type AttackPathConnection {
    "The paths of this page, each with its cursor, highest score first."
    edges: [AttackPathEdge!]!
    "Where this page ends and whether another follows."
    pageInfo: PageInfo!
    "Paths matching the filters, over every page."
    totalCount: Int!
  }

  "One attack path of a page, with the cursor that pages after it."
  type AttackPathEdge {
    "Pass as \`after\` to continue after this path (the path id)."
    cursor: String!
    "The attack path."
    node: AttackPath!
  }

  "Paging state of a connection."
  type PageInfo {
    "True when more paths follow this page."
    hasNextPage: Boolean!
    "The cursor of this page's last edge; null for an empty page."
    endCursor: String
  }

  "A suppression (POST /suppressions): the path is not critical while it is active."
  type Suppression {
    "accept-risk, false-positive, mitigating-control or duplicate."
    reason: String!
    "Who answers for the decision (a person or team, as given when suppressing)."
    owner: String!
    "Free text given with the suppression; null when none was."
    note: String
    "How many days the suppression lasts from its creation."
    ttlDays: Int!
    "When it was created (ISO 8601)."
    createdAt: String!
    "The principal that created it (token:<id> or jwt:<sub>)."
    createdBy: String!
    "From this instant the suppression is expired and the path counts again."
    expiresAt: String!
    "Active, or expired (kept for the record)."
    state: SuppressionState!
  }

  "Whether a suppression still applies."
  enum SuppressionState {
    "Before expiresAt: the path is not critical."
    active
    "Past expiresAt: the path counts again."
    expired
  }

  "Calibration of path scores against recorded red-team and BAS verdicts (POST /validations)."
  type Calibration {
    "Tested paths with a captured prediction (the latest verdict of each)."
    scored: Int!
    "Distinct routes that worked and that the service did not report."
    missed: Int!
    "Mean squared difference between predicted score and outcome (confirmed 1, partial 0.5, refuted 0)."
    brierScore: Float
    "Mean negative log-likelihood of the outcomes under the predicted scores; null without verdicts."
    logLoss: Float
    "Expected calibration error over ten equal-width score bins."
    ece: Float
    "Predicted against observed, per tenth of the score range."
    reliability: [ReliabilityBin!]!
    "Calibration per weight basis of the paths' hops."
    byWeightBasis: [BasisCalibration!]!
    "By path structure: direct-access, 1-hop, 2-hops, 3+-hops."
    byStructure: [StructureCalibration!]!
    "The detection axis: verdicts whose attempt the defenders detected (segment detected) and those they did not (undetected); a verdict that does not say is in neither."
    byDetection: [StructureCalibration!]!
    """
    Cross-validated recalibration map: an isotonic fit of outcomes on predicted scores, as steps over the
    predicted range (empty under 4 scored verdicts).
    """
    recalibration: [RecalibrationStep!]!
    "Brier score of the recalibration map's predictions in k-fold cross-validation (up to 5 folds)."
    recalibratedBrier: Float
    "recalibrate-first, structural, detection-axis, per-basis, low-resolution or inverted-order; null when none applies."
    diagnosis: String
    "The diagnosis explained in a sentence, with the figures behind it; empty when there is none."
    diagnosisDetail: String!
    "Precision over the tested subset (same as GET /validations metrics)."
    precision: Float
    "Recall over the tested subset: reported working routes over all working routes (missed included)."
    recall: Float
  }

  "Predicted scores from \`from\` to \`to\` are recalibrated to \`calibrated\` (the observed rate of \`count\` verdicts)."
  type RecalibrationStep {
    "Lowest predicted score of the step (inclusive)."
    from: Float!
    "Highest predicted score of the step."
    to: Float!
    "The score the step maps its predictions to."
    calibrated: Float!
    "Verdicts the step was fitted on."
    count: Int!
  }

  "One tenth of the score range: how often paths predicted there were confirmed."
  type ReliabilityBin {
    "Lower edge of the bin (inclusive)."
    from: Float!
    "Upper edge of the bin."
    to: Float!
    "Scored verdicts in the bin."
    count: Int!
    "Mean predicted score in the bin; null when it is empty."
    meanPredicted: Float
    "Mean outcome (confirmed 1, partial 0.5, refuted 0); null when it is empty."
    observedRate: Float
    "observedRate - meanPredicted."
    gap: Float
    "Brier score within the bin; null when it is empty."
    brier: Float
  }

  "Calibration of the paths whose hops are priced from one weight basis."
  type BasisCalibration {
    "The weight basis."
    basis: WeightBasis!
    "Scored verdicts on paths with a hop of this basis."
    count: Int!
    "Mean predicted score; null without verdicts."
    meanPredicted: Float
    "Mean outcome; null without verdicts."
    observedRate: Float
    "observedRate - meanPredicted."
    gap: Float
    "Brier score of these verdicts; null without verdicts."
    brier: Float
  }

  "Calibration of the paths of one structure (by their number of hops)."
  type StructureCalibration {
    "direct-access, 1-hop, 2-hops or 3+-hops."
    segment: String!
    "Scored verdicts on paths of this structure."
    count: Int!
    "Mean predicted score; null without verdicts."
    meanPredicted: Float
    "Mean outcome; null without verdicts."
    observedRate: Float
    "observedRate - meanPredicted."
    gap: Float
    "Brier score of these verdicts; null without verdicts."
    brier: Float
  }

  "A node breaking a policy invariant."
  type Violation {
    "Stable: <invariant>:<node id>."
    id: ID!
    "The invariant broken, for example no-internet-exposed-sensitive-asset."
    invariant: String!
    "critical, high, medium or low."
    severity: String!
    "The node that breaks it."
    node: PathNode!
    "What about the node breaks the invariant, in a sentence."
    detail: String!
  }

  "The merge gate's answer for a change."
  enum GateVerdict {
    "The change opens or worsens no route to a crown jewel."
    clean
    "The change opens or worsens a route (or exposes a crown jewel itself)."
    blocked
    "The gate could not join the report to the estate; nothing was judged."
    unknown
  }

  "A merge gate decision for one commit (POST /gate/impact with sha)."
  type PrVerdict {
    "The commit's full SHA."
    sha: String!
    "clean, blocked or unknown."
    verdict: GateVerdict!
    "Why, in a sentence."
    reason: String!
    "report (routes the change opens or makes likelier) or commit (routes through assets stamped with it)."
    attribution: String!
    "Routes the change opens."
    opened: Int!
    "Routes the change makes likelier."
    worsened: Int!
    "Crown jewels the commit's reports expose to the internet themselves (each blocks)."
    exposed: Int!
    "Routes open before the change and not made worse by it."
    preexisting: Int!
    "The repository (owner/name) when the report named one."
    slug: String
    "The pull request number when the report named one."
    pr: Int
    "When the verdict was given (ISO 8601)."
    decidedAt: String!
  }

  "Path priority from its score (PRIORITY_P1_SCORE, PRIORITY_P2_SCORE); direct access is always P1."
  enum Priority {
    "Score at or above PRIORITY_P1_SCORE (0.5 by default), or a crown jewel open to anyone."
    P1
    "Score at or above PRIORITY_P2_SCORE (0.1 by default)."
    P2
    "Every other path."
    P3
  }

  "Which paths a listing holds."
  enum PathState {
    "Paths with a route now."
    OPEN
    "Paths whose route is gone (kept with resolvedAt)."
    RESOLVED
    "Open and resolved alike (as a filter only; a path is OPEN or RESOLVED)."
    ALL
  }

  "Where a hop's probability came from, strongest evidence first (docs/model.md)."
  enum WeightBasis {
    "A vulnerability in CISA's Known Exploited Vulnerabilities catalog."
    kev
    "An EPSS exploit probability."
    epss
    "Confirmed by a runtime sensor (for example Falco)."
    runtime
    "A CVSS base score."
    cvss
    "A scanner's severity only."
    severity
    "The edge type's default (docs/model.md table)."
    heuristic
  }

  "A route from an internet-exposed node to a crown jewel, tracked across analyzer passes."
  type AttackPath {
    "Stable per (starting node, target) pair."
    id: ID!
    "Baseline score: the product of the per-hop probabilities (1 for a direct-access path), 0 to 1."
    score: Float!
    "Natural log of the score, summed hop by hop: exact even where a long, weak route's score underflows to 0."
    logScore: Float!
    "P1, P2 or P3 from the score."
    priority: Priority!
    "The target is open to anyone as it stands: no steps, score 1, P1."
    directAccess: Boolean!
    "OPEN or RESOLVED."
    state: PathState!
    "An open P1 path that is not suppressed (the one definition of critical)."
    critical: Boolean!
    "Its suppression, active or expired; null when it was never suppressed (or the entry was deleted)."
    suppression: Suppression
    "When the path was first found (ISO 8601), kept across resolutions and restarts."
    firstSeen: String!
    "Seconds the path has been open in its current open period (for a resolved path: how long it was open)."
    openForSeconds: Int!
    "How many times the path came back after being resolved."
    reopens: Int!
    "When the route went away (ISO 8601); null while open."
    resolvedAt: String
    "The internet-exposed node the route starts from."
    start: PathNode!
    "The crown jewel the route reaches."
    target: PathNode!
    "The nodes along the route, from the starting node to the target."
    nodes: [PathNode!]!
    "The hops along the route, in attack order."
    steps: [PathStep!]!
    """
    The applications the path belongs to, sorted: those its route's nodes name in their \`app\` or \`apps\`
    property. A credential scoped to applications sees the path exactly when one of them is here; empty
    when no node of the route names one.
    """
    applications: [String!]!
  }

  "A node of the graph as a path shows it."
  type PathNode {
    "<Label>:<16 hex>, stable for the node's name."
    id: ID!
    "The node's name as reported (an image reference, a resource address, an ARN…)."
    name: String!
    "The node label (LoadBalancer, Pod, Image, Database…)."
    label: String!
  }

  "One hop of a route."
  type PathStep {
    "The node the hop leaves."
    from: ID!
    "The node the hop reaches."
    to: ID!
    "The edge type (ROUTES_TO, RUNS, CAN_ESCALATE_TO…)."
    type: String!
    "The chance an attacker holding \`from\` takes the hop, 0 to 1."
    probability: Float!
    "Where the probability came from."
    weightBasis: WeightBasis!
  }

  "Counts of the caller's open paths (an apps-bound credential: its applications' paths)."
  type Posture {
    "Open critical paths (P1, not suppressed)."
    criticalPaths: Int!
    "Open P1 paths left out of criticalPaths because they are suppressed."
    suppressedCriticalPaths: Int!
    "Open paths with a hop priced from a known-exploited vulnerability."
    kevOnPaths: Int!
    "Open paths with a hop confirmed by a runtime sensor."
    runtimeConfirmed: Int!
    "All open paths."
    openPaths: Int!
  }

  "The tenant's graph and analyzer state."
  type Status {
    "Nodes aged out by GRAPH_TTL so far."
    prunedNodes: Int!
    "Edges aged out by GRAPH_TTL so far."
    prunedEdges: Int!
    "When the last prune ran (ISO 8601); null before the first."
    lastPrunedAt: String
    "The graph's size."
    graph: GraphStatus!
    "The analyzer's last pass."
    analyzer: AnalyzerStatus!
    "The reduced modes the engine serves in now (GET /healthz answers 503 with the same reasons); empty when whole."
    reduced: [ReducedCondition!]!
  }

  "A part of the engine serving in a reduced mode (docs/operations.md, 'Reduced modes')."
  type ReducedCondition {
    "graph-store, bus or journal"
    part: String!
    "Why, in words an operator acts on."
    reason: String!
    "When the condition began (ISO 8601)."
    since: String!
  }

  "The graph's size (an apps-bound credential: its applications' part)."
  type GraphStatus {
    "Nodes in the graph."
    nodes: Int!
    "Edges in the graph."
    edges: Int!
    "Edges waiting for an endpoint no report has named yet (parked, kept for PARKED_EDGE_TTL)."
    pendingEdges: Int!
  }

  "What the analyzer's last pass did."
  type AnalyzerStatus {
    "Passes since the start."
    passes: Int!
    "When the last pass ended (ISO 8601); null before the first."
    lastPassAt: String
    "The last pass's duration in seconds; null before the first."
    lastPassSeconds: Float
    "Seconds the last pass spent compiling or patching the graph."
    compileSeconds: Float
    "Seconds the last pass spent searching paths."
    pathfindingSeconds: Float
    "Starting nodes (internet-exposed) in the last pass."
    starts: Int
    "Targets (crown jewels) in the last pass."
    targets: Int
    "False while the graph has changed since the last pass."
    upToDate: Boolean!
  }

  "An ingest batch: one report, split into chunks on the journal."
  type IngestBatch {
    "The id the ingest answer (202) returned."
    id: ID!
    "The ingest source (trivy, k8s, cloudnet…)."
    source: String!
    "True once every chunk has reached the graph."
    complete: Boolean!
    "Chunks the report was split into."
    chunks: Int!
    "Chunks the graph writer has applied."
    chunksApplied: Int!
    "Nodes the report carried."
    nodes: Int!
    "Edges the report carried."
    edges: Int!
    "When the report was accepted (ISO 8601)."
    receivedAt: String!
    "When its last chunk was applied (ISO 8601); null until then."
    completedAt: String
  }
  ${ANALYSES_SDL}
  ${PATH_DETAILS_SDL}
  ${GATE_VERDICTS_SDL}
  ${NEIGHBOURHOOD_SDL}
  ${SEARCH_SDL}
`;
