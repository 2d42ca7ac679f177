// Why a route the gate counts is there, and what would undo it: the hops the change added or repriced
// (and a start it exposed), the fix that names the package, the code finding or the hop, and where in the
// pull request the route comes from (Terraform addresses, Kubernetes objects, images), which SARIF uses to
// point at a file. Split from evaluate.ts, which compares the paths before and after.
import type { workloadPricer } from '../analysis/workload-price.js';
import { priceWeakness, serverSideClass } from '../model/code-weakness.js';
import { priceCve, priceHop } from '../model/probability.js';
import type { PathStep } from '../paths/path-store.js';
import type { GatePath, RouteOrigin, Why } from './evaluate.js';
import type { Overlay } from './overlay.js';
import type { Succession } from './successor.js';

const SCORE_EPSILON = 1e-9;

/** The hops of a route the change added, or made likelier than the live graph prices them. */
export function explain(
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
export function originOf(
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
export function suggestFix(
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
