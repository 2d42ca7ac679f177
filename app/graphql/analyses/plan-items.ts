// What the remediation plan's items say beyond the plan itself: an item's title in words, and the generated
// fix (or the reason none is generated) for the open critical paths through the hop it cuts. Kept apart from
// the remediationPlan resolver (../analyses.ts), which maps each item through them.
import type { CompiledGraph } from '../../../src/analysis/compiled-graph.js';
import type { PlanItem } from '../../../src/analysis/remediation-plan.js';
import type { TenantState } from '../../../src/engine/tenant.js';
import { EDGE_TYPES } from '../../../src/graph/vocabulary.js';
import { routeSteps } from '../../../src/paths/path-store.js';
import { planFixes, type Fix } from '../../../src/remediation/fixes.js';

export function planTitle(g: CompiledGraph, item: PlanItem): string {
  if (item.kind === 'block-public-access') return `Block public access to ${g.names[item.node]}`;
  const e = item.edge;
  return `Remove ${EDGE_TYPES[g.edgeType[e]]} ${g.names[g.edgeFrom[e]]} → ${g.names[g.edgeTo[e]]}`;
}

export interface PlanFixView {
  id: string;
  pathId: string;
  kind: Fix['kind'];
  title: string;
  repo: string;
  branch: string;
}

/**
 * The generated fix for a plan item, where the fixes module has one: among the fixes for the open critical
 * paths through the item's hop (or to its public target), one about the node the hop leads into; or, when
 * the only such fix was refused for a value no grammar accepts, the reason.
 */
export function planFix(
  state: TenantState,
  g: CompiledGraph,
  item: PlanItem,
): { fix: PlanFixView | null; refused: string | null } {
  const into = item.kind === 'block-public-access' ? item.node : g.edgeTo[item.edge];
  const from = item.kind === 'block-public-access' ? -1 : g.edgeFrom[item.edge];
  const type = item.kind === 'block-public-access' ? '' : EDGE_TYPES[g.edgeType[item.edge]];
  const intoId = g.nodeIds[into];
  const name = g.names[into];
  const fromName = from >= 0 ? g.names[from] : '';
  // A fix is about the hop it says it cuts: into the node (upgrades, base images), or both ends (escapes,
  // escalations).
  const about = (fix: Pick<Fix, 'kind' | 'cuts'>) =>
    item.kind === 'block-public-access'
      ? fix.kind === 'block-public-access'
      : fix.kind !== 'block-public-access' &&
        fix.cuts.into === name &&
        (fix.cuts.from === undefined || fix.cuts.from === fromName);
  let refused: string | null = null;
  for (const record of state.paths.open()) {
    if (record.priority !== 'P1') continue;
    if (item.kind === 'block-public-access') {
      if (!record.directAccess || record.targetId !== intoId) continue;
    } else if (
      !routeSteps(record).some((s) => s.from === g.nodeIds[from] && s.to === intoId && s.type === type)
    )
      continue;
    const plan = planFixes(record, state.graph);
    const fix = plan.fixes.find(about);
    if (fix)
      return {
        fix: {
          id: fix.id,
          pathId: record.id,
          kind: fix.kind,
          title: fix.title,
          repo: fix.repo,
          branch: fix.branch,
        },
        refused: null,
      };
    refused ??= plan.refused.find(about)?.reason ?? null;
  }
  return { fix: null, refused };
}
