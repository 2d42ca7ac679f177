// Scale-out path lifecycle (src/db/path-records.ts): one replica leads and keeps the path lifecycle every
// replica shows. The leader writes its pass's changed records and its gate verdicts to PostgreSQL; followers
// read them and adopt the leader's records over their own. A replica that has just become leader reads what
// the previous one shared and takes the lifecycle over before it writes anything (`sync`).
import type { SharedPaths } from '../db/path-records.js';
import type { ReportEntry, VerdictStore } from '../gate/verdicts.js';
import type { Log } from '../log/logger.js';
import { plain, type FrozenRoute, type PathRecord } from '../paths/path-store.js';
import type { Leadership } from './leadership.js';
import type { TenantState } from './tenant.js';

type SharedRecord = Omit<PathRecord, 'route'> & { route: FrozenRoute };

/** What a round of passes does after `sync`: see PathSharing.sync. */
export type SharingRole = 'follower' | 'leader' | 'took-over' | 'wait' | undefined;

export interface PathSharing {
  /**
   * Before a round of passes: a follower reads the leader's newer records; a replica that has just become
   * leader reads them too and takes the whole lifecycle over (its records become the previous leader's,
   * its own only where the leader kept none), then every tenant is analysed from there. 'wait': it leads
   * but could not read PostgreSQL, so no pass runs that would count transitions from the wrong state.
   * Undefined without shared path records.
   */
  sync(): Promise<SharingRole>;
  /**
   * A pass's changed records (PathStore.takeChanges), once logged: the leader shares them before the pass's
   * events go out; a follower's own pass does not move the lifecycle the leader keeps (it adopts the
   * leader's record of each).
   */
  passChanged(state: TenantState, changes: object[]): Promise<void>;
  /** Gate verdicts this replica recorded or was handed: the leader shares them. */
  verdictsRecorded(reports: ReportEntry[]): Promise<void>;
}

const SHARED_PAGE = 5_000;

export function createPathSharing(deps: {
  shared: SharedPaths | undefined;
  leadership: Leadership;
  tenant: (name: string) => TenantState;
  tenants: () => Iterable<TenantState>;
  verdicts: VerdictStore;
  log: Log;
}): PathSharing {
  const { shared, leadership, tenant, verdicts, log } = deps;
  // `leading`: this replica leads and has taken over the lifecycle the previous leader shared; until then,
  // even holding the lock, it writes nothing.
  let leading = false;
  const sharing = () => leading && leadership.isLeader();
  let pathCursor = 0;
  let reportCursor = 0;
  /** tenant -> path id -> the leader's record as last read */
  const leaderView = new Map<string, Map<string, SharedRecord>>();
  /** The leader's writes not yet in PostgreSQL (tried again before every pass and gate verdict). */
  const unsent = new Map<string, Map<string, SharedRecord>>();
  const unsentReports: ReportEntry[] = [];
  const unsentPaths = (tenantName: string) => {
    let held = unsent.get(tenantName);
    if (!held) unsent.set(tenantName, (held = new Map()));
    return held;
  };

  /** Reads what the leader wrote since the last read: path records into the view (adopted), gate reports. */
  async function pull(shared: SharedPaths): Promise<void> {
    for (;;) {
      const rows = await shared.pathsSince(pathCursor, SHARED_PAGE);
      for (const row of rows) {
        const record = row.value as SharedRecord;
        let view = leaderView.get(row.tenant);
        if (!view) leaderView.set(row.tenant, (view = new Map()));
        view.set(record.id, record);
        tenant(row.tenant).paths.adopt(record);
        pathCursor = row.version;
      }
      if (rows.length < SHARED_PAGE) break;
    }
    for (;;) {
      const rows = await shared.reportsSince(reportCursor, SHARED_PAGE);
      for (const row of rows) {
        verdicts.adopt(row.value as ReportEntry);
        reportCursor = row.version;
      }
      if (rows.length < SHARED_PAGE) break;
    }
  }

  async function flush(): Promise<void> {
    if (!shared || !sharing()) return;
    // Taken out before the write (a gate verdict may flush while a pass does), put back if it fails.
    for (const [tenantName, records] of [...unsent]) {
      unsent.delete(tenantName);
      try {
        await shared.writePaths(tenantName, [...records.values()]);
      } catch (error) {
        const held = unsentPaths(tenantName);
        // A newer change of a record queued meanwhile wins over the one that failed.
        for (const [id, record] of records) if (!held.has(id)) held.set(id, record);
        log.error({ err: error, tenant: tenantName }, 'could not share path records; trying again later');
        return;
      }
    }
    const reports = unsentReports.splice(0);
    if (!reports.length) return;
    try {
      await shared.writeReports(reports);
    } catch (error) {
      unsentReports.unshift(...reports);
      log.error({ err: error }, 'could not share gate verdicts; trying again later');
    }
  }

  return {
    async sync() {
      if (!shared) return undefined;
      const lock = leadership.isLeader();
      if (!lock) leading = false;
      if (leading) {
        await flush();
        return 'leader';
      }
      try {
        await pull(shared);
      } catch (error) {
        log.error({ err: error }, 'could not read the shared path records');
        return lock ? 'wait' : 'follower';
      }
      if (!lock) return 'follower';
      for (const [tenantName, view] of leaderView) {
        const state = tenant(tenantName);
        for (const record of view.values()) state.paths.restore({ ...record });
      }
      for (const state of deps.tenants()) {
        const view = leaderView.get(state.name);
        for (const record of state.paths.all())
          if (!view?.has(record.id)) unsentPaths(state.name).set(record.id, plain(record) as SharedRecord);
      }
      leading = true;
      log.info({ tenants: leaderView.size }, 'took over the path lifecycle the previous leader shared');
      return 'took-over';
    },

    async passChanged(state, changes) {
      if (!shared) return;
      const records = changes.filter((c): c is SharedRecord => 'id' in c);
      if (sharing()) {
        for (const record of records) unsentPaths(state.name).set(record.id, record);
        await flush();
      } else {
        const view = leaderView.get(state.name);
        if (view)
          for (const record of records) {
            const theirs = view.get(record.id);
            if (theirs) state.paths.adopt(theirs);
          }
      }
    },

    async verdictsRecorded(reports) {
      if (!shared || !sharing()) return;
      unsentReports.push(...reports);
      await flush();
    },
  };
}
