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
import { compileGraph, type CompiledGraph } from '../analysis/compiled-graph.js';
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
import { priceWeakness, serverSideClass } from '../model/code-weakness.js';
import { priceCve, priceHop } from '../model/probability.js';
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
  kubernetes?: { kind?: string; name: string }[];
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

/** Every path of a graph (live or overlaid), as path records of a throwaway store. */
async function pathsOf(
  graph: Parameters<typeof compileGraph>[0],
  deps: GateDeps,
): Promise<Map<string, PathRecord>> {
  // Own buffers: the analyzer's pooled ones may be in use by a pass.
  const compiled = compileGraph(graph, { seedIamUsers: deps.seedIamUsers });
  const found = await deps.finder.find(compiled);
  const store = new PathStore(deps.thresholds);
  store.applyPass(compiled, found, deps.now());
  return new Map(store.open().map((r) => [r.id, r]));
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

/** A P1 route the gate saw but did not count because it is suppressed: named in the result. */
function noteSuppressed(
  record: PathRecord,
  entry: GatePath,
  status: 'opened' | 'worsened',
  suppression: GateDeps['suppression'],
  into: SuppressedRoute[],
): void {
  if (record.priority !== 'P1' || entry.critical || !suppression) return;
  const note = suppression(record.id);
  if (!note) return;
  into.push({
    id: record.id,
    start: entry.nodes[0].name,
    target: entry.nodes.at(-1)!.name,
    status,
    reason: note.reason,
    owner: note.owner,
    expiresAt: note.expiresAt,
  });
}

function suppressedNote(suppressed: SuppressedRoute[] | undefined): string {
  if (!suppressed?.length) return '';
  return `; ${suppressed.length} suppressed critical route(s) not counted: ${suppressed
    .slice(0, 3)
    .map((p) => `${p.start} → ${p.target} (${p.reason}, ${p.owner}, until ${p.expiresAt})`)
    .join('; ')}`;
}

/** The hops of a route the change added, or made likelier than the live graph prices them. */
function explain(
  steps: PathStep[],
  overlay: Overlay,
  livePrice: ReturnType<typeof workloadPricer>,
  start?: string,
): Why[] {
  const why: Why[] = [];
  if (start && overlay.base.hasNode(start)) {
    const now = overlay.getNodeAttributes(start).props;
    const before = overlay.base.getNodeAttributes(start).props;
    if (now.internet_exposed === true && before.internet_exposed !== true)
      why.push({
        change: 'exposed',
        from: start,
        to: start,
        type: 'EXPOSURE',
        probability: 1,
        weightBasis: typeof now.exposure_basis === 'string' ? now.exposure_basis : 'internet_exposed',
      });
  }
  for (const step of steps) {
    const live = overlay.liveEdge(step.type, step.from, step.to);
    if (!live) {
      why.push({ change: 'added', ...hop(step) });
      continue;
    }
    const target = overlay.base.getNodeAttributes(step.to);
    const previous =
      target.label === 'Service' && live.p === undefined
        ? priceHop(live, livePrice(step.to))
        : priceHop(live);
    if (step.probability > previous.p + SCORE_EPSILON)
      why.push({ change: 'repriced', ...hop(step), previousProbability: previous.p });
  }
  return why;
}

function hop(step: PathStep): Omit<Why, 'change'> {
  return {
    from: step.from,
    to: step.to,
    type: step.type,
    probability: step.probability,
    weightBasis: step.weightBasis,
  };
}

/** The report's own nodes on a route: what a file in the pull request says about them. */
function originOf(
  path: GatePath,
  overlay: Overlay,
  successions: readonly Succession[],
  pkg: string | undefined,
  code: RouteOrigin['code'],
): RouteOrigin | undefined {
  const origin: RouteOrigin = {};
  const onRoute = new Set(path.nodes.map((n) => n.id));
  for (const n of path.nodes) {
    if (!overlay.isOwn(n.id)) continue;
    const props = overlay.getNodeAttributes(n.id).props;
    if (typeof props.terraform_address === 'string') (origin.terraform ??= []).push(props.terraform_address);
    if (typeof props.namespace === 'string' || typeof props.k8s_kind === 'string' || props.cluster)
      (origin.kubernetes ??= []).push({
        kind: typeof props.kind === 'string' ? props.kind : undefined,
        name: n.name.split('/').pop()!,
      });
  }
  for (const s of successions)
    if (s.workloads.some((w) => onRoute.has(w))) (origin.images ??= []).push(s.imageName);
  if (pkg) origin.package = pkg;
  if (code) origin.code = code;
  return Object.keys(origin).length ? origin : undefined;
}

/**
 * A suggested fix: for a hop into a workload repriced by CVEs or code weaknesses the change brings, upgrade
 * the package the worst CVE is in, or fix the worst weakness where the code scanner found it; for an exposed
 * start, do not expose it; for an added hop, do not add it.
 */
function suggestFix(
  why: Why[],
  overlay: Overlay,
  successions: readonly Succession[],
): { text: string; package?: string; code?: RouteOrigin['code'] } {
  // CVEs the replaced images already had are not what the change brings.
  const inherited = new Set<string>();
  for (const s of successions)
    for (const old of s.replaces)
      overlay.base.forEachInEdge(old.id, (_k, attrs, source) => {
        if (attrs.type === 'AFFECTS') inherited.add(source);
      });
  const cves = overlay
    .ownEdges()
    .filter(
      (e) =>
        e.attrs.type === 'AFFECTS' &&
        !e.replaces &&
        !inherited.has(e.from) &&
        overlay.getNodeAttributes(e.from).label === 'CVE',
    )
    .map((e) => ({ cve: overlay.getNodeAttributes(e.from), edge: e.attrs.props ?? {} }))
    .sort((a, b) => exploitability(b.cve.props) - exploitability(a.cve.props));
  const repriced = why.find((w) => w.change === 'repriced');
  const weakness = repriced ? newWeakness(overlay) : undefined;
  if (weakness && (!cves.length || weakness.p > exploitability(cves[0].cve.props))) {
    const props = weakness.attrs.props;
    const rule = typeof props.rule_id === 'string' ? props.rule_id : weakness.attrs.name;
    const file = typeof props.path === 'string' ? props.path : undefined;
    const line = typeof props.line === 'number' ? props.line : undefined;
    const cwe = Array.isArray(props.cwe) ? ` ${props.cwe.join(', ')}` : '';
    const where = file ? ` at ${file}${line !== undefined ? `:${line}` : ''}` : '';
    return {
      text: `fix the ${serverSideClass(props.cwe)} (${rule}${cwe})${where} before this code is deployed`,
      code: file ? { path: file, ...(line !== undefined && { line }), rule } : undefined,
    };
  }
  if (repriced && cves.length) {
    const { cve, edge } = cves[0];
    const pkg = typeof edge.package === 'string' ? edge.package : undefined;
    const fixed = typeof edge.fixed_version === 'string' ? ` to ${edge.fixed_version}` : '';
    return {
      text: `upgrade ${pkg ?? 'the affected package'}${fixed} (${cve.name}${cve.props.kev === true ? ', known exploited' : ''}) in the image, or keep the previous image`,
      package: pkg,
    };
  }
  const exposed = why.find((w) => w.change === 'exposed');
  if (exposed)
    return {
      text: `do not expose ${overlay.getNodeAttributes(exposed.from).name} to the internet (${exposed.weightBasis}), or take the escalation away from what it reaches`,
    };
  const added = why.find((w) => w.change === 'added');
  if (added) {
    const from = overlay.getNodeAttributes(added.from).name;
    const to = overlay.getNodeAttributes(added.to).name;
    return { text: `do not add ${added.type} from ${from} to ${to}, or put a control on it` };
  }
  return { text: 'review the hops this change makes likelier' };
}

function exploitability(props: Record<string, unknown>): number {
  return priceCve(props).p;
}

/** The most exploitable server-side code weakness the report brings (one the live estate did not hold). */
function newWeakness(
  overlay: Overlay,
): { p: number; attrs: ReturnType<Overlay['getNodeAttributes']> } | undefined {
  let best: { p: number; attrs: ReturnType<Overlay['getNodeAttributes']> } | undefined;
  for (const e of overlay.ownEdges()) {
    if (e.attrs.type !== 'AFFECTS' || overlay.base.hasNode(e.from)) continue;
    const attrs = overlay.getNodeAttributes(e.from);
    if (attrs.label !== 'Weakness') continue;
    const price = priceWeakness(attrs.props);
    if (price && (!best || price.p > best.p)) best = { p: price.p, attrs };
  }
  return best;
}

/** Attribution by commit: every live route through an asset stamped with the commit. */
async function byCommit(
  tenant: TenantState,
  sha: string,
  deps: GateDeps,
  fallback: string,
): Promise<GateResult> {
  const wanted = sha.toLowerCase();
  const stamped = new Set<string>();
  tenant.graph.forEachNode((id, attrs) => {
    const commit = attrs.props.commit_sha;
    if (typeof commit === 'string' && commit.toLowerCase().startsWith(wanted)) stamped.add(id);
  });
  const base = {
    attribution: 'commit' as const,
    source: null,
    opened: [] as GatePath[],
    worsened: [] as GatePath[],
    improved: [] as ImprovedPath[],
    commit: sha,
  };
  if (!stamped.size) {
    return {
      ...base,
      verdict: 'unknown',
      reason: `${fallback ? `${fallback}, but ` : ''}no asset in the estate carries commit ${sha}`,
      analysed: false,
      preexisting: 0,
      preexistingCount: 0,
      paths: [],
    };
  }
  const live = tenant.stale ? [...(await pathsOf(tenant.graph, deps)).values()] : tenant.paths.open();
  const through = live.filter((r) => routeNodes(r).some((n) => stamped.has(n.id)));
  const suppression = deps.suppression;
  const suppressedCheck = suppression && ((id: string) => suppression(id) !== undefined);
  const counted: GatePath[] = through.map((record) => ({
    id: record.id,
    score: record.score,
    previousScore: null,
    priority: record.priority,
    previousPriority: null,
    critical: isCritical(record, suppressedCheck),
    directAccess: record.directAccess,
    nodes: routeNodes(record),
    steps: routeSteps(record),
    why: [],
    fix: `review the assets commit ${sha} stamped on this route`,
  }));
  const critical = counted.filter((p) => p.critical);
  const suppressed: SuppressedRoute[] = [];
  through.forEach((record, i) => noteSuppressed(record, counted[i], 'opened', suppression, suppressed));
  return {
    ...base,
    verdict: critical.length ? 'blocked' : 'clean',
    reason:
      (fallback ? `${fallback}: ` : '') +
      (critical.length
        ? `${critical.length} critical route(s) pass through assets of commit ${sha}`
        : `${counted.length} route(s) pass through assets of commit ${sha}, none critical`) +
      suppressedNote(suppressed),
    ...(suppressed.length && { suppressed }),
    analysed: true,
    opened: counted,
    preexisting: 0,
    preexistingCount: 0,
    paths: counted.map((p) => ({ id: p.id, status: 'opened', score: p.score, priority: p.priority })),
  };
}
