// The merge gate: a pull request's report through the same normalizer onto a copy-on-write overlay of the
// tenant's live graph (src/gate/overlay.ts), the same compile and search as the analyzer, and the paths
// after compared with the paths before. `opened`: a path id the live estate does not have; `worsened`: the
// same id with a score higher by more than 1e-9, or a higher priority; everything else found is
// `preexisting`. `blocked` when an opened or worsened path is critical (P1, not suppressed: `isCritical`,
// the one definition; suppressed P1 routes are named in `suppressed`); `clean` when the report was analysed
// and none is; `unknown`, with the reason, when nothing could be analysed.
// Nothing is written to the live graph or the live paths. Attribution `commit` counts every route through
// an asset stamped with the commit instead (docs/gate.md).
import type { PairPath } from '../analysis/best-paths.js';
import type { CompiledGraph } from '../analysis/compiled-graph.js';
import { tenantSource } from '../analysis/live-graph.js';
import { forkIsInert, patchFork, searchFork } from '../analysis/patched-search.js';
import type { PathFinder } from '../analysis/path-finder.js';
import { workloadPricer } from '../analysis/workload-price.js';
import type { TenantState } from '../engine/tenant.js';
import { ProblemError } from '../http/problems.js';
import type { FieldError } from '../ingest/envelope.js';
import { checkSnapshotRequest, readIngestContext, stampPullRequest } from '../ingest/context.js';
import { recognizeReport } from '../ingest/recognize.js';
import type { IngestSource } from '../ingest/sources/source.js';
import { exposedSensitiveAsset } from '../invariants/no-internet-exposed-sensitive-asset.js';
import type { Violation } from '../invariants/violation.js';
import {
  isCritical,
  PathStore,
  routeNodes,
  routeSteps,
  type PathNode,
  type PathRecord,
  type PathStep,
  type Priority,
  type PriorityThresholds,
  type SuppressionNote,
} from '../paths/path-store.js';
import { Overlay } from './overlay.js';
import { byCommit, noteSuppressed, pathsOf, suppressedNote } from './by-commit.js';
import { explain, originOf, suggestFix } from './route-explain.js';
import { pathsAnswer, readPreexistingQuery, type PathEntry, type PreexistingPage } from './preexisting.js';
import { unjoinedOf, type Unjoined } from './unjoined.js';
import { isRepositoryOfSlug, substituteSuccessors, type Succession } from './successor.js';

export type Verdict = 'clean' | 'blocked' | 'unknown';
export type Attribution = 'report' | 'commit';

/** A request body that is not a document at all (not JSON): the gate answers `unknown`, naming why. */
export class UnreadableReport {
  constructor(readonly detail: string) {}
}

export interface GateRequest {
  tenant: string;
  body: unknown;
  query: Record<string, string | undefined>;
  /** server default (PR_ATTRIBUTION); the query's `attribution` wins */
  attribution: Attribution;
}

export interface Why {
  /**
   * `added`: the change adds this hop; `repriced`: the hop exists and the change made it likelier;
   * `exposed`: the change puts the route's start on the internet (`from` = `to` = the start, `type`
   * `EXPOSURE`, `weightBasis` the exposure's basis, e.g. `sg-open:tcp/22`)
   */
  change: 'added' | 'repriced' | 'exposed';
  from: string;
  to: string;
  type: string;
  probability: number;
  previousProbability?: number;
  weightBasis: string;
}

/**
 * Where a route comes from in the pull request, for tools that point at files (SARIF): the Terraform
 * resources, Kubernetes objects and images on the route the report states, and the package the fix names.
 */
export interface RouteOrigin {
  terraform?: string[];
  kubernetes?: { kind?: string; name: string; namespace?: string }[];
  images?: string[];
  package?: string;
  /** the code scanner's finding the fix names: its file in the repository, line and rule */
  code?: { path: string; line?: number; rule: string };
}

export interface GatePath {
  id: string;
  score: number;
  previousScore: number | null;
  priority: Priority;
  previousPriority: Priority | null;
  critical: boolean;
  directAccess: boolean;
  nodes: PathNode[];
  steps: PathStep[];
  why: Why[];
  fix: string;
  origin?: RouteOrigin;
}

/** A route the change closes (gone after) or makes less likely. */
export interface ImprovedPath {
  id: string;
  /** null when the change closes the route */
  score: number | null;
  previousScore: number;
  priority: Priority | null;
  previousPriority: Priority;
  closed: boolean;
  nodes: PathNode[];
}

export interface GateResult {
  verdict: Verdict;
  reason: string;
  analysed: boolean;
  attribution: Attribution;
  source: string | null;
  opened: GatePath[];
  worsened: GatePath[];
  /** routes the change leaves as they were: a count (kept; `preexistingCount` says the same) */
  preexisting: number;
  preexistingCount: number;
  /** routes the change closes or makes less likely (not counted in `preexisting`) */
  improved: ImprovedPath[];
  /**
   * the routes the change opened or worsened, then, with `?preexisting=list`, one page of the preexisting
   * ones (src/gate/preexisting.ts)
   */
  paths: PathEntry[];
  /** with `?preexisting=list`: where the page of preexisting routes ends */
  preexistingPage?: PreexistingPage;
  /**
   * P1 routes the change opened or made likelier that are suppressed (triage): seen, named here, and not
   * counted towards `blocked`; each entry is also in `opened` or `worsened` with `critical: false`.
   */
  suppressed?: SuppressedRoute[];
  /** what the report is about (`image:<ref>`, `repo:<repo>`, a snapshot scope); with `source`, it keys the
   * report among the commit's reports (src/gate/verdicts.ts) */
  artifact?: string;
  /** a commit's verdict over several reports: each report's own verdict */
  reports?: {
    source: string | null;
    artifact: string | null;
    verdict: Verdict;
    reason: string;
    decidedAt: string;
  }[];
  /**
   * crown jewels the change exposes to the internet (the CRITICAL invariant
   * `no-internet-exposed-sensitive-asset`): each blocks, as a critical route does
   */
  exposed?: GateViolation[];
  /** crown jewels the live estate exposes and the change no longer does */
  unexposed?: GateViolation[];
  /** pull-request images evaluated in place of the live images of their repository */
  successors?: Omit<Succession, 'image' | 'workloads'>[];
  errors?: FieldError[];
  commit?: string;
  /**
   * on `unknown` because the report names nothing the estate holds: what it read (images, repositories,
   * other assets, at most 20), why each joined nothing, and the step that would join it
   */
  unjoined?: Unjoined[];
  unjoinedCount?: number;
}

/** An invariant violation the change brings or mends, with the node it is about and where it comes from. */
export interface GateViolation extends Violation {
  node: { id: string; name: string; label: string };
  origin?: RouteOrigin;
}

export interface SuppressedRoute extends SuppressionNote {
  id: string;
  start: string;
  target: string;
  status: 'opened' | 'worsened';
}

export interface GateDeps {
  sources: ReadonlyMap<string, IngestSource>;
  finder: PathFinder;
  thresholds: PriorityThresholds;
  seedIamUsers: boolean;
  now: () => number;
  /** the suppression holding for a live path id now, if any (src/governance/suppressions.ts) */
  suppression?: (pathId: string) => SuppressionNote | undefined;
}

const CONTENT_LABELS: ReadonlySet<string> = new Set(['Library', 'Package', 'CVE']);
const RANK: Readonly<Record<Priority, number>> = { P3: 0, P2: 1, P1: 2 };
const SCORE_EPSILON = 1e-9;

export async function evaluateGate(
  tenant: TenantState | undefined,
  request: GateRequest,
  deps: GateDeps,
): Promise<GateResult> {
  const attribution: Attribution =
    request.query.attribution === 'commit' || request.query.attribution === 'report'
      ? request.query.attribution
      : request.attribution;
  const context = readIngestContext(request.query);
  const listing = readPreexistingQuery(request.query);
  const sha = context.sha;
  const empty = (reason: string, extra: Partial<GateResult> = {}): GateResult => ({
    verdict: 'unknown',
    reason,
    analysed: false,
    attribution,
    source: null,
    opened: [],
    worsened: [],
    preexisting: 0,
    preexistingCount: 0,
    improved: [],
    paths: [],
    // An unanalysed report still counts for its commit: a later `unknown` does not leave it `clean`.
    ...(sha && { commit: sha }),
    ...extra,
  });
  if (!tenant || tenant.graph.order === 0)
    return empty(`tenant ${JSON.stringify(request.tenant)} holds no estate to compare against`);

  if (request.body instanceof UnreadableReport)
    return empty(`the report could not be read: ${request.body.detail}`, {
      source: request.query.source ?? null,
      errors: [{ pointer: '/', detail: request.body.detail }],
    });
  // Commit attribution, asked for, or the fallback when there is no report to compare.
  const noReport = isEmptyReport(request.body);
  if (attribution === 'commit' || noReport) {
    if (!sha) {
      return empty(
        noReport
          ? 'the report is empty and no sha was given, so there is nothing to compare and no commit to attribute'
          : 'attribution commit needs the commit: pass sha',
      );
    }
    return byCommit(
      tenant,
      sha,
      deps,
      noReport ? 'the report is empty; fell back to attribution by commit' : '',
    );
  }

  const source = request.query.source ?? recognizeReport(request.body);
  if (!source)
    return empty('the report is not of a kind any ingest source takes; name it with ?source=<source>');
  const normalizer = deps.sources.get(source);
  // A misspelt `source` is the caller's configuration, not a report the gate cannot read: refused outright
  // (400), so that no `allow-unknown` turns it green; the caller is signed in, so the list is no secret.
  if (!normalizer) {
    const detail = `source ${JSON.stringify(source)} is not one the gate reads; use one of ${[...deps.sources.keys()].join(', ')}, or leave it out to have the report recognised by its shape`;
    throw new ProblemError('invalid-query', detail, {
      errors: [{ pointer: '/query/source', value: source, detail }],
    });
  }
  let output;
  try {
    checkSnapshotRequest(normalizer, context);
    const normalize = (query: Record<string, string | undefined>) =>
      normalizer.normalize({ body: request.body, query, receivedAt: new Date(deps.now()).toISOString() });
    try {
      output = normalize(request.query);
    } catch (error) {
      // A code scan never names the repository it read (Semgrep, SARIF, a scan of a local checkout): the
      // pull request's does, by its slug (the Action always sends it).
      const repo = needsRepository(error) ? repositoryOfSlug(tenant, request.query) : undefined;
      if (!repo) throw error;
      output = normalize({ ...request.query, repo });
    }
  } catch (error) {
    if (!(error instanceof ProblemError)) throw error;
    return empty(`the report could not be read: ${error.problem.detail}`, {
      source,
      errors: error.problem.errors,
    });
  }
  stampPullRequest(output.envelopes, context, output.mentioned);
  const artifact = artifactOf(output, request.query);
  if (!output.envelopes.some((e) => e.nodes.length || e.edges.length))
    return empty('the report is empty', { source, ...(artifact && { artifact }) });

  const overlay = new Overlay(tenant.graph, tenant.writer);
  const at = deps.now();
  for (const envelope of output.envelopes) overlay.apply(envelope, at);
  // A new image of a repository the estate runs is evaluated where the repository's images run.
  const successions = substituteSuccessors(overlay, context.slug);
  // Nodes the report only mentions (a CVE id) do not make it about the estate; what it contains must.
  // Shared content nodes (a library, a package, a CVE) are in every image that has them: an image nothing
  // runs does not become part of the estate by sharing a library with one that does.
  const mentioned = new Set(output.mentioned ?? []);
  const aboutEstate = [...overlay.touched].some(
    (id) => !mentioned.has(id) && !CONTENT_LABELS.has(overlay.getNodeAttributes(id).label),
  );
  if (!aboutEstate) {
    const unjoined = unjoinedOf(overlay, request.query, artifact);
    const named = unjoined.unjoined
      .slice(0, 3)
      .map((u) => `${u.kind} ${u.name}`)
      .join(', ');
    return empty(
      `the report names nothing the estate holds (${named}${unjoined.unjoinedCount > 3 ? ` and ${unjoined.unjoinedCount - 3} more` : ''}), so no route can be compared; \`unjoined\` says what would join ${unjoined.unjoinedCount > 1 ? 'them' : 'it'}`,
      { source, ...(artifact && { artifact }), ...unjoined },
    );
  }

  const { before, after } = await beforeAndAfter(overlay, tenant, deps);
  const { preexistingPaths, paths, ...result } = compare(
    before,
    after,
    overlay,
    successions,
    deps.suppression,
  );
  const critical = [...result.opened, ...result.worsened].filter((p) => p.critical);
  // A crown jewel the change itself puts on the internet is the shortest route of all (no hop to price).
  const exposure = exposureChanges(overlay);
  const verdict: Verdict = critical.length || exposure.exposed.length ? 'blocked' : 'clean';
  const improvedNote = result.improved.length
    ? `; ${result.improved.length} route(s) ${result.improved.some((p) => !p.closed) ? 'made less likely or closed' : 'closed'}: ${result.improved
        .slice(0, 3)
        .map((p) => `${p.nodes[0].name} → ${p.nodes.at(-1)!.name}`)
        .join('; ')}`
    : '';
  const reason = critical.length
    ? `${critical.length} critical route${critical.length > 1 ? 's' : ''} opened or made likelier: ${critical
        .slice(0, 3)
        .map((p) => `${p.nodes[0].name} → ${p.nodes.at(-1)!.name}`)
        .join('; ')}`
    : result.opened.length || result.worsened.length
      ? `${result.opened.length} route(s) opened and ${result.worsened.length} made likelier, none critical`
      : 'the change opens no route and makes none likelier';
  const exposedNote = exposure.exposed.length
    ? `${exposure.exposed.length} crown jewel${exposure.exposed.length > 1 ? 's' : ''} exposed to the internet: ${exposure.exposed
        .slice(0, 3)
        .map((v) => `${v.node.label} ${v.node.name}`)
        .join('; ')}; `
    : '';
  const unexposedNote = exposure.unexposed.length
    ? `; ${exposure.unexposed.length} crown jewel(s) no longer exposed to the internet: ${exposure.unexposed
        .slice(0, 3)
        .map((v) => v.node.name)
        .join('; ')}`
    : '';
  return {
    verdict,
    reason: exposedNote + reason + improvedNote + unexposedNote + suppressedNote(result.suppressed),
    analysed: true,
    attribution,
    source,
    ...(artifact && { artifact }),
    ...result,
    preexistingCount: result.preexisting,
    ...pathsAnswer(paths, preexistingPaths, listing),
    ...(exposure.exposed.length && { exposed: exposure.exposed }),
    ...(exposure.unexposed.length && { unexposed: exposure.unexposed }),
    ...(successions.length && {
      successors: successions.map(({ imageName, replaces, basis }) => ({ imageName, replaces, basis })),
    }),
    ...(sha && { commit: sha }),
  };
}

/**
 * The crown jewels the change exposes to the internet, and those it takes off it: the invariant
 * `no-internet-exposed-sensitive-asset` (CRITICAL) on the nodes the report adds or changes. Every other node
 * is as the live estate has it.
 */
function exposureChanges(overlay: Overlay): { exposed: GateViolation[]; unexposed: GateViolation[] } {
  const ids = new Set(overlay.touched);
  overlay.forEachAddedNode((id) => ids.add(id));
  const exposed: GateViolation[] = [];
  const unexposed: GateViolation[] = [];
  for (const id of ids) {
    const attrs = overlay.getNodeAttributes(id);
    const after = exposedSensitiveAsset(id, attrs);
    const live = overlay.base.hasNode(id) ? overlay.base.getNodeAttributes(id) : undefined;
    const before = live && exposedSensitiveAsset(id, live);
    const node = { id, name: attrs.name, label: attrs.label };
    const origin =
      overlay.isOwn(id) && typeof attrs.props.terraform_address === 'string'
        ? { terraform: [attrs.props.terraform_address] }
        : undefined;
    if (after && !before) exposed.push({ ...after, node, ...(origin && { origin }) });
    else if (before && !after) unexposed.push({ ...before, node });
  }
  const byName = (a: GateViolation, b: GateViolation) => a.node.name.localeCompare(b.node.name);
  return { exposed: exposed.sort(byName), unexposed: unexposed.sort(byName) };
}

/** A normalizer's refusal for want of `?repo=` alone. */
function needsRepository(error: unknown): boolean {
  return (
    error instanceof ProblemError &&
    (error.problem.errors ?? []).some((e: FieldError) => e.pointer === '/query/repo')
  );
}

/**
 * The repository a pull request's slug names, when the call gives a slug and no `repo`: the estate's
 * Repository of that slug (its `repo_slug`, or a name that ends with it, as build records and provenance
 * name it) when exactly one is, else `github.com/<slug>`, the form `trivy repo` and build provenance use.
 */
function repositoryOfSlug(
  tenant: TenantState,
  query: Record<string, string | undefined>,
): string | undefined {
  const slug = query.slug?.trim().toLowerCase();
  if (query.repo?.trim() || !slug || !/^[^/\s]+\/[^/\s]+$/.test(slug)) return undefined;
  const found: string[] = [];
  tenant.graph.forEachNode((_id, attrs) => {
    if (isRepositoryOfSlug(attrs, slug)) found.push(attrs.name);
  });
  return found.length === 1 ? found[0] : `github.com/${slug}`;
}

/** What a report is about: its own scope, else its image, else the snapshot it was sent as. */
function artifactOf(
  output: { scope?: string; envelopes: { nodes: { label: string; name: string }[] }[] },
  query: Record<string, string | undefined>,
): string | undefined {
  if (output.scope) return output.scope;
  for (const envelope of output.envelopes)
    for (const node of envelope.nodes) if (node.label === 'Image') return `image:${node.name}`;
  return query.snapshot || query.artifact || undefined;
}

function isEmptyReport(body: unknown): boolean {
  if (body === undefined || body === null || body === '') return true;
  if (Array.isArray(body)) return body.length === 0;
  return typeof body === 'object' && Object.keys(body).length === 0;
}

/**
 * The paths of the estate before and after the change. The tenant's live compiled graph
 * (src/analysis/live-graph.ts) is forked and patched, both patches laid before any await so that they see
 * one graph: with the writes the analyzer has not seen yet when the live paths lag the graph ("before"),
 * then with the overlay's change ("after"); each is searched only where its change can matter
 * (src/analysis/patched-search.ts). A fresh compile of the live and overlaid estates when that cannot be
 * done (no pass yet, a pass running, a change too large to patch).
 */
async function beforeAndAfter(
  overlay: Overlay,
  tenant: TenantState,
  deps: GateDeps,
): Promise<{ before: Map<string, PathRecord>; after: Map<string, PathRecord> }> {
  const records = (compiled: CompiledGraph, found: PairPath[]) => {
    const store = new PathStore(deps.thresholds);
    store.applyPass(compiled, found, deps.now());
    return new Map(store.open().map((r) => [r.id, r]));
  };
  // A sync waiting for earlier forks' copies goes first: forks cannot hold the analyzer off for ever.
  await tenant.live.turn();
  const live = tenant.lastSearch;
  if (live) {
    const options = { seedIamUsers: deps.seedIamUsers };
    if (!tenant.stale) {
      const patched = patchFork(tenant.live, overlay, overlay.changes(), options);
      // A change no route can use (an image restated with leaf CVEs and packages): the live paths are the
      // paths after, with no search (src/analysis/change-reach.ts).
      if (patched && forkIsInert(patched, live)) {
        patched.fork.release();
        const same = new Map(tenant.paths.open().map((r) => [r.id, r]));
        return { before: same, after: same };
      }
      if (patched) {
        const after = await searchFork(patched, live, deps.finder);
        return {
          before: new Map(tenant.paths.open().map((r) => [r.id, r])),
          after: records(after.compiled, after.found),
        };
      }
    } else {
      const pending = tenant.writer.changes.peek();
      const now =
        pending &&
        patchFork(tenant.live, tenantSource(tenant.graph), pending, { ...options, identity: true });
      const next = now && patchFork(now.fork, overlay, overlay.changes(), options);
      try {
        if (now && next) {
          const before = await searchFork(now, live, deps.finder);
          const after = await searchFork(next, before, deps.finder);
          return {
            before: records(before.compiled, before.found),
            after: records(after.compiled, after.found),
          };
        }
      } finally {
        // A fork pins the live graph until searched: one left unsearched lets go here.
        now?.fork.release();
        next?.fork.release();
      }
    }
  }
  // When the live paths lag the live graph, "before" is searched afresh, alongside "after".
  const [after, before] = await Promise.all([
    pathsOf(overlay, deps),
    tenant.stale ? pathsOf(tenant.graph, deps) : new Map(tenant.paths.open().map((r) => [r.id, r])),
  ]);
  return { before, after };
}

function compare(
  before: Map<string, PathRecord>,
  after: Map<string, PathRecord>,
  overlay: Overlay,
  successions: readonly Succession[] = [],
  suppression?: GateDeps['suppression'],
): Pick<GateResult, 'opened' | 'worsened' | 'preexisting' | 'improved' | 'paths' | 'suppressed'> & {
  preexistingPaths: PathEntry[];
} {
  const suppressed: SuppressedRoute[] = [];
  const suppressedCheck = suppression && ((id: string) => suppression(id) !== undefined);
  const improved: ImprovedPath[] = [];
  for (const old of before.values()) {
    const now = after.get(old.id);
    const lower = now && (now.score < old.score - SCORE_EPSILON || RANK[now.priority] < RANK[old.priority]);
    if (now && !lower) continue;
    improved.push({
      id: old.id,
      score: now ? now.score : null,
      previousScore: old.score,
      priority: now ? now.priority : null,
      previousPriority: old.priority,
      closed: !now,
      nodes: routeNodes(now ?? old),
    });
  }
  const opened: GatePath[] = [];
  const worsened: GatePath[] = [];
  const paths: PathEntry[] = [];
  const preexistingPaths: PathEntry[] = [];
  const livePrice = workloadPricer(overlay.base);
  const lowered = new Set(improved.map((p) => p.id));
  for (const record of after.values()) {
    const old = before.get(record.id);
    const status = !old
      ? 'opened'
      : record.score > old.score + SCORE_EPSILON || RANK[record.priority] > RANK[old.priority]
        ? 'worsened'
        : 'preexisting';
    const entry = { id: record.id, status, score: record.score, priority: record.priority } as const;
    if (status === 'preexisting') {
      if (!lowered.has(record.id)) preexistingPaths.push(entry);
      continue;
    }
    paths.push(entry);
    const steps = routeSteps(record);
    const why = explain(steps, overlay, livePrice, routeNodes(record)[0]?.id);
    const fix = suggestFix(why, overlay, successions);
    const route: GatePath = {
      id: record.id,
      score: record.score,
      previousScore: old?.score ?? null,
      priority: record.priority,
      previousPriority: old?.priority ?? null,
      critical: isCritical(record, suppressedCheck),
      directAccess: record.directAccess,
      nodes: routeNodes(record),
      steps,
      why,
      fix: fix.text,
    };
    const origin = originOf(route, overlay, successions, fix.package, fix.code);
    if (origin) route.origin = origin;
    (status === 'opened' ? opened : worsened).push(route);
    noteSuppressed(record, route, status, suppression, suppressed);
  }
  const byScore = (a: GatePath, b: GatePath) => b.score - a.score;
  return {
    opened: opened.sort(byScore),
    worsened: worsened.sort(byScore),
    preexisting: preexistingPaths.length,
    preexistingPaths,
    improved: improved.sort((a, b) => b.previousScore - a.previousScore),
    paths,
    ...(suppressed.length && { suppressed }),
  };
}
