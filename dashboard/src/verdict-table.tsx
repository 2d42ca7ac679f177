// A table of merge gate verdicts: repository, verdict, the commit (its page lists the routes judged), when.
import { day } from './format';
import { Link } from './router';
import type { Verdict } from './verdicts';

export function VerdictTable({ verdicts, testId }: { verdicts: Verdict[]; testId: string }) {
  return (
    <table data-testid={testId}>
      <thead>
        <tr>
          <th scope="col">Repository</th>
          <th scope="col">Verdict</th>
          <th scope="col">Commit</th>
          <th scope="col">Routes</th>
          <th scope="col">Decided</th>
        </tr>
      </thead>
      <tbody>
        {verdicts.map((v) => (
          <tr key={v.sha}>
            <td>
              {v.slug ?? '–'}
              {v.pr ? ` #${v.pr}` : ''}
            </td>
            <td className={`verdict-${v.verdict}`}>{v.verdict}</td>
            <td>
              <Link
                href={`/gate?sha=${v.sha}`}
                aria-label={`Verdict of ${v.slug ?? 'commit'} ${v.sha.slice(0, 12)}`}
              >
                <code>{v.sha.slice(0, 12)}</code>
              </Link>
            </td>
            <td>
              {v.opened} opened, {v.worsened} worsened{v.exposed ? `, ${v.exposed} exposed` : ''}
            </td>
            <td>{day(v.decidedAt)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
