// Governance: suppressions (expiring soonest first), tickets, validations with the calibration chart, and
// the signed exports with how to verify them; for admins, the audit log.
import { useState } from 'react';
import { download, gql, rest } from '../api';
import { day, pct } from '../format';
import { CalibrationChart } from '../charts';
import { Link } from '../router';
import { useLoad, useSession } from '../session';
import { AuditLogSection } from '../audit-log';

interface Suppression {
  pathId: string;
  reason: string;
  owner: string;
  expiresAt: string;
  state: string;
  route?: { start: string; target: string };
}
interface Ticket {
  id: string;
  pathId: string;
  owner: string;
  state: string;
  openedAt?: string;
}
interface Verdict {
  pathId: string | null;
  outcome: string;
  source: string;
  recordedAt?: string;
}
interface Calibration {
  calibration: {
    scored: number;
    brierScore: number | null;
    ece: number | null;
    diagnosis: string | null;
    diagnosisDetail: string;
    reliability: {
      from: number;
      to: number;
      count: number;
      meanPredicted: number | null;
      observedRate: number | null;
    }[];
  };
}

export function GovernancePage() {
  const suppressions = useLoad(() => rest<{ suppressions: Suppression[] }>('GET', '/suppressions'), []);
  const tickets = useLoad(() => rest<{ tickets: Ticket[] }>('GET', '/tickets'), []);
  const validations = useLoad(() => rest<{ verdicts: Verdict[] }>('GET', '/validations'), []);
  const calibration = useLoad(
    () =>
      gql<Calibration>(`{ calibration { scored brierScore ece diagnosis diagnosisDetail
        reliability { from to count meanPredicted observedRate } } }`),
    [],
  );
  const c = calibration.data?.calibration;
  const me = useSession().me;
  // The audit log is the admins' (GET /audit refuses anyone else, and a credential bound to applications).
  const auditor = me?.role === 'admin' && !me.anonymous && !me.apps;
  return (
    <section>
      <h1>Governance</h1>
      <h2>Suppressions, expiring soonest first</h2>
      {suppressions.error && <p className="error">{suppressions.error}</p>}
      {suppressions.data && !suppressions.data.suppressions.length && <p>No suppression.</p>}
      {!!suppressions.data?.suppressions.length && (
        <table data-testid="suppressions">
          <thead>
            <tr>
              <th scope="col">Path</th>
              <th scope="col">Reason</th>
              <th scope="col">Owner</th>
              <th scope="col">Expires</th>
              <th scope="col">State</th>
            </tr>
          </thead>
          <tbody>
            {suppressions.data.suppressions.map((s) => (
              <tr key={s.pathId}>
                <td>
                  <Link href={`/paths/${s.pathId}`}>
                    {s.route ? `${s.route.start} → ${s.route.target}` : s.pathId}
                  </Link>
                </td>
                <td>{s.reason}</td>
                <td>{s.owner}</td>
                <td>{day(s.expiresAt)}</td>
                <td>{s.state}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h2>Tickets</h2>
      {tickets.error && <p className="error">{tickets.error}</p>}
      {tickets.data && !tickets.data.tickets.length && <p>No ticket.</p>}
      {!!tickets.data?.tickets.length && (
        <ul>
          {tickets.data.tickets.map((t) => (
            <li key={t.id}>
              {t.id} · {t.state} · {t.owner} · <Link href={`/paths/${t.pathId}`}>{t.pathId}</Link>
            </li>
          ))}
        </ul>
      )}
      <h2>Validations and calibration</h2>
      {validations.error && <p className="error">{validations.error}</p>}
      {validations.data && (
        <p>
          {validations.data.verdicts.length} red-team or BAS verdicts recorded
          {c ? `; ${c.scored} scored, Brier ${c.brierScore?.toFixed(3) ?? '–'}, ECE ${pct(c.ece)}` : ''}.
          {c?.diagnosis ? ` Diagnosis: ${c.diagnosis}. ${c.diagnosisDetail}` : ''}
        </p>
      )}
      {c && <CalibrationChart bins={c.reliability} />}
      <Exports />
      {auditor && <AuditLogSection />}
    </section>
  );
}

function Exports() {
  const [last, setLast] = useState<{ name: string; signature: string } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const save = async (path: string, name: string) => {
    setError(null);
    try {
      const { blob, headers } = await download(path);
      const url = URL.createObjectURL(blob);
      const a = document.createElement('a');
      a.href = url;
      a.download = name;
      a.click();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
      setLast({ name, signature: headers.get('x-service-signature') ?? '(no signature header)' });
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  };
  return (
    <>
      <h2>Exports</h2>
      <p>
        <button type="button" onClick={() => void save('/export/ndjson', 'paths.ndjson')}>
          Download NDJSON
        </button>{' '}
        <button type="button" onClick={() => void save('/export/oscal', 'assessment-results.json')}>
          Download OSCAL
        </button>{' '}
        <button type="button" onClick={() => void save('/export/pubkey', 'pubkey.json')}>
          Download the public key
        </button>
      </p>
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
      {last && (
        <p data-testid="signature">
          Signature of {last.name}: <code>{last.signature}</code>
        </p>
      )}
      <p>
        Each export is signed with the service's Ed25519 key. Save the signature next to the file (
        <code>{last ? last.name : 'paths.ndjson'}.sig</code>) and check it:
      </p>
      <pre>npx pathgate verify-export {last ? last.name : 'paths.ndjson'} paths.sig -pubkey pubkey.json</pre>
    </>
  );
}
