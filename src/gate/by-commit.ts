// Attribution by commit (docs/gate.md, "Attribution"): every live route through an asset stamped with the
// commit, instead of comparing a report; and what evaluate.ts shares with it (a graph's paths, the
// suppressed routes a result names). Split from evaluate.ts.
import { compileGraph } from '../analysis/compiled-graph.js';
import type { TenantState } from '../engine/tenant.js';
import { isCritical, PathStore, routeNodes, routeSteps, type PathRecord } from '../paths/path-store.js';
import type { GateDeps, GatePath, GateResult, ImprovedPath, SuppressedRoute } from './evaluate.js';

/** Every path of a graph (live or overlaid), as path records of a throwaway store. */
export async function pathsOf(
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

/** A P1 route the gate saw but did not count because it is suppressed: named in the result. */
export function noteSuppressed(
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

export function suppressedNote(suppressed: SuppressedRoute[] | undefined): string {
  if (!suppressed?.length) return '';
  return `; ${suppressed.length} suppressed critical route(s) not counted: ${suppressed
    .slice(0, 3)
    .map((p) => `${p.start} → ${p.target} (${p.reason}, ${p.owner}, until ${p.expiresAt})`)
    .join('; ')}`;
}

/** Attribution by commit: every live route through an asset stamped with the commit. */
export async function byCommit(
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
