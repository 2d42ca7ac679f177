// Posture drift (spec "Events": drift webhook, leader replica): after each analyzer pass, and on a timer
// (suppressions lapse without a pass), the tenant's critical paths (the one definition, `isCritical`) are
// compared with the last ones seen. When the set changed, a point goes to the posture history
// (HISTORY_PATH) and, when the tenant has a drift URL (DRIFT_WEBHOOK_URL for the default tenant,
// DRIFT_WEBHOOK_URLS for each), one POST describes the change, signed with DRIFT_WEBHOOK_SECRET when set:
//   { event: "posture.drift", tenant, at, criticalPaths: { before, after }, openPaths,
//     opened: [route], cleared: [route & { why }], truncated: { opened, cleared } }
// where a route is { id, start, target, score, priority } and `why` is `resolved` (the path closed),
// `suppressed` or `deprioritized` (no longer P1). The first check after a start sets the baseline and sends
// nothing. Delivery is one attempt with a 5 s timeout, no redirect followed; a failure is logged, never
// retried or thrown.
import type { OutboundWebhook } from '../config/security-settings.js';
import type { Engine } from '../engine/engine.js';
import { postWebhook } from './outbound-webhook.js';
import type { Log } from '../log/logger.js';
import { routeNodes, type PathRecord } from '../paths/path-store.js';
import type { PostureHistory } from './history.js';
import { trendPoint } from '../paths/history.js';

/** At most this many routes in each list of one payload; `truncated` says how many more. */
export const MAX_LISTED = 100;

export interface DriftRoute {
  id: string;
  start: string;
  target: string;
  score: number;
  priority: string;
}

export interface DriftEvent {
  event: 'posture.drift';
  tenant: string;
  at: string;
  criticalPaths: { before: number; after: number };
  openPaths: number;
  opened: DriftRoute[];
  cleared: (DriftRoute & { why: 'resolved' | 'suppressed' | 'deprioritized' })[];
  truncated: { opened: number; cleared: number };
}

export interface DriftMonitor {
  /** Compares the tenant's critical paths with the last check; sends and records a change. */
  check(tenant: string): Promise<DriftEvent | undefined>;
}

function route(record: PathRecord): DriftRoute {
  const nodes = routeNodes(record);
  return {
    id: record.id,
    start: nodes[0].name,
    target: nodes.at(-1)!.name,
    score: record.score,
    priority: record.priority,
  };
}

export function createDriftMonitor(deps: {
  engine: Engine;
  history: PostureHistory;
  log: Log;
  now: () => number;
  /** DRIFT_WEBHOOK_URL(S), DRIFT_WEBHOOK_SECRET: each tenant's drift to its own URL only, signed */
  webhook?: OutboundWebhook;
}): DriftMonitor {
  const last = new Map<string, Set<string>>();
  return {
    async check(tenantName) {
      const state = deps.engine.tenant(tenantName);
      if (!state) return undefined;
      const open = state.paths.open();
      const critical = new Set<string>();
      let suppressed = 0;
      for (const record of open) {
        if (deps.engine.isCritical(tenantName, record)) critical.add(record.id);
        else if (record.priority === 'P1') suppressed++;
      }
      const at = new Date(deps.now()).toISOString();
      // A point the store cannot take now (PostgreSQL down) is skipped; the next change records one.
      await deps.history
        .record(tenantName, {
          at,
          criticalPaths: critical.size,
          openPaths: open.length,
          suppressedPaths: suppressed,
          riskPct: trendPoint(deps.now(), open).riskPct,
        })
        .catch((error: unknown) =>
          deps.log.warn(
            { tenant: tenantName, err: (error as Error).message },
            'posture history: point not recorded',
          ),
        );
      const before = last.get(tenantName);
      last.set(tenantName, critical);
      if (!before) return undefined;
      const opened = [...critical].filter((id) => !before.has(id));
      const cleared = [...before].filter((id) => !critical.has(id));
      if (!opened.length && !cleared.length) return undefined;
      const event: DriftEvent = {
        event: 'posture.drift',
        tenant: tenantName,
        at,
        criticalPaths: { before: before.size, after: critical.size },
        openPaths: open.length,
        opened: opened.slice(0, MAX_LISTED).map((id) => route(state.paths.get(id)!)),
        cleared: cleared.slice(0, MAX_LISTED).flatMap((id) => {
          const record = state.paths.get(id);
          if (!record) return [];
          const why =
            record.state === 'resolved'
              ? ('resolved' as const)
              : record.priority === 'P1'
                ? ('suppressed' as const)
                : ('deprioritized' as const);
          return [{ ...route(record), why }];
        }),
        truncated: {
          opened: Math.max(0, opened.length - MAX_LISTED),
          cleared: Math.max(0, cleared.length - MAX_LISTED),
        },
      };
      deps.log.info(
        { tenant: tenantName, opened: opened.length, cleared: cleared.length },
        'posture drift: critical paths changed',
      );
      const url = deps.webhook?.urls.get(tenantName);
      if (url) await send(url, event, deps.log, deps.webhook?.secret, deps.now());
      return event;
    },
  };
}

async function send(url: string, event: DriftEvent, log: Log, secret: string | undefined, now: number) {
  const sent = await postWebhook(url, JSON.stringify(event), { secret, now });
  if (sent.status === null)
    log.warn({ tenant: event.tenant, err: sent.error }, 'drift webhook could not be reached');
  else if (sent.error)
    log.warn(
      { tenant: event.tenant, status: sent.status, err: sent.error },
      'drift webhook answered with an error',
    );
}
