// The analyses' part of the GraphQL schema (issue 18): their Query fields, the uncertainty and confidence
// fields they add to AttackPath, and their types. Kept apart from the resolvers (../analyses.ts) because it is
// the stable surface: app/graphql/schema.ts merges it into SCHEMA_SDL, so the snapshot covers it.

export const ANALYSES_SDL = /* GraphQL */ `
  extend type Query {
    """
    Monte Carlo risk over the graph: each hop present with its probability, reproducible per seed. Heavy: at
    most 20 heavy fields (riskSimulation, whatIf, remediationPlan, kShortestPaths) per request, the rest
    answering with an error; 429 when the service's analysis slots and queue are full; 503 past
    ANALYSIS_DEADLINE. One request asks for at most GRAPHQL_MAX_ITERATIONS (1,000,000) iterations in all.
    """
    riskSimulation(
      "Worlds to simulate, 1 to 1,000,000."
      iterations: Int = 1000
      "Seed of the random worlds: the same seed on the same graph gives the same answer."
      seed: Int = 1
    ): RiskSimulation
    """
    The named hops removed (or repriced) on a copy of the estate, the paths searched again and the risk
    simulated before and after on the same worlds. Heavy.
    """
    whatIf(
      "The hops to remove or reprice, at most GRAPHQL_MAX_LIST_ITEMS (100)."
      cuts: [EdgeCut!]!
      "Worlds for the risk before and after, 1 to 1,000,000."
      iterations: Int = 1000
      "Seed of the random worlds (before and after share them)."
      seed: Int = 1
    ): WhatIfResult
    """
    Choke points ranked by how much open critical risk one change removes, each verified by a what-if before
    it is offered; title keeps the items whose title contains it (case-insensitive). Heavy.
    """
    remediationPlan(
      "Keep only items whose title contains this (case-insensitive)."
      title: String
    ): [RemediationPlanItem!]
    "The k (1 to 100) best loopless routes to a target (by id or name) from any starting node. Heavy."
    kShortestPaths(
      "A crown jewel, by node id or name (case-insensitive)."
      target: String!
      "How many routes, 1 to 100."
      k: Int = 5
    ): [RankedRoute!]
    "Open and resolved counts, time to resolve, and the posture trend: a point whenever a pass changed the critical or open paths, their suppressions or the risk (HISTORY_PATH; the last 5,000)."
    history: History!
  }

  extend type AttackPath {
    "Fréchet ceiling: the weakest hop's probability, reached when one shared cause decides every hop."
    scoreUpperBound: Float!
    "Hops that share their edge type and weight basis with another hop of the route."
    correlatedHops: Int!
    "90 % credible interval of the route's success, from per-basis Beta priors (docs/model.md): lower end."
    scoreCiLow: Float!
    "Upper end of the 90 % credible interval."
    scoreCiHigh: Float!
    "Posterior mean of the route's success under the per-basis Beta priors."
    posteriorMean: Float!
    "The attacker-profile mixture (ATTACKER_PROFILE_PRIORS): score <= mixtureScore <= scoreUpperBound."
    mixtureScore: Float!
    "The route's success for each attacker profile, with the profile's weight."
    profileScores: [ProfileScore!]!
    "How far the route rests on facts rather than inference, 0 to 1: the product of its hops' identity-join confidence times its weakest hop's evidence weight (docs/model.md, 'Confidence'). Not the score."
    confidence: Float!
    "confidence as a word: high (from 0.8), medium (from 0.5) or low."
    confidenceLabel: String!
  }

  "The attacker profiles of the mixture (docs/model.md)."
  enum AttackerProfile {
    "Opportunistic, automated attacks: hops mostly independent (correlation 0.1)."
    commodity
    "Organised crime: skill shared across hops in part (correlation 0.4)."
    criminal
    "A capable, persistent attacker: one skill decides most hops (correlation 0.8)."
    apt
  }

  "A route's success for one attacker profile."
  type ProfileScore {
    "The profile."
    profile: AttackerProfile!
    "The profile's prior weight (normalized)."
    weight: Float!
    "The route's success for this profile, 0 to 1."
    score: Float!
  }

  "The risk of the whole estate, simulated over random worlds."
  type RiskSimulation {
    "Worlds simulated."
    iterations: Int!
    "The seed used."
    seed: Int!
    "Share of worlds in which at least one crown jewel is compromised."
    anyCompromiseProbability: Float!
    "95 % Wilson interval of anyCompromiseProbability: lower end."
    anyCiLow: Float!
    "Upper end of the 95 % Wilson interval."
    anyCiHigh: Float!
    "Expected number of crown jewels compromised."
    expectedCompromised: Float!
    "anyCompromiseProbability under the attacker-profile mixture."
    mixtureCompromiseProbability: Float!
    "The risk per attacker profile."
    profileCompromise: [ProfileCompromise!]!
    "The risk per crown jewel."
    crownJewels: [CrownJewelRisk!]!
  }

  "The estate's risk for one attacker profile."
  type ProfileCompromise {
    "The profile."
    profile: AttackerProfile!
    "The profile's prior weight (normalized)."
    weight: Float!
    "How surely one skill decides every hop for this profile (0 to 1)."
    correlation: Float!
    "Share of worlds with at least one crown jewel compromised, for this profile."
    anyCompromiseProbability: Float!
    "Expected crown jewels compromised, for this profile."
    expectedCompromised: Float!
  }

  "One crown jewel's simulated risk."
  type CrownJewelRisk {
    "The crown jewel."
    node: PathNode!
    "Its name (as node.name)."
    name: String!
    "Share of worlds in which it is compromised."
    compromiseProbability: Float!
    "95 % Wilson interval: lower end."
    ciLow: Float!
    "95 % Wilson interval: upper end."
    ciHigh: Float!
    "compromiseProbability under the attacker-profile mixture."
    mixtureCompromiseProbability: Float!
  }

  "A hop to take away (or reprice): endpoints by id or name (case-insensitive); every type when none is given."
  input EdgeCut {
    "The hop's source node, by id or name."
    from: String!
    "The hop's target node, by id or name."
    to: String!
    "Only hops of this edge type (ROUTES_TO, RUNS…); every type between the two nodes when absent."
    type: String
    "Reprice the hop to this probability instead of removing it."
    probability: Float
  }

  "The estate's risk on one side of a what-if."
  type RiskSummary {
    "Share of worlds with at least one crown jewel compromised."
    anyCompromiseProbability: Float!
    "Expected crown jewels compromised."
    expectedCompromised: Float!
    "95 % Wilson interval of anyCompromiseProbability: lower end."
    ciLow: Float!
    "95 % Wilson interval of anyCompromiseProbability: upper end."
    ciHigh: Float!
  }

  "What the cuts of a what-if change."
  type WhatIfResult {
    "Hops taken away."
    removedEdges: Int!
    "Hops given another probability."
    repricedEdges: Int!
    "anyCompromiseProbability before minus after."
    riskReduction: Float!
    "Expected crown jewels compromised, before minus after."
    expectedReduction: Float!
    "The risk before the cuts."
    beforeRisk: RiskSummary!
    "The risk after the cuts."
    afterRisk: RiskSummary!
    "Paths that had a route and have none after the cuts."
    closedPaths: [WhatIfPath!]!
    "Paths that still have a route (perhaps another, perhaps weaker)."
    remainingPaths: [WhatIfPath!]!
    "Pairs that had no route and have one after the change (a hop repriced up from 0); scoreBefore is 0."
    openedPaths: [WhatIfPath!]!
  }

  "One (start, target) pair in a what-if."
  type WhatIfPath {
    "The attack path id of the (start, target) pair."
    id: ID!
    "The starting node."
    start: PathNode!
    "The crown jewel."
    target: PathNode!
    "The best route's score before the cuts."
    scoreBefore: Float!
    "null when no route is left."
    scoreAfter: Float
    "The route after the cuts, or the closed route as it was."
    nodes: [PathNode!]!
  }

  "One change of the remediation plan, ranked by the open critical risk it removes."
  type RemediationPlanItem {
    "1 for the change that removes the most."
    rank: Int!
    "The generated fix's title when there is one, else the change in words."
    title: String!
    "cut-edge or block-public-access."
    kind: String!
    "Share of the open critical risk removed by this item and the ones ranked before it, in percent."
    coveragePct: Float!
    "The what-if that verified the item."
    verification: PlanVerification!
    "The hop this change cuts; null for a public access block."
    cut: PlanCut
    "The target whose public access is blocked; null for a cut."
    node: PathNode
    "The generated fix (POST /remediation/pr opens it as a pull request), where one exists."
    fix: PlanFix
    "Why no fix is generated for this item: a value it would write fails its grammar (a package name, a version, a role or bucket name); POST /remediation/pr answers 422 with the same reason. Null otherwise."
    fixRefused: String
    "The critical attack paths this item eliminates."
    pathIds: [ID!]!
  }

  "The what-if run on a plan item before it is offered."
  type PlanVerification {
    "True when the what-if confirmed the paths close."
    verified: Boolean!
    "Critical paths the change closes."
    pathsEliminated: Int!
    "Open critical risk the change removes, in percent."
    riskReductionPct: Float!
    "Expected crown jewels compromised, before minus after."
    expectedReduction: Float!
  }

  "A hop a plan item cuts."
  type PlanCut {
    "The hop's source."
    from: PathNode!
    "The hop's target."
    to: PathNode!
    "The edge type."
    type: String!
    "The hop's probability today."
    probability: Float!
  }

  "A generated fix for a plan item."
  type PlanFix {
    "The fix id (POST /remediation/pr takes it)."
    id: ID!
    "The critical path the fix was generated for (POST /remediation/pr takes it with the fix id)."
    pathId: ID!
    "upgrade-dependency, block-public-access, bump-base-image, harden-workload or deny-escalation."
    kind: String!
    "The fix's title, as its pull request would carry it."
    title: String!
    "The repository (owner/name) the fix applies to."
    repo: String!
    "The branch its pull request would use."
    branch: String!
  }

  "One of the k best routes to a target."
  type RankedRoute {
    "1 for the best route."
    rank: Int!
    "The attack path id of the route's (start, target) pair."
    pathId: ID!
    "The product of the hops' probabilities, 0 to 1."
    score: Float!
    "Natural log of the score (exact where the score underflows)."
    logScore: Float!
    "The nodes along the route."
    nodes: [PathNode!]!
    "The hops along the route."
    steps: [PathStep!]!
  }

  "How the tenant's paths have come and gone."
  type History {
    "Paths open now."
    openPaths: Int!
    "Paths resolved and not reopened."
    resolvedPaths: Int!
    "Mean seconds from first_seen to resolution over resolved paths; null when none has resolved."
    mttrSeconds: Float
    "When the longest-open path opened; null when none is open."
    oldestOpenSince: String
    "The posture history (HISTORY_PATH), oldest first: a point whenever a pass changed the critical or open paths, their suppressions or the risk (the last 5,000)."
    trend: [TrendPoint!]!
  }

  "The tenant's posture after an analyzer pass that changed it."
  type TrendPoint {
    "When the point was recorded (ISO 8601)."
    at: String!
    "Critical paths after the pass."
    criticalPaths: Int!
    "100 × (1 − Π (1 − score)) over the open paths."
    riskPct: Float!
  }
`;
