// /paths/<id>: the route hop by hop with its evidence, the score and its uncertainty, the alternatives,
// the fixes, and what an admin may do about it (suppress, ticket, validation, fix pull request).
import { useState, type FormEvent } from 'react';
import { ApiError, gql, rest } from '../api';
import { day, duration, pct } from '../format';
import { invalidatePaths } from '../paths-data';
import { Link } from '../router';
import { useCanWrite, useLoad } from '../session';

interface Node {
  id: string;
  name: string;
  label: string;
}
interface Evidence {
  kind: string;
  name: string;
  cvss: number | null;
  epss: number | null;
  kev: boolean | null;
  severity: string | null;
  detail: string | null;
}
interface Step {
  from: string;
  to: string;
  type: string;
  probability: number;
  weightBasis: string;
  evidence: Evidence[];
}
interface Path {
  id: string;
  score: number;
  priority: string;
  critical: boolean;
  directAccess: boolean;
  state: string;
  firstSeen: string;
  openForSeconds: number;
  reopens: number;
  resolvedAt: string | null;
  scoreUpperBound: number;
  scoreCiLow: number;
  scoreCiHigh: number;
  posteriorMean: number;
  mixtureScore: number;
  correlatedHops: number;
  profileScores: { profile: string; weight: number; score: number }[];
  suppression: {
    reason: string;
    owner: string;
    note: string | null;
    expiresAt: string;
    state: string;
  } | null;
  nodes: Node[];
  steps: Step[];
  fixes: { id: string; kind: string; title: string; explanation: string; repo: string; branch: string }[];
}

export const PATH_QUERY = `query Path($id: ID!) {
  attackPath(id: $id) {
    id score priority critical directAccess state firstSeen openForSeconds reopens resolvedAt
    scoreUpperBound scoreCiLow scoreCiHigh posteriorMean mixtureScore correlatedHops
    profileScores { profile weight score }
    suppression { reason owner note expiresAt state }
    nodes { id name label }
    steps { from to type probability weightBasis evidence { kind name cvss epss kev severity detail } }
    fixes { id kind title explanation repo branch }
  }
}`;

export function PathPage({ id }: { id: string }) {
  const path = useLoad(() => gql<{ attackPath: Path | null }>(PATH_QUERY, { id }), [id]);
  if (path.loading && !path.data) return <p className="loading">Loading {id}…</p>;
  if (path.error)
    return (
      <section>
        <h1>Attack path {id}</h1>
        <p role="alert" className="error">
          {path.error}
        </p>
      </section>
    );
  const p = path.data?.attackPath;
  if (!p)
    return (
      <section>
        <h1>Attack path not found</h1>
        <p data-testid="not-found">
          There is no attack path {id} that you can see. It may belong to another tenant or application, or
          the id may be wrong.
        </p>
        <Link href="/paths">All paths</Link>
      </section>
    );
  const names = new Map(p.nodes.map((n) => [n.id, n]));
  return (
    <section className="path">
      <h1>
        {p.nodes[0].name} → {p.nodes.at(-1)!.name}
      </h1>
      <p className="meta">
        <span className={`badge ${p.priority}`}>{p.priority}</span>{' '}
        {p.state === 'RESOLVED' ? (
          <strong data-testid="resolved">Resolved {day(p.resolvedAt)}: this route no longer exists.</strong>
        ) : (
          <>
            {p.critical ? <strong>critical</strong> : 'not critical'} · open for {duration(p.openForSeconds)}{' '}
            · first seen {day(p.firstSeen)}
            {p.reopens ? ` · reopened ${p.reopens}×` : ''}
          </>
        )}
        {p.suppression && (
          <span data-testid="suppression">
            {' '}
            · suppression {p.suppression.state}: {p.suppression.reason} by {p.suppression.owner} until{' '}
            {day(p.suppression.expiresAt)}
          </span>
        )}
      </p>
      <div className="cards">
        <div className="card">
          <h2>Score</h2>
          <p className="big">{pct(p.score)}</p>
          <dl>
            <dt>90 % credible interval</dt>
            <dd>
              {pct(p.scoreCiLow)} – {pct(p.scoreCiHigh)}
            </dd>
            <dt>Posterior mean</dt>
            <dd>{pct(p.posteriorMean)}</dd>
            <dt>Attacker-profile mixture</dt>
            <dd>{pct(p.mixtureScore)}</dd>
            <dt>Ceiling (one shared cause)</dt>
            <dd>{pct(p.scoreUpperBound)}</dd>
            <dt>Correlated hops</dt>
            <dd>{p.correlatedHops}</dd>
            {p.profileScores.map((s) => (
              <div key={s.profile}>
                <dt>{s.profile}</dt>
                <dd>{pct(s.score)}</dd>
              </div>
            ))}
          </dl>
        </div>
        <Actions path={p} onChange={path.reload} />
      </div>
      <h2>Route</h2>
      {p.directAccess ? (
        <p>
          {p.nodes[0].name} ({p.nodes[0].label}) is open to anyone as it stands: no steps are needed.
        </p>
      ) : (
        <ol className="route" data-testid="route">
          <li className="hop-node">
            <NodeName node={p.nodes[0]} />
          </li>
          {p.steps.map((s, i) => (
            <li key={i} className="hop">
              <div className="edge">
                {s.type} · {pct(s.probability)} · <span className="basis">{s.weightBasis}</span>
              </div>
              <EvidenceList evidence={s.evidence} />
              <NodeName node={names.get(s.to) ?? { id: s.to, name: s.to, label: '' }} />
            </li>
          ))}
        </ol>
      )}
      <p>
        <Link href={`/graph?node=${encodeURIComponent(p.nodes.at(-1)!.id)}&path=${p.id}`}>
          See it in the graph
        </Link>
      </p>
      <Alternatives target={p.nodes.at(-1)!.id} self={p.id} />
      <h2>Fixes</h2>
      <Fixes path={p} />
    </section>
  );
}

function NodeName({ node }: { node: Node }) {
  return (
    <div className="node">
      <span className="label">{node.label}</span> <strong>{node.name}</strong>
    </div>
  );
}

function EvidenceList({ evidence }: { evidence: Evidence[] }) {
  if (!evidence.length)
    return <p className="evidence none">No evidence beyond the model's table for this hop.</p>;
  return (
    <ul className="evidence">
      {evidence.map((e, i) => (
        <li key={i}>
          <span className="kind">{e.kind}</span> <strong>{e.name}</strong>
          {e.cvss !== null && <> · CVSS {e.cvss}</>}
          {e.epss !== null && <> · EPSS {pct(e.epss)}</>}
          {e.kev !== null && <> · {e.kev ? 'KEV: known exploited' : 'not in KEV'}</>}
          {e.severity && <> · {e.severity}</>}
          {e.detail && <> · {e.detail}</>}
        </li>
      ))}
    </ul>
  );
}

interface Ranked {
  rank: number;
  pathId: string;
  score: number;
  nodes: Node[];
}

function Alternatives({ target, self }: { target: string; self: string }) {
  const routes = useLoad(
    () =>
      gql<{ kShortestPaths: Ranked[] | null }>(
        `query K($target: String!) { kShortestPaths(target: $target, k: 5) { rank pathId score nodes { id name label } } }`,
        { target },
      ),
    [target],
  );
  return (
    <>
      <h2>Alternative routes to this target</h2>
      {routes.loading && <p className="loading">Searching…</p>}
      {routes.error && <p className="note">Not available: {routes.error}</p>}
      {routes.data && (
        <ol className="alternatives">
          {(routes.data.kShortestPaths ?? []).map((r) => (
            <li key={r.rank}>
              {pct(r.score)} · {r.nodes.map((n) => n.name).join(' → ')}{' '}
              {r.pathId !== self && <Link href={`/paths/${r.pathId}`}>its path</Link>}
            </li>
          ))}
        </ol>
      )}
    </>
  );
}

function Fixes({ path }: { path: Path }) {
  const canWrite = useCanWrite();
  const [message, setMessage] = useState<string | null>(null);
  if (!path.fixes.length)
    return <p>No generated fix applies to this path; see the remediation plan on What-if.</p>;
  const open = async (fix: string) => {
    try {
      const answer = await rest<{ url?: string }>('POST', '/remediation/pr', { pathId: path.id, fix });
      setMessage(`Pull request opened${answer?.url ? `: ${answer.url}` : ''}`);
    } catch (e) {
      setMessage(e instanceof Error ? e.message : String(e));
    }
  };
  return (
    <ul className="fixes">
      {path.fixes.map((f) => (
        <li key={f.id}>
          <strong>{f.title}</strong> ({f.kind}, {f.repo} on {f.branch})<p>{f.explanation}</p>
          {canWrite && (
            <button type="button" data-admin onClick={() => void open(f.id)}>
              Open the fix pull request
            </button>
          )}
        </li>
      ))}
      {message && <li role="status">{message}</li>}
    </ul>
  );
}

const REASONS = ['accept-risk', 'false-positive', 'mitigating-control', 'duplicate'];

function Actions({ path, onChange }: { path: Path; onChange: () => void }) {
  const canWrite = useCanWrite();
  const [status, setStatus] = useState<string | null>(null);
  const [reason, setReason] = useState(REASONS[0]);
  const [owner, setOwner] = useState('');
  const [note, setNote] = useState('');
  const [ttlDays, setTtl] = useState(30);
  const [outcome, setOutcome] = useState('confirmed');
  const run = async (what: string, call: () => Promise<unknown>) => {
    try {
      await call();
      setStatus(what);
      invalidatePaths();
      onChange();
    } catch (e) {
      setStatus(e instanceof ApiError || e instanceof Error ? e.message : String(e));
    }
  };
  if (!canWrite)
    return (
      <div className="card">
        <h2>Actions</h2>
        <p>Suppressing, ticketing and recording validations need the admin role.</p>
      </div>
    );
  const active = path.suppression?.state === 'active';
  return (
    <div className="card" data-admin>
      <h2>Actions</h2>
      {active ? (
        <button
          type="button"
          onClick={() => void run('Suppression removed', () => rest('DELETE', `/suppressions/${path.id}`))}
        >
          Remove the suppression
        </button>
      ) : (
        <form
          aria-label="Suppress"
          onSubmit={(e: FormEvent) => {
            e.preventDefault();
            void run('Suppressed', () =>
              rest('POST', '/suppressions', {
                pathId: path.id,
                reason,
                owner,
                note: note || undefined,
                ttlDays,
              }),
            );
          }}
        >
          <label>
            Reason
            <select value={reason} onChange={(e) => setReason(e.target.value)}>
              {REASONS.map((r) => (
                <option key={r}>{r}</option>
              ))}
            </select>
          </label>
          <label>
            Owner
            <input value={owner} onChange={(e) => setOwner(e.target.value)} required />
          </label>
          <label>
            Note
            <input value={note} onChange={(e) => setNote(e.target.value)} />
          </label>
          <label>
            Expires after (days)
            <input
              type="number"
              min={1}
              max={365}
              value={ttlDays}
              onChange={(e) => setTtl(Number(e.target.value))}
            />
          </label>
          <button type="submit">Suppress</button>
        </form>
      )}
      <form
        aria-label="Ticket"
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          void run('Ticket opened', () =>
            rest('POST', '/tickets', { pathId: path.id, owner: owner || 'security' }),
          );
        }}
      >
        <button type="submit">Open a ticket</button>
      </form>
      <form
        aria-label="Validation"
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          void run('Validation recorded', () =>
            rest('POST', '/validations', { pathId: path.id, outcome, source: 'dashboard' }),
          );
        }}
      >
        <label>
          Red-team outcome
          <select value={outcome} onChange={(e) => setOutcome(e.target.value)}>
            <option>confirmed</option>
            <option>partial</option>
            <option>refuted</option>
          </select>
        </label>
        <button type="submit">Record a validation</button>
      </form>
      {status && <p role="status">{status}</p>}
    </div>
  );
}
