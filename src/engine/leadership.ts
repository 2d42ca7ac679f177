// Which replica runs the action layer (pull-request comments and statuses, Critical Attack Path events,
// connectors): the leader. A single process is its own leader; a PostgreSQL advisory lock will decide
// among replicas (DECISIONS.md, "Scale-out") behind this same interface.

export interface Leadership {
  isLeader(): boolean;
}

export const SINGLE_PROCESS_LEADER: Leadership = Object.freeze({ isLeader: () => true });
