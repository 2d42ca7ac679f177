// A tenant graph's edges as `TYPE from-name -> to-name` lines, for assertions by name on what ingest wrote.
import type { TenantGraph } from '../../src/graph/model.js';

export function edgeLines(graph: TenantGraph): string[] {
  const lines: string[] = [];
  graph.forEachEdge((_e, a, source, target) =>
    lines.push(
      `${a.type} ${graph.getNodeAttribute(source, 'name')} -> ${graph.getNodeAttribute(target, 'name')}`,
    ),
  );
  return lines;
}
