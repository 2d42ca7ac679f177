// Policy invariants: rules the estate must keep whatever the paths say. One file per invariant; this table
// runs them all over a tenant's graph.
import type { GraphView } from '../graph/model.js';
import { internetExposedSensitiveAssets } from './no-internet-exposed-sensitive-asset.js';
import { internetToUnsignedImage } from './no-internet-to-unsigned-image.js';

export interface Violation {
  /** stable: `<invariant>:<node id>` */
  id: string;
  invariant: string;
  severity: 'CRITICAL' | 'HIGH' | 'MEDIUM' | 'LOW';
  nodeId: string;
  detail: string;
}

const INVARIANTS: readonly ((graph: GraphView) => Violation[])[] = [
  internetExposedSensitiveAssets,
  internetToUnsignedImage,
];

export function violationsOf(graph: GraphView): Violation[] {
  return INVARIANTS.flatMap((check) => check(graph)).sort((a, b) => (a.id < b.id ? -1 : 1));
}
