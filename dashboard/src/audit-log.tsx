// Governance → Audit log (admins only; GET /audit): the chain's records newest first, filtered by action,
// paged, with whether the chain verifies.
import { useState } from 'react';
import { rest } from './api';
import { day } from './format';
import { useLoad } from './session';

const ACTIONS = [
  'request',
  'auth.deny',
  'auth.lockout.alert',
  'ingest.accepted',
  'view.attack_paths',
  'view.graph',
  'export.oscal',
  'export.ndjson',
  'exfil.alert',
  'audit.pruned',
  'forge.refused',
];

interface AuditPage {
  backend: string;
  chain: {
    ok: boolean;
    records: number;
    prunedThrough?: number;
    line?: number;
    seq?: number | null;
    problem?: string;
  };
  totalCount: number;
  entries: {
    seq: number;
    at: string;
    action: string;
    actor: string;
    tenant: string | null;
    target: string | null;
  }[];
  pageInfo: { hasNextPage: boolean; endCursor: number | null };
}

export function AuditLogSection() {
  const [action, setAction] = useState('');
  // the cursors of the pages before this one, so "Newer" can go back
  const [cursors, setCursors] = useState<(number | null)[]>([null]);
  const after = cursors.at(-1) ?? null;
  const page = useLoad(() => {
    const q = new URLSearchParams({ first: '50' });
    if (action) q.set('action', action);
    if (after !== null) q.set('after', String(after));
    return rest<AuditPage>('GET', `/audit?${q}`);
  }, [action, after]);
  const p = page.data;
  return (
    <section aria-labelledby="audit-heading" data-testid="audit-log">
      <h2 id="audit-heading">Audit log</h2>
      {p && (
        <p data-testid="audit-chain" className={p.chain.ok ? '' : 'error'}>
          {p.chain.ok
            ? `The chain verifies: ${p.chain.records === undefined ? 'intact' : `${p.chain.records} records intact`} (${p.backend})${
                p.chain.prunedThrough ? `, pruned through ${p.chain.prunedThrough}` : ''
              }.`
            : `The chain is broken at record ${p.chain.seq ?? '?'} (line ${p.chain.line}): ${p.chain.problem}.`}
        </p>
      )}
      <form className="filters" aria-label="Filter the audit log" onSubmit={(e) => e.preventDefault()}>
        <label>
          Action
          <select
            value={action}
            onChange={(e) => {
              setAction(e.target.value);
              setCursors([null]);
            }}
          >
            <option value="">any</option>
            {ACTIONS.map((a) => (
              <option key={a}>{a}</option>
            ))}
          </select>
        </label>
      </form>
      {page.error && (
        <p role="alert" className="error">
          {page.error}
        </p>
      )}
      {p && !p.entries.length && <p>No record.</p>}
      {!!p?.entries.length && (
        <table>
          <thead>
            <tr>
              <th scope="col">#</th>
              <th scope="col">Time</th>
              <th scope="col">Action</th>
              <th scope="col">Actor</th>
              <th scope="col">Target</th>
            </tr>
          </thead>
          <tbody>
            {p.entries.map((e) => (
              <tr key={e.seq}>
                <td>{e.seq}</td>
                <td>{day(e.at)}</td>
                <td>{e.action}</td>
                <td>{e.actor}</td>
                <td>{e.target ?? '–'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {p && (
        <p>
          {p.totalCount} records{action ? ` of ${action}` : ''}.{' '}
          {cursors.length > 1 && (
            <button type="button" onClick={() => setCursors((c) => c.slice(0, -1))}>
              Newer
            </button>
          )}{' '}
          {p.pageInfo.hasNextPage && (
            <button type="button" onClick={() => setCursors((c) => [...c, p.pageInfo.endCursor])}>
              Older
            </button>
          )}
        </p>
      )}
    </section>
  );
}
