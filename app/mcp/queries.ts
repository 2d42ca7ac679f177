// The GraphQL operations the MCP tools run against the public schema (app/graphql/schema.ts), with the
// shapes they answer. Only public fields: what a tool shows, the API also shows the same caller.

export interface NodeRef {
  id: string;
  name: string;
  label: string;
}

export interface PathSummary {
  id: string;
  score: number;
  priority: 'P1' | 'P2' | 'P3';
  critical: boolean;
  directAccess: boolean;
  state: 'OPEN' | 'RESOLVED';
  firstSeen: string;
  start: NodeRef;
  target: NodeRef;
  nodes: NodeRef[];
}

const SUMMARY_FIELDS = `id score priority critical directAccess state firstSeen
  start { id name label } target { id name label } nodes { id name label }`;

export const LIST_PATHS = /* GraphQL */ `
  query McpListPaths($first: Int, $after: String, $priority: Priority, $minScore: Float, $target: String, $state: PathState) {
    attackPathsConnection(first: $first, after: $after, priority: $priority, minScore: $minScore, target: $target, state: $state) {
      totalCount
      pageInfo { hasNextPage endCursor }
      edges { node { ${SUMMARY_FIELDS} } }
    }
  }
`;

export interface ListPathsAnswer {
  attackPathsConnection: {
    totalCount: number;
    pageInfo: { hasNextPage: boolean; endCursor: string | null };
    edges: { node: PathSummary }[];
  };
}

export interface HopEvidence {
  kind: string;
  name: string;
  cvss: number | null;
  epss: number | null;
  kev: boolean | null;
  severity: string | null;
  detail: string | null;
}

export interface PathDetail extends PathSummary {
  logScore: number;
  scoreCiLow: number;
  scoreCiHigh: number;
  posteriorMean: number;
  mixtureScore: number;
  scoreUpperBound: number;
  correlatedHops: number;
  confidence: number;
  confidenceLabel: string;
  openForSeconds: number;
  reopens: number;
  resolvedAt: string | null;
  suppression: { reason: string; owner: string; expiresAt: string; state: string } | null;
  steps: {
    from: string;
    to: string;
    type: string;
    probability: number;
    weightBasis: string;
    evidence: HopEvidence[];
  }[];
  fixes: { id: string; kind: string; title: string; explanation: string; repo: string; branch: string }[];
}

export const GET_PATH = /* GraphQL */ `
  query McpGetPath($id: ID!) {
    attackPath(id: $id) {
      ${SUMMARY_FIELDS}
      logScore scoreCiLow scoreCiHigh posteriorMean mixtureScore scoreUpperBound correlatedHops
      confidence confidenceLabel openForSeconds reopens resolvedAt
      suppression { reason owner expiresAt state }
      steps {
        from to type probability weightBasis
        evidence { kind name cvss epss kev severity detail }
      }
      fixes { id kind title explanation repo branch }
    }
  }
`;

export interface GetPathAnswer {
  attackPath: PathDetail | null;
}

export const ALTERNATIVES = /* GraphQL */ `
  query McpAlternatives($target: String!, $k: Int!) {
    kShortestPaths(target: $target, k: $k) {
      rank
      pathId
      score
      nodes {
        id
        name
        label
      }
      steps {
        from
        to
        type
        probability
        weightBasis
      }
    }
  }
`;

export interface RankedRoute {
  rank: number;
  pathId: string;
  score: number;
  nodes: NodeRef[];
  steps: { from: string; to: string; type: string; probability: number; weightBasis: string }[];
}

export interface AlternativesAnswer {
  kShortestPaths: RankedRoute[] | null;
}

export const POSTURE = /* GraphQL */ `
  query McpPosture {
    posture {
      criticalPaths
      suppressedCriticalPaths
      kevOnPaths
      runtimeConfirmed
      openPaths
    }
  }
`;

export interface PostureAnswer {
  posture: {
    criticalPaths: number;
    suppressedCriticalPaths: number;
    kevOnPaths: number;
    runtimeConfirmed: number;
    openPaths: number;
  };
}

export const GATE_VERDICT = /* GraphQL */ `
  query McpGateVerdict($sha: String!) {
    prVerdict(sha: $sha) {
      sha
      verdict
      reason
      attribution
      opened
      worsened
      exposed
      preexisting
      slug
      pr
      decidedAt
    }
  }
`;

export interface GateVerdictAnswer {
  prVerdict: {
    sha: string;
    verdict: 'clean' | 'blocked' | 'unknown';
    reason: string;
    attribution: string;
    opened: number;
    worsened: number;
    exposed: number;
    preexisting: number;
    slug: string | null;
    pr: number | null;
    decidedAt: string;
  } | null;
}

const WHAT_IF_PATH = 'id scoreBefore scoreAfter start { id name label } target { id name label }';
const RISK = 'anyCompromiseProbability expectedCompromised ciLow ciHigh';

export const WHAT_IF = /* GraphQL */ `
  query McpWhatIf($cuts: [EdgeCut!]!, $iterations: Int, $seed: Int) {
    whatIf(cuts: $cuts, iterations: $iterations, seed: $seed) {
      removedEdges repricedEdges riskReduction expectedReduction
      beforeRisk { ${RISK} }
      afterRisk { ${RISK} }
      closedPaths { ${WHAT_IF_PATH} }
      remainingPaths { ${WHAT_IF_PATH} }
      openedPaths { ${WHAT_IF_PATH} }
    }
  }
`;

export interface WhatIfPath {
  id: string;
  scoreBefore: number;
  scoreAfter: number | null;
  start: NodeRef;
  target: NodeRef;
}

interface Risk {
  anyCompromiseProbability: number;
  expectedCompromised: number;
  ciLow: number;
  ciHigh: number;
}

export interface WhatIfAnswer {
  whatIf: {
    removedEdges: number;
    repricedEdges: number;
    riskReduction: number;
    expectedReduction: number;
    beforeRisk: Risk;
    afterRisk: Risk;
    closedPaths: WhatIfPath[];
    remainingPaths: WhatIfPath[];
    openedPaths: WhatIfPath[];
  } | null;
}

export const REMEDIATION_PLAN = /* GraphQL */ `
  query McpRemediationPlan($title: String) {
    remediationPlan(title: $title) {
      rank
      title
      kind
      coveragePct
      fixRefused
      pathIds
      verification {
        verified
        pathsEliminated
        riskReductionPct
        expectedReduction
      }
      cut {
        from {
          id
          name
          label
        }
        to {
          id
          name
          label
        }
        type
        probability
      }
      node {
        id
        name
        label
      }
      fix {
        id
        pathId
        kind
        title
        repo
        branch
      }
    }
  }
`;

export interface PlanItem {
  rank: number;
  title: string;
  kind: string;
  coveragePct: number;
  fixRefused: string | null;
  pathIds: string[];
  verification: {
    verified: boolean;
    pathsEliminated: number;
    riskReductionPct: number;
    expectedReduction: number;
  };
  cut: { from: NodeRef; to: NodeRef; type: string; probability: number } | null;
  node: NodeRef | null;
  fix: { id: string; pathId: string; kind: string; title: string; repo: string; branch: string } | null;
}

export interface RemediationPlanAnswer {
  remediationPlan: PlanItem[] | null;
}

export type SearchKind = 'NODE' | 'FINDING' | 'PATH';

export const SEARCH = /* GraphQL */ `
  query McpSearch($query: String!, $first: Int, $after: String, $kinds: [SearchKind!]) {
    search(query: $query, first: $first, after: $after, kinds: $kinds) {
      pageInfo {
        hasNextPage
        endCursor
      }
      edges {
        node {
          id
          kind
          name
          label
          score
          snippet
        }
      }
    }
  }
`;

export interface SearchAnswer {
  search: {
    pageInfo: { hasNextPage: boolean; endCursor: string | null };
    edges: {
      node: { id: string; kind: SearchKind; name: string; label: string; score: number; snippet: string };
    }[];
  };
}
