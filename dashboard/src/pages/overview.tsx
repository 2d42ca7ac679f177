// The overview: posture, the trend and time to resolve, the crown jewels most at risk, the merge gate's
// latest verdict of each repository.
import { gql } from '../api';
import { duration, num, pct } from '../format';
import { Link } from '../router';
import { useLoad } from '../session';
import { TrendChart } from '../charts';
import { VerdictTable } from '../verdict-table';
import { listVerdicts } from '../verdicts';

interface OverviewData {
  posture: {
    criticalPaths: number;
    suppressedCriticalPaths: number;
    kevOnPaths: number;
    runtimeConfirmed: number;
    openPaths: number;
  };
  history: {
    openPaths: number;
    resolvedPaths: number;
    mttrSeconds: number | null;
    oldestOpenSince: string | null;
    trend: { at: string; criticalPaths: number; riskPct: number }[];
  };
}

interface Risk {
  riskSimulation: {
    anyCompromiseProbability: number;
    anyCiLow: number;
    anyCiHigh: number;
    expectedCompromised: number;
    crownJewels: {
      node: { id: string; name: string; label: string };
      compromiseProbability: number;
      ciLow: number;
      ciHigh: number;
    }[];
  } | null;
}

export function Overview() {
  const data = useLoad(
    () =>
      gql<OverviewData>(`{
        posture { criticalPaths suppressedCriticalPaths kevOnPaths runtimeConfirmed openPaths }
        history { openPaths resolvedPaths mttrSeconds oldestOpenSince trend { at criticalPaths riskPct } }
      }`),
    [],
  );
  const risk = useLoad(
    () =>
      gql<Risk>(`{ riskSimulation(iterations: 2000) { anyCompromiseProbability anyCiLow anyCiHigh expectedCompromised
        crownJewels { node { id name label } compromiseProbability ciLow ciHigh } } }`),
    [],
  );
  const p = data.data?.posture;
  const h = data.data?.history;
  return (
    <section>
      <h1>Overview</h1>
      {data.error && (
        <p role="alert" className="error">
          {data.error}
        </p>
      )}
      {p && (
        <ul className="tiles" aria-label="Posture">
          <li data-testid="critical-count">
            <Link href="/paths?priority=P1&suppressed=no">
              <span className="big">{num(p.criticalPaths)}</span> open critical paths
            </Link>
          </li>
          <li>
            <Link href="/paths?kev=1">
              <span className="big">{num(p.kevOnPaths)}</span> with a known-exploited CVE
            </Link>
          </li>
          <li>
            <Link href="/paths?runtime=1">
              <span className="big">{num(p.runtimeConfirmed)}</span> runtime-confirmed
            </Link>
          </li>
          <li data-testid="suppressed-count">
            <Link href="/paths?priority=P1&suppressed=yes">
              <span className="big">{num(p.suppressedCriticalPaths)}</span> suppressed criticals
            </Link>
          </li>
          <li>
            <Link href="/paths">
              <span className="big">{num(p.openPaths)}</span> open paths
            </Link>
          </li>
        </ul>
      )}
      {h && (
        <>
          <h2>Trend</h2>
          <p>
            Mean time to resolve: <strong>{duration(h.mttrSeconds)}</strong> over {num(h.resolvedPaths)}{' '}
            resolved paths
            {h.oldestOpenSince ? `; the oldest open path opened ${h.oldestOpenSince.slice(0, 10)}` : ''}.
          </p>
          <TrendChart points={h.trend} />
        </>
      )}
      <h2>Crown jewels most at risk</h2>
      {risk.loading && <p className="loading">Simulating…</p>}
      {risk.error && <p className="note">Not available: {risk.error}</p>}
      {risk.data?.riskSimulation && (
        <>
          <p>
            Chance that at least one crown jewel falls:{' '}
            <strong data-testid="any-risk">{pct(risk.data.riskSimulation.anyCompromiseProbability)}</strong>{' '}
            (95 %: {pct(risk.data.riskSimulation.anyCiLow)} – {pct(risk.data.riskSimulation.anyCiHigh)});
            expected {risk.data.riskSimulation.expectedCompromised.toFixed(2)} compromised.
          </p>
          <table>
            <thead>
              <tr>
                <th scope="col">Crown jewel</th>
                <th scope="col">Compromise probability</th>
                <th scope="col">95 % interval</th>
              </tr>
            </thead>
            <tbody>
              {[...risk.data.riskSimulation.crownJewels]
                .sort((a, b) => b.compromiseProbability - a.compromiseProbability)
                .slice(0, 10)
                .map((j) => (
                  <tr key={j.node.id}>
                    <td>
                      <Link href={`/paths?target=${encodeURIComponent(j.node.name)}`}>{j.node.name}</Link>{' '}
                      <span className="label">{j.node.label}</span>
                    </td>
                    <td>{pct(j.compromiseProbability)}</td>
                    <td>
                      {pct(j.ciLow)} – {pct(j.ciHigh)}
                    </td>
                  </tr>
                ))}
            </tbody>
          </table>
        </>
      )}
      <h2>Merge gate: the latest verdict of each repository</h2>
      <LatestVerdicts />
    </section>
  );
}

function LatestVerdicts() {
  const latest = useLoad(() => listVerdicts({ first: 20, latestPerRepository: true }), []);
  if (latest.error) return <p className="note">Not available: {latest.error}</p>;
  if (!latest.data) return <p className="loading">Loading…</p>;
  if (!latest.data.verdicts.length)
    return (
      <p>
        The gate has judged no repository's commit yet. Look up a commit on the <Link href="/gate">Gate</Link>{' '}
        page.
      </p>
    );
  return <VerdictTable verdicts={latest.data.verdicts} testId="latest-verdicts" />;
}
