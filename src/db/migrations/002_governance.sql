-- GOVERNANCE_BACKEND=postgres (issue 20): suppressions, validation verdicts, tickets and the posture history
-- of every tenant, shared by the replicas (src/governance/pg-store.ts).

-- One row per record: (tenant, kind, key) where the key is the suppression's path id, the ticket's or the
-- verdict's id, the history point's time. `doc` is the record's JSON, sealed (enc1:...) with
-- STORE_ENCRYPTION_KEY when it is set. `position` keeps the order records were first written in.
create table if not exists governance_records (
  tenant text not null,
  kind text not null check (kind in ('suppressions', 'validations', 'tickets', 'history')),
  key text not null,
  position bigserial not null,
  doc text not null,
  primary key (tenant, kind, key)
);
create index if not exists governance_records_order on governance_records (tenant, kind, position);

-- One row per (tenant, kind): its revision grows with every write. A write locks this row first, so writes
-- of one tenant and kind take turns across replicas; replicas compare revisions to know their copy is current.
create table if not exists governance_revisions (
  tenant text not null,
  kind text not null,
  revision bigint not null default 0,
  primary key (tenant, kind)
);
