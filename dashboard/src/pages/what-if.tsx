// What-if and plan: pick hops of the open routes to cut, see the risk before and after (whatIf); the
// remediation plan with each item's coverage and verification.
import { useState } from 'react';
import { gql } from '../api';
import { pct } from '../format';
import { Link } from '../router';
import { useLoad } from '../session';

interface Hop {
  from: { id: string; name: string };
  to: { id: string; name: string };
  type: string;
}
interface RouteData {
  attackPaths: {
    id: string;
    nodes: { id: string; name: string }[];
    steps: { from: string; to: string; type: string }[];
  }[];
}
interface Risk {
  anyCompromiseProbability: number;
  ciLow: number;
  ciHigh: number;
  expectedCompromised: number;
}
interface WhatIf {
  whatIf: {
    removedEdges: number;
    riskReduction: number;
    beforeRisk: Risk;
    afterRisk: Risk;
    closedPaths: { id: string; start: { name: string }; target: { name: string } }[];
    remainingPaths: { id: string }[];
  } | null;
}
interface Plan {
  remediationPlan:
    | {
        rank: number;
        title: string;
        kind: string;
        coveragePct: number;
        verification: { verified: boolean; pathsEliminated: number; riskReductionPct: number };
        pathIds: string[];
      }[]
    | null;
}

const key = (h: Hop) => `${h.type}|${h.from.id}|${h.to.id}`;

export function WhatIfPage() {
  const routes = useLoad(
    () =>
      gql<RouteData>(
        `{ attackPaths(first: 50, priority: P1) { id nodes { id name } steps { from to type } } }`,
      ),
    [],
  );
  const plan = useLoad(
    () =>
      gql<Plan>(`{ remediationPlan { rank title kind coveragePct pathIds
        verification { verified pathsEliminated riskReductionPct } } }`),
    [],
  );
  const [chosen, setChosen] = useState<Map<string, Hop>>(new Map());
  const [result, setResult] = useState<WhatIf['whatIf'] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [running, setRunning] = useState(false);

  const hops = new Map<string, Hop>();
  for (const p of routes.data?.attackPaths ?? []) {
    const names = new Map(p.nodes.map((n) => [n.id, n]));
    for (const s of p.steps) {
      const hop = { from: names.get(s.from)!, to: names.get(s.to)!, type: s.type };
      hops.set(key(hop), hop);
    }
  }
  const toggle = (hop: Hop) => {
    const next = new Map(chosen);
    if (next.has(key(hop))) next.delete(key(hop));
    else next.set(key(hop), hop);
    setChosen(next);
  };
  const run = async () => {
    setRunning(true);
    setError(null);
    try {
      const cuts = [...chosen.values()].map((h) => ({ from: h.from.id, to: h.to.id, type: h.type }));
      const data = await gql<WhatIf>(
        `query W($cuts: [EdgeCut!]!) { whatIf(cuts: $cuts, iterations: 2000) { removedEdges riskReduction
          beforeRisk { anyCompromiseProbability ciLow ciHigh expectedCompromised }
          afterRisk { anyCompromiseProbability ciLow ciHigh expectedCompromised }
          closedPaths { id start { name } target { name } } remainingPaths { id } } }`,
        { cuts },
      );
      setResult(data.whatIf);
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setRunning(false);
    }
  };

  return (
    <section>
      <h1>What-if and plan</h1>
      <h2>Cut hops and see the risk change</h2>
      {routes.error && (
        <p role="alert" className="error">
          {routes.error}
        </p>
      )}
      <fieldset className="hops">
        <legend>Hops on the open critical routes</legend>
        {[...hops.values()].map((h) => (
          <label key={key(h)} className="check">
            <input type="checkbox" checked={chosen.has(key(h))} onChange={() => toggle(h)} /> {h.from.name}{' '}
            <em>{h.type}</em> {h.to.name}
          </label>
        ))}
        {routes.data && !hops.size && <p>No open critical route has a hop to cut.</p>}
      </fieldset>
      <button type="button" className="primary" disabled={!chosen.size || running} onClick={() => void run()}>
        {running ? 'Simulating…' : `Simulate cutting ${chosen.size} hop${chosen.size === 1 ? '' : 's'}`}
      </button>
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
      {result && (
        <div className="whatif-result" data-testid="whatif-result">
          <p>
            Crown jewels expected to fall:{' '}
            <strong data-testid="risk-before">{result.beforeRisk.expectedCompromised.toFixed(2)}</strong> →{' '}
            <strong data-testid="risk-after">{result.afterRisk.expectedCompromised.toFixed(2)}</strong>.
            Chance that at least one falls: {pct(result.beforeRisk.anyCompromiseProbability)} →{' '}
            {pct(result.afterRisk.anyCompromiseProbability)} (95 %: {pct(result.afterRisk.ciLow)} –{' '}
            {pct(result.afterRisk.ciHigh)}). {result.removedEdges} hops removed, {result.closedPaths.length}{' '}
            paths closed, {result.remainingPaths.length} remain.
          </p>
          <ul>
            {result.closedPaths.map((p) => (
              <li key={p.id}>
                closed:{' '}
                <Link href={`/paths/${p.id}`}>
                  {p.start.name} → {p.target.name}
                </Link>
              </li>
            ))}
          </ul>
        </div>
      )}
      <h2>Remediation plan</h2>
      {plan.loading && <p className="loading">Planning…</p>}
      {plan.error && <p className="note">Not available: {plan.error}</p>}
      {plan.data?.remediationPlan && (
        <table>
          <thead>
            <tr>
              <th scope="col">#</th>
              <th scope="col">Change</th>
              <th scope="col">Coverage</th>
              <th scope="col">Verified</th>
              <th scope="col">Paths</th>
            </tr>
          </thead>
          <tbody>
            {plan.data.remediationPlan.map((item) => (
              <tr key={item.rank}>
                <td>{item.rank}</td>
                <td>{item.title}</td>
                <td>{item.coveragePct.toFixed(1)} %</td>
                <td>
                  {item.verification.verified ? 'yes' : 'no'}: {item.verification.pathsEliminated} paths,{' '}
                  {item.verification.riskReductionPct.toFixed(1)} % of the risk
                </td>
                <td>
                  {item.pathIds.slice(0, 3).map((id) => (
                    <Link key={id} href={`/paths/${id}`}>
                      {id}{' '}
                    </Link>
                  ))}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
