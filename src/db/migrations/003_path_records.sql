-- Path lifecycle and gate verdicts shared by the replicas (issue 20): the leader writes, followers read
-- (src/db/path-records.ts). `version` comes from a sequence, so a reader asks for what is newer than the
-- last version it read.

create sequence if not exists path_records_version;
create table if not exists path_records (
  tenant text not null,
  id text not null,
  state text not null,
  first_seen bigint not null,
  reopens integer not null,
  -- the record as the path lifecycle log writes it (route frozen)
  record jsonb not null,
  version bigint not null,
  primary key (tenant, id)
);
create index if not exists path_records_by_version on path_records (version);

create sequence if not exists gate_reports_version;
create table if not exists gate_reports (
  tenant text not null,
  sha text not null,
  -- `<source>|<artifact>` (src/gate/verdicts.ts): a newer report of the same key replaces the older
  key text not null,
  decided_at text not null,
  entry jsonb not null,
  version bigint not null,
  primary key (tenant, sha, key, decided_at)
);
create index if not exists gate_reports_by_version on gate_reports (version);
