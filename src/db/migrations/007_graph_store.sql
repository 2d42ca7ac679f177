-- The tenant graph in PostgreSQL (the spec's graph store, issue 35): what the opt-in database path finder
-- (ANALYZER_DB_PATHS, src/db/db-path-finder.ts) searches with a recursive query. Written from the
-- analyzer's compiled graph after each pass's sync (src/db/graph-store.ts), so every hop carries the price
-- the in-process finder uses: p, its cost -ln p, and the integer search cost (units of 2^-36 nat, plus one
-- per hop; src/analysis/compiled-graph.ts), which makes sums exact and ties the same as in-process.

create table if not exists graph_nodes (
  tenant text not null,
  id text not null,
  label text not null,
  -- 1 start, 2 target, 4 direct-access target (src/analysis/compiled-graph.ts roleOf)
  roles smallint not null,
  primary key (tenant, id)
);

create table if not exists graph_edges (
  tenant text not null,
  -- `<type>|<from>|<to>` (src/graph/model.ts GraphChanges)
  key text not null,
  src text not null,
  dst text not null,
  type text not null,
  p double precision not null,
  -- -ln p; 'Infinity' for p = 0
  cost double precision not null,
  -- search cost; null when the hop is not traversable (p = 0)
  units bigint,
  primary key (tenant, key)
);
create index if not exists graph_edges_out on graph_edges (tenant, src) include (dst, units) where units is not null;
create index if not exists graph_edges_in on graph_edges (tenant, dst) include (src, units) where units is not null;
create index if not exists graph_edges_by_dst on graph_edges (tenant, dst);

-- One row per tenant: `generation` goes up with every write. A writer that finds another generation than
-- the one it wrote last (another replica led meanwhile, or the rows were touched by hand) rewrites the
-- tenant in full: the store is stale for it.
create table if not exists graph_store_state (
  tenant text primary key,
  generation bigint not null,
  nodes integer not null,
  edges integer not null,
  written_at timestamptz not null default now()
);
