-- Issue 31 item 6. GitHub deliveries already handled, by X-GitHub-Delivery, so a replay is answered
-- without being handled again (app/github/delivery-dedupe.ts keeps the newest WEBHOOK_DELIVERY_MEMORY).
-- And a MAC on each leader_inbox row (src/db/inbox-mac.ts): a row written straight into PostgreSQL, without
-- the key the replicas share, is refused by the leader; rows from before this migration carry none.
create table if not exists github_deliveries (
  id text primary key,
  received_at timestamptz not null default now()
);
create index if not exists github_deliveries_received_at on github_deliveries (received_at);

alter table leader_inbox add column if not exists mac text;
