-- Audit retention on the shared chain (AUDIT_RETENTION): the anchor of the pruned records, so the chain
-- left in audit_chain stays verifiable from it (the first record kept names the anchor's hash as prev).
create table if not exists audit_anchor (
  id boolean primary key default true check (id),
  -- the last pruned record
  seq bigint not null,
  hash char(64) not null,
  ts timestamptz not null,
  pruned_at timestamptz not null,
  -- records pruned by this prune and every earlier one
  pruned_total bigint not null
);
