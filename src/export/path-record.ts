// One attack path as exports write it (an NDJSON line, an OSCAL observation's source): the record, its
// route, whether it is critical under the one definition, and the suppression that holds, if any.
import { routeNodes, routeSteps, type PathRecord, type SuppressionNote } from '../paths/path-store.js';

export interface ExportedPath {
  id: string;
  state: 'open' | 'resolved';
  score: number;
  logScore: number;
  priority: string;
  critical: boolean;
  directAccess: boolean;
  firstSeen: string;
  openedAt: string;
  resolvedAt: string | null;
  reopens: number;
  suppression: SuppressionNote | null;
  nodes: ReturnType<typeof routeNodes>;
  steps: ReturnType<typeof routeSteps>;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function exportedPath(
  record: PathRecord,
  critical: boolean,
  suppression: SuppressionNote | undefined,
): ExportedPath {
  return {
    id: record.id,
    state: record.state,
    score: record.score,
    logScore: record.logScore,
    priority: record.priority,
    critical,
    directAccess: record.directAccess,
    firstSeen: iso(record.firstSeen)!,
    openedAt: iso(record.openedAt)!,
    resolvedAt: iso(record.resolvedAt),
    reopens: record.reopens,
    suppression: suppression ?? null,
    nodes: routeNodes(record),
    steps: routeSteps(record),
  };
}
