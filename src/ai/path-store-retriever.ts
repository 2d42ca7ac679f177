// The default retriever: the tenant's path store and graph. A question's terms (names, CVE ids, package
// names, path ids) are matched (by default among the graph's node names and the path ids; the search
// retriever, search-retriever.ts, matches them through the search index instead); a finding or a package
// matched implicates what it affects and what depends on that (an image, the workloads running it), and the
// open paths through what the terms found are chosen, the most terms first, then the riskiest. A question
// that names nothing in the estate gets the riskiest open paths. A `pathId` adds that path's whole route with
// every hop's evidence and its fixes. Only paths the principal may see are read (src/auth/scope.ts).
import { pathFilter } from '../auth/scope.js';
import type { TenantGraph } from '../graph/model.js';
import { nodeId } from '../graph/ids.js';
import { ProblemError } from '../http/problems.js';
import { hopEvidence, type HopEvidence } from '../paths/hop-evidence.js';
import { routeNodes, routeSteps, type PathRecord, type PathStore } from '../paths/path-store.js';
import { fixesFor } from '../remediation/fixes.js';
import {
  emptyGrounding,
  FINDING_LABELS,
  type GroundedEvidence,
  type GroundedFinding,
  type GroundedNode,
  type GroundedPath,
  type Grounding,
  type RetrievalRequest,
  type Retriever,
} from './grounding.js';
import { questionTerms } from './question-terms.js';

/** What the retriever reads of the engine: a tenant's graph and path store. */
export interface EstateReader {
  tenant(name: string): { graph: TenantGraph; paths: PathStore } | undefined;
}

/** What a question's terms found in a tenant: per term the nodes and paths it names, and the findings. */
export interface TermMatches {
  /** per term, the node ids it named (before implication: `implicate` adds what uses them) */
  nodes: Map<string, Set<string>>;
  /** per term, the path ids it named */
  paths: Map<string, Set<string>>;
  /** finding node ids the terms named, best first */
  findings: string[];
}

/** Finds the terms in a tenant: by node name (the default, `matchNames`) or through the search index. */
export type TermMatcher = (
  request: RetrievalRequest,
  graph: TenantGraph,
  terms: readonly string[],
) => Promise<TermMatches>;

export interface PathStoreRetrieverOptions {
  /** the retriever's name (`Grounding.sources`) */
  name?: string;
  /** how terms are found (default: in node names and path ids) */
  matcher?: TermMatcher;
  /** what the selection of matched paths is called (`terms`, or `search`) */
  selection?: 'terms' | 'search';
  /** when no term matches, send the riskiest paths (the fallback retriever does; the search does not) */
  riskiestWhenUnmatched?: boolean;
  /** paths sent with one question (the focus path included) */
  maxPaths?: number;
  /** findings named per hop of a path that is not the focus (the focus path gets all hop-evidence gives) */
  findingsPerHop?: number;
  /** findings the question names that are sent even when on no chosen path */
  maxNamedFindings?: number;
}

/** Edges walked backwards from what a term found to what uses it: an image's workloads, a library's images. */
const USED_BY: ReadonlySet<string> = new Set(['DEPENDS_ON', 'BUILT_FROM', 'COMPILED_INTO', 'HOSTS']);
const IMPLICATION_DEPTH = 3;
const MAX_PROPERTIES = 12;
const MAX_PROPERTY_CHARS = 300;

export class PathStoreRetriever implements Retriever {
  readonly name: string;
  private readonly matcher: TermMatcher;
  private readonly selection: 'terms' | 'search';
  private readonly riskiestWhenUnmatched: boolean;
  private readonly maxPaths: number;
  private readonly findingsPerHop: number;
  private readonly maxNamedFindings: number;

  constructor(
    private readonly estate: EstateReader,
    options: PathStoreRetrieverOptions = {},
  ) {
    this.name = options.name ?? 'path-store';
    this.matcher = options.matcher ?? matchNames;
    this.selection = options.selection ?? 'terms';
    this.riskiestWhenUnmatched = options.riskiestWhenUnmatched ?? true;
    this.maxPaths = options.maxPaths ?? 8;
    this.findingsPerHop = options.findingsPerHop ?? 3;
    this.maxNamedFindings = options.maxNamedFindings ?? 10;
  }

  async retrieve(request: RetrievalRequest): Promise<Grounding> {
    const grounding = emptyGrounding();
    grounding.sources.push(this.name);
    const state = this.estate.tenant(request.tenant);
    const visible = pathFilter(request.principal, state?.graph);
    let focus: PathRecord | undefined;
    if (request.pathId !== undefined) {
      focus = state?.paths.get(request.pathId);
      // A path the caller may not see is as unknown as one that does not exist (app/routes/visible-path.ts).
      if (!focus || !visible(focus))
        throw new ProblemError('not-found', `no attack path ${request.pathId} in this tenant`, {
          errors: [{ pointer: '/pathId', value: request.pathId, detail: 'unknown path' }],
        });
      grounding.selection.push('focus');
    }
    if (!state) return grounding;
    const { graph, paths } = state;
    const terms = questionTerms(request.question);
    const chosen: PathRecord[] = focus ? [focus] : [];
    const open = paths.open().filter(visible);
    const named = terms.length
      ? await this.matcher(request, graph, terms)
      : { nodes: new Map<string, Set<string>>(), paths: new Map<string, Set<string>>(), findings: [] };
    implicate(graph, named.nodes);
    if (terms.length) {
      const ranked: { record: PathRecord; hits: number }[] = [];
      for (const record of open) {
        if (record === focus) continue;
        const hits = termsOnRoute(record, terms, named);
        if (hits > 0) ranked.push({ record, hits });
      }
      // open() is by score already: a stable sort by hits keeps the riskiest first among equals.
      ranked.sort((a, b) => b.hits - a.hits);
      for (const { record } of ranked.slice(0, this.maxPaths - chosen.length)) chosen.push(record);
      if (ranked.length) grounding.selection.push(this.selection);
    }
    if (chosen.length === 0 && this.riskiestWhenUnmatched && !request.alreadyFound) {
      chosen.push(...open.slice(0, this.maxPaths));
      if (chosen.length) grounding.selection.push('top');
    }
    const nodes = new Map<string, GroundedNode>();
    const findings = new Map<string, GroundedFinding>();
    for (const record of chosen)
      grounding.paths.push(this.groundPath(graph, record, record === focus, nodes, findings));
    // Findings the question names are sent even off the chosen paths, but not to an apps-bound credential:
    // what they affect may lie in another application.
    if (!request.principal.apps)
      for (const id of named.findings.slice(0, this.maxNamedFindings))
        if (!findings.has(id) && graph.hasNode(id)) findings.set(id, groundFinding(graph, id));
    grounding.nodes.push(...nodes.values());
    grounding.findings.push(...findings.values());
    return grounding;
  }

  private groundPath(
    graph: TenantGraph,
    record: PathRecord,
    isFocus: boolean,
    nodes: Map<string, GroundedNode>,
    findings: Map<string, GroundedFinding>,
  ): GroundedPath {
    const route = routeNodes(record);
    for (const n of route) if (!nodes.has(n.id)) nodes.set(n.id, groundNode(graph, n.id, n.name, n.label));
    const hops = routeSteps(record).map((step) => {
      const evidence = hopEvidence(graph, step);
      const kept = isFocus
        ? evidence
        : [
            ...evidence
              .filter((e) => e.kind === 'cve' || e.kind === 'weakness')
              .slice(0, this.findingsPerHop),
            ...evidence.filter((e) => e.kind === 'runtime'),
          ];
      return {
        from: step.from,
        to: step.to,
        type: step.type,
        probability: step.probability,
        basis: step.weightBasis,
        ...(kept.length && { evidence: kept.map((e) => groundEvidence(graph, e, findings)) }),
      };
    });
    const fixes =
      record.state === 'open'
        ? fixesFor(record, graph).map((f) => ({ title: f.title, explanation: f.explanation }))
        : [];
    return {
      id: record.id,
      ...(isFocus && { focus: true as const }),
      state: record.state,
      priority: record.priority,
      score: record.score,
      directAccess: record.directAccess,
      start: record.directAccess ? record.targetId : record.startId,
      target: record.targetId,
      route: route.map((n) => n.id),
      hops,
      ...(fixes.length && { fixes }),
    };
  }
}

/** A hop's evidence as the prompt carries it; a CVE or weakness that is a node of the graph can be cited. */
function groundEvidence(
  graph: TenantGraph,
  e: HopEvidence,
  findings: Map<string, GroundedFinding>,
): GroundedEvidence {
  const out: GroundedEvidence = { kind: e.kind, name: e.name };
  if (e.kind === 'cve' || e.kind === 'weakness') {
    const id = nodeId(e.kind === 'cve' ? 'CVE' : 'Weakness', e.name);
    if (graph.hasNode(id)) {
      out.findingId = id;
      if (!findings.has(id)) findings.set(id, groundFinding(graph, id));
    }
  }
  if (e.cvss !== null) out.cvss = e.cvss;
  if (e.epss !== null) out.epss = e.epss;
  if (e.kev !== null) out.kev = e.kev;
  if (e.severity !== null) out.severity = e.severity;
  if (e.detail !== null) out.detail = e.detail;
  return out;
}

function scalarProperties(
  props: Record<string, unknown>,
): Record<string, string | number | boolean> | undefined {
  const out: Record<string, string | number | boolean> = {};
  let n = 0;
  for (const [key, value] of Object.entries(props)) {
    if (n >= MAX_PROPERTIES) break;
    if (typeof value === 'string') out[key] = value.slice(0, MAX_PROPERTY_CHARS);
    else if (typeof value === 'number' || typeof value === 'boolean') out[key] = value;
    else continue;
    n++;
  }
  return n ? out : undefined;
}

function groundNode(graph: TenantGraph, id: string, name: string, label: string): GroundedNode {
  const props = graph.hasNode(id) ? scalarProperties(graph.getNodeAttribute(id, 'props')) : undefined;
  return { id, label, name, ...(props && { properties: props }) };
}

function groundFinding(graph: TenantGraph, id: string): GroundedFinding {
  const attrs = graph.getNodeAttributes(id);
  const affects: string[] = [];
  graph.forEachOutEdge(id, (_key, edge, _source, target) => {
    if (edge.type === 'AFFECTS' && affects.length < 20) affects.push(target);
  });
  const props = scalarProperties(attrs.props);
  return { id, label: attrs.label, name: attrs.name, ...(props && { properties: props }), affects };
}

/** The default matcher: a term names the nodes whose name holds it, and the path whose id it is. */
export const matchNames: TermMatcher = async (_request, graph, terms) => {
  const nodes = new Map<string, Set<string>>(terms.map((t) => [t, new Set<string>()]));
  const paths = new Map<string, Set<string>>(terms.map((t) => [t, new Set<string>([t])]));
  const findings: string[] = [];
  graph.forEachNode((id, attrs) => {
    const name = attrs.name.toLowerCase();
    for (const term of terms) {
      if (!name.includes(term)) continue;
      nodes.get(term)!.add(id);
      if (FINDING_LABELS.has(attrs.label) && !findings.includes(id)) findings.push(id);
    }
  });
  return { nodes, paths, findings };
};

/**
 * Adds to each term's nodes what they implicate: what a finding among them affects, and what uses those
 * (walked back along DEPENDS_ON, BUILT_FROM, COMPILED_INTO, HOSTS), up to three steps.
 */
export function implicate(graph: TenantGraph, named: Map<string, Set<string>>): void {
  for (const set of named.values()) {
    let frontier: string[] = [];
    for (const id of set) {
      if (!graph.hasNode(id)) continue;
      if (FINDING_LABELS.has(graph.getNodeAttribute(id, 'label')))
        graph.forEachOutEdge(id, (_k, edge, _s, target) => {
          if (edge.type === 'AFFECTS') frontier.push(target);
        });
      else frontier.push(id);
    }
    for (const id of frontier) set.add(id);
    for (let depth = 0; depth < IMPLICATION_DEPTH && frontier.length; depth++) {
      const next: string[] = [];
      for (const id of frontier)
        graph.forEachInEdge(id, (_k, edge, source) => {
          if (USED_BY.has(edge.type) && !set.has(source)) {
            set.add(source);
            next.push(source);
          }
        });
      frontier = next;
    }
  }
}

/** How many terms the path's route (or its id) answers to. */
function termsOnRoute(record: PathRecord, terms: readonly string[], named: TermMatches): number {
  const route = routeNodes(record);
  let hits = 0;
  for (const term of terms) {
    const nodes = named.nodes.get(term);
    if (named.paths.get(term)?.has(record.id) || (nodes && route.some((n) => nodes.has(n.id)))) hits++;
  }
  return hits;
}
