// What an AI answer may stand on: the paths, nodes and findings retrieved for a question from the caller's
// tenant (and, for an apps-bound credential, only from its applications' paths). It is sent to the model as
// data (src/ai/prompt.ts) and is the list citations are first checked against (src/ai/citations.ts).
import type { Principal } from '../auth/principal.js';
import type { NodeLabel } from '../graph/vocabulary.js';

/** Labels of nodes that are findings (cited as `finding`), not assets. */
export const FINDING_LABELS: ReadonlySet<string> = new Set<NodeLabel>([
  'CVE',
  'Weakness',
  'Misconfiguration',
  'Secret',
]);

export type CitationKind = 'path' | 'node' | 'finding';

export interface Citation {
  kind: CitationKind;
  id: string;
}

/** A finding that stands behind a hop: a CVE or code weakness of what the hop leads into. */
export interface GroundedEvidence {
  kind: 'cve' | 'weakness' | 'runtime' | 'rule';
  name: string;
  /** the finding node's id, to cite (`finding`), when the finding is a node of the graph */
  findingId?: string;
  cvss?: number;
  epss?: number;
  kev?: boolean;
  severity?: string;
  detail?: string;
}

export interface GroundedHop {
  from: string;
  to: string;
  type: string;
  probability: number;
  basis: string;
  evidence?: GroundedEvidence[];
}

export interface GroundedPath {
  id: string;
  /** the path the question was asked about (`pathId`) */
  focus?: true;
  state: 'open' | 'resolved';
  priority: string;
  score: number;
  directAccess: boolean;
  /** node ids; the nodes themselves are in `nodes` */
  start: string;
  target: string;
  route: string[];
  hops: GroundedHop[];
  /** the fixes generated for the path (src/remediation/fixes.ts): what closes it */
  fixes?: { title: string; explanation: string }[];
}

export interface GroundedNode {
  id: string;
  label: string;
  name: string;
  properties?: Record<string, string | number | boolean>;
}

export interface GroundedFinding {
  id: string;
  label: string;
  name: string;
  properties?: Record<string, string | number | boolean>;
  /** ids of the nodes the finding affects */
  affects: string[];
}

export interface Grounding {
  paths: GroundedPath[];
  nodes: GroundedNode[];
  findings: GroundedFinding[];
  /** how the paths were chosen: `focus` (pathId), `terms` (names or CVEs in the question), `top` (none matched) */
  selection: ('focus' | 'terms' | 'top' | 'search')[];
  /** the retrievers that contributed (the search index, the path store) */
  sources: string[];
}

export interface RetrievalRequest {
  tenant: string;
  principal: Principal;
  question: string;
  pathId?: string;
  /** paths earlier retrievers already found: a fallback sends the riskiest paths only when none did */
  alreadyFound?: number;
}

/** Finds what a question is about in the live estate. The path store's is the default (path-store-retriever.ts). */
export interface Retriever {
  readonly name: string;
  retrieve(request: RetrievalRequest): Promise<Grounding>;
}

export function emptyGrounding(): Grounding {
  return { paths: [], nodes: [], findings: [], selection: [], sources: [] };
}

/** Every id the grounding offers to cite, by kind. */
export function citableIds(grounding: Grounding): Record<CitationKind, Set<string>> {
  return {
    path: new Set(grounding.paths.map((p) => p.id)),
    node: new Set(grounding.nodes.map((n) => n.id)),
    finding: new Set(grounding.findings.map((f) => f.id)),
  };
}
