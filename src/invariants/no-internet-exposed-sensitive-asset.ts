// Policy invariant `no-internet-exposed-sensitive-asset` (CRITICAL): a crown jewel must not itself be
// reachable from the internet. Each node that is both `internet_exposed` and `crown_jewel` violates it.
import type { GraphView, NodeAttributes } from '../graph/model.js';
import type { Violation } from './violation.js';

export const NO_INTERNET_EXPOSED_SENSITIVE_ASSET = 'no-internet-exposed-sensitive-asset';

export function internetExposedSensitiveAssets(graph: GraphView): Violation[] {
  const out: Violation[] = [];
  graph.forEachNode((id, attrs) => {
    const violation = exposedSensitiveAsset(id, attrs);
    if (violation) out.push(violation);
  });
  return out;
}

/** The violation one node is, if it is both `internet_exposed` and `crown_jewel` (the gate asks per node). */
export function exposedSensitiveAsset(id: string, attrs: NodeAttributes): Violation | undefined {
  if (attrs.props.internet_exposed !== true || attrs.props.crown_jewel !== true) return undefined;
  const why = [attrs.props.exposure_basis, attrs.props.crown_jewel_basis].filter(
    (x) => typeof x === 'string',
  );
  return {
    id: `${NO_INTERNET_EXPOSED_SENSITIVE_ASSET}:${id}`,
    invariant: NO_INTERNET_EXPOSED_SENSITIVE_ASSET,
    severity: 'CRITICAL',
    nodeId: id,
    detail: `${attrs.label} ${attrs.name} is a crown jewel reachable from the internet${why.length ? ` (${why.join('; ')})` : ''}`,
  };
}
