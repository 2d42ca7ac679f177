// /paths: every path of the caller, drawn through a virtualised list. State and application are filtered
// by the API (the list reloads); the other filters and the sort work on the loaded rows.
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useMemo, useRef, useState } from 'react';
import { duration, num, pct } from '../format';
import { watchPaths, type PathList, type PathRow } from '../paths-data';
import { Link, navigate, useLocation } from '../router';
import { useSession } from '../session';

type SortKey = 'score' | 'priority' | 'start' | 'target' | 'open';

interface Filters {
  state: string;
  priority: string;
  start: string;
  target: string;
  label: string;
  kev: boolean;
  runtime: boolean;
  suppressed: string;
  application: string;
  sort: SortKey;
}

function filtersOf(search: string): Filters {
  const q = new URLSearchParams(search);
  return {
    state: q.get('state') ?? 'OPEN',
    priority: q.get('priority') ?? '',
    start: q.get('start') ?? '',
    target: q.get('target') ?? '',
    label: q.get('label') ?? '',
    kev: q.get('kev') === '1',
    runtime: q.get('runtime') === '1',
    suppressed: q.get('suppressed') ?? '',
    application: q.get('application') ?? '',
    sort: (q.get('sort') as SortKey) ?? 'score',
  };
}

function searchOf(f: Filters): string {
  const q = new URLSearchParams();
  if (f.state !== 'OPEN') q.set('state', f.state);
  for (const key of ['priority', 'start', 'target', 'label', 'suppressed', 'application'] as const)
    if (f[key]) q.set(key, f[key]);
  if (f.kev) q.set('kev', '1');
  if (f.runtime) q.set('runtime', '1');
  if (f.sort !== 'score') q.set('sort', f.sort);
  const text = q.toString();
  return text ? `?${text}` : '';
}

const SORTS: Record<SortKey, (a: PathRow, b: PathRow) => number> = {
  score: (a, b) => b.score - a.score,
  priority: (a, b) => a.priority.localeCompare(b.priority) || b.score - a.score,
  start: (a, b) => a.start.name.localeCompare(b.start.name),
  target: (a, b) => a.target.name.localeCompare(b.target.name),
  open: (a, b) => b.openForSeconds - a.openForSeconds,
};

export function PathsPage() {
  const { search } = useLocation();
  const filters = filtersOf(search);
  const [list, setList] = useState<PathList>({ rows: [], total: null, done: false });
  useEffect(
    () => watchPaths(filters.state, filters.application, setList),
    [filters.state, filters.application],
  );
  const me = useSession().me;
  const set = (change: Partial<Filters>) =>
    navigate(`/paths${searchOf({ ...filters, ...change })}`, { replace: true });

  const shown = useMemo(() => {
    const start = filters.start.toLowerCase();
    const target = filters.target.toLowerCase();
    const rows = list.rows.filter(
      (r) =>
        (!filters.priority || r.priority === filters.priority) &&
        (!start || r.start.name.toLowerCase().includes(start)) &&
        (!target || r.target.name.toLowerCase().includes(target)) &&
        (!filters.label || r.nodes.some((n) => n.label === filters.label)) &&
        (!filters.kev || r.steps.some((s) => s.weightBasis === 'kev')) &&
        (!filters.runtime || r.steps.some((s) => s.weightBasis === 'runtime')) &&
        (!filters.suppressed || (filters.suppressed === 'yes') === (r.suppression?.state === 'active')),
    );
    return filters.sort === 'score' ? rows : [...rows].sort(SORTS[filters.sort]);
  }, [list, search]);

  const labels = useMemo(
    () => [...new Set(list.rows.flatMap((r) => r.nodes.map((n) => n.label)))].sort(),
    [list],
  );
  // The applications the loaded paths belong to, the chosen one, and the credential's own.
  const applications = useMemo(() => {
    const all = new Set<string>(me?.apps ?? []);
    for (const r of list.rows) for (const a of r.applications) all.add(a);
    if (filters.application) all.add(filters.application);
    return [...all].sort();
  }, [list, filters.application, me]);
  const scroller = useRef<HTMLDivElement>(null);
  const virtual = useVirtualizer({
    count: shown.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => 36,
    overscan: 12,
  });

  return (
    <section>
      <h1>Attack paths</h1>
      <form className="filters" aria-label="Filter paths" onSubmit={(e) => e.preventDefault()}>
        <label>
          State
          <select value={filters.state} onChange={(e) => set({ state: e.target.value })}>
            <option value="OPEN">open</option>
            <option value="RESOLVED">resolved</option>
            <option value="ALL">all</option>
          </select>
        </label>
        <label>
          Priority
          <select value={filters.priority} onChange={(e) => set({ priority: e.target.value })}>
            <option value="">any</option>
            <option>P1</option>
            <option>P2</option>
            <option>P3</option>
          </select>
        </label>
        <label>
          Start
          <input
            value={filters.start}
            onChange={(e) => set({ start: e.target.value })}
            placeholder="name contains"
          />
        </label>
        <label>
          Target
          <input
            value={filters.target}
            onChange={(e) => set({ target: e.target.value })}
            placeholder="name contains"
          />
        </label>
        <label>
          Node label
          <select value={filters.label} onChange={(e) => set({ label: e.target.value })}>
            <option value="">any</option>
            {labels.map((l) => (
              <option key={l}>{l}</option>
            ))}
          </select>
        </label>
        <label>
          Application
          <select value={filters.application} onChange={(e) => set({ application: e.target.value })}>
            <option value="">any</option>
            {applications.map((a) => (
              <option key={a}>{a}</option>
            ))}
          </select>
        </label>
        <label>
          Suppressed
          <select value={filters.suppressed} onChange={(e) => set({ suppressed: e.target.value })}>
            <option value="">either</option>
            <option value="yes">yes</option>
            <option value="no">no</option>
          </select>
        </label>
        <label className="check">
          <input type="checkbox" checked={filters.kev} onChange={(e) => set({ kev: e.target.checked })} /> KEV
          on route
        </label>
        <label className="check">
          <input
            type="checkbox"
            checked={filters.runtime}
            onChange={(e) => set({ runtime: e.target.checked })}
          />{' '}
          runtime-confirmed
        </label>
        <label>
          Sort by
          <select value={filters.sort} onChange={(e) => set({ sort: e.target.value as SortKey })}>
            <option value="score">score</option>
            <option value="priority">priority</option>
            <option value="start">start</option>
            <option value="target">target</option>
            <option value="open">open longest</option>
          </select>
        </label>
      </form>
      <p className="count" aria-live="polite" data-testid="path-count">
        {num(shown.length)} of {num(list.rows.length)} paths
        {list.done ? '' : ` (loading… ${list.total === null ? '' : `${num(list.total)} in all`})`}
      </p>
      {list.error && (
        <p role="alert" className="error">
          {list.error}
        </p>
      )}
      <div className="table-head" role="presentation">
        <span>Priority</span>
        <span>Score</span>
        <span>Start</span>
        <span>Target</span>
        <span>Hops</span>
        <span>Open for</span>
      </div>
      <div ref={scroller} className="virtual" data-testid="path-list" tabIndex={0} aria-label="Paths">
        <ul style={{ height: virtual.getTotalSize() }}>
          {virtual.getVirtualItems().map((item) => {
            const r = shown[item.index];
            return (
              <li
                key={r.id}
                data-index={item.index}
                className="row"
                style={{ transform: `translateY(${item.start}px)` }}
              >
                <span className={`badge ${r.priority}`}>
                  {r.priority}
                  {r.critical ? ' critical' : ''}
                  {r.suppression?.state === 'active' ? ' suppressed' : ''}
                </span>
                <span>{pct(r.score)}</span>
                <Link href={`/paths/${r.id}`}>{r.start.name}</Link>
                <span>{r.target.name}</span>
                <span>{r.directAccess ? 'direct' : r.steps.length}</span>
                <span>{duration(r.openForSeconds)}</span>
              </li>
            );
          })}
        </ul>
      </div>
    </section>
  );
}
