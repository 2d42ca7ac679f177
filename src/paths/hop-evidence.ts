// What a hop of a route stands on, read from the tenant graph: the hop's own properties (the network rule,
// the RBAC or IAM grant, the mount), the CVEs and code weaknesses of what the hop leads into (a workload's
// images and the repositories they are built from, with CVSS, EPSS and KEV) and the runtime alert on it.
// The same shape the pricing reads (src/analysis/workload-price.ts), so the evidence shown is what priced it.
import { findEdge, type TenantGraph } from '../graph/model.js';
import type { EdgeType } from '../graph/vocabulary.js';

export interface HopEvidence {
  kind: 'cve' | 'weakness' | 'runtime' | 'rule';
  name: string;
  cvss: number | null;
  epss: number | null;
  kev: boolean | null;
  severity: string | null;
  detail: string | null;
}

/** At most this many findings per hop: the most exploitable first. */
export const MAX_FINDINGS_PER_HOP = 10;

const text = (value: unknown): string =>
  Array.isArray(value)
    ? value.map(text).join(', ')
    : typeof value === 'object' && value !== null
      ? JSON.stringify(value)
      : String(value);

function finding(
  kind: 'cve' | 'weakness',
  name: string,
  props: Record<string, unknown>,
  via: string,
): HopEvidence {
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);
  return {
    kind,
    name,
    cvss: num(props.cvss_score),
    epss: num(props.epss),
    kev: typeof props.kev === 'boolean' ? props.kev : null,
    severity: typeof props.severity === 'string' ? props.severity : null,
    detail: [typeof props.title === 'string' ? props.title : null, `in ${via}`].filter(Boolean).join(' — '),
  };
}

const rank = (e: HopEvidence) => (e.kev ? 3 : 0) + (e.epss ?? 0) + (e.cvss ?? 0) / 10;

export function hopEvidence(
  graph: TenantGraph,
  hop: { from: string; to: string; type: string },
): HopEvidence[] {
  const out: HopEvidence[] = [];
  if (!graph.hasNode(hop.from) || !graph.hasNode(hop.to)) return out;
  // A hop the graph no longer holds (a route stored before a retraction) stands on nothing shown here.
  const edge = findEdge(graph, hop.type as EdgeType, hop.from, hop.to);
  if (!edge) return out;
  const props = graph.getEdgeAttributes(edge).props ?? {};
  for (const [key, value] of Object.entries(props))
    if (value !== undefined && value !== null) out.push(rule(key, text(value)));
  const target = graph.getNodeAttributes(hop.to);
  const findings: HopEvidence[] = [];
  const affecting = (node: string) => {
    const via = graph.getNodeAttributes(node).name;
    graph.forEachInEdge(node, (_key, attrs, _source, _target, source) => {
      if (attrs.type !== 'AFFECTS') return;
      if (source.label === 'CVE') findings.push(finding('cve', source.name, source.props, via));
      else if (source.label === 'Weakness')
        findings.push(finding('weakness', source.name, source.props, via));
    });
  };
  if (target.label === 'Service')
    graph.forEachOutEdge(hop.to, (_key, attrs, _source, image, _sa, imageAttrs) => {
      if (attrs.type !== 'DEPENDS_ON' || imageAttrs.label !== 'Image') return;
      affecting(image);
      graph.forEachOutEdge(image, (_k, a, _s, repository, _s2, repoAttrs) => {
        if (a.type === 'BUILT_FROM' && repoAttrs.label === 'Repository') affecting(repository);
      });
    });
  out.push(...findings.sort((a, b) => rank(b) - rank(a)).slice(0, MAX_FINDINGS_PER_HOP));
  if (target.props.runtime_observed === true) {
    const p = target.props;
    out.push({
      kind: 'runtime',
      name: Array.isArray(p.runtime_rules) ? p.runtime_rules.map(String).join(', ') : 'runtime alert',
      cvss: null,
      epss: null,
      kev: null,
      severity: typeof p.runtime_priority === 'string' ? p.runtime_priority : null,
      detail:
        [
          typeof p.runtime_alert_count === 'number' ? `${p.runtime_alert_count} alerts` : null,
          typeof p.runtime_last_alert === 'string' ? `last ${p.runtime_last_alert}` : null,
        ]
          .filter(Boolean)
          .join(', ') || null,
    });
  }
  return out;
}

function rule(name: string, detail: string): HopEvidence {
  return { kind: 'rule', name, cvss: null, epss: null, kev: null, severity: null, detail };
}
