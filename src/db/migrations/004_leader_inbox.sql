-- Work a follower hands to the leader (issue 20): a gate verdict it gave (for the pull request's comment
-- and status) and a GitHub webhook it received. The leader takes rows in order and deletes each once done
-- (src/db/leader-inbox.ts); rows wait here while no replica leads.
create table if not exists leader_inbox (
  id bigserial primary key,
  kind text not null check (kind in ('gate', 'webhook')),
  body jsonb not null,
  handed_by text not null,
  handed_at timestamptz not null default now()
);
