-- Scale-out (issue 20): graph snapshots replicas start from, and the shared audit chain.
-- Tables are created in the first schema of the connection's search_path.

create table if not exists graph_snapshots (
  id bigserial primary key,
  -- the bus stream sequence the snapshot covers: a replica starting from it reads the stream after it
  seq bigint not null,
  format integer not null,
  written_at timestamptz not null default now(),
  meta jsonb not null,
  -- the snapshot's NDJSON lines, gzip-compressed
  body bytea not null,
  lines integer not null
);
create index if not exists graph_snapshots_seq on graph_snapshots (seq desc);

create table if not exists audit_chain (
  seq bigint primary key,
  ts timestamptz not null,
  -- the record exactly as hashed (sealed with STORE_ENCRYPTION_KEY when set), one line of the file format
  line text not null,
  hash char(64) not null
);
