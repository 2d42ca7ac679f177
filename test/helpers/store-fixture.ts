// What the store-upgrade fixture (fixtures/stores/format-1/) records of a tenant, computed the same way by
// the code that made it (scripts/make-store-fixture.ts) and by the code that opens it
// (test/engine/store-upgrade.test.ts): the graph's counts and digests through the narrow graph API, the
// parked edges, the scope ledger as stored, and the open paths.
import type { TenantState } from '../../src/engine/tenant.js';
import { canonical, graphDigests } from './graph-state.js';

export const FIXTURE_TENANT = 'default';
/** The clock the fixture was made at (its reports' receipt times), and that it is opened at. */
export const FIXTURE_MADE_AT = Date.parse('2026-11-28T01:00:00.000Z');

export interface StoreExpectation {
  nodes: number;
  edges: number;
  nodesSha256: string;
  edgesSha256: string;
  pendingEdges: number;
  parked: unknown[];
  scopes: { scopes: [string, string[]][]; asserted: string[] };
  paths: { id: string; startId: string; targetId: string; score: number; priority: string }[];
}

export function describeTenant(state: TenantState): StoreExpectation {
  const scopes = state.writer.serializeScopes();
  return {
    ...graphDigests(state.graph),
    pendingEdges: state.writer.pendingEdges,
    parked: [...state.writer.parkedEntries()]
      .map(([key, entry]) => canonical({ key, edge: entry.edge, receivedAt: entry.receivedAt }))
      .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
    scopes: {
      scopes: scopes.scopes
        .map(([scope, items]): [string, string[]] => [scope, [...items].sort()])
        .sort((a, b) => a[0].localeCompare(b[0])),
      asserted: [...scopes.asserted].sort(),
    },
    paths: state.paths
      .open()
      .map((p) => ({
        id: p.id,
        startId: p.startId,
        targetId: p.targetId,
        score: p.score,
        priority: p.priority,
      }))
      .sort((a, b) => a.id.localeCompare(b.id)),
  };
}
