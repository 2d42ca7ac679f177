// Gate: the merge gate's verdicts, newest first, filtered by repository (gateVerdicts); one commit's verdict
// (prVerdict), linking to the routes it judged.
import { useState, type FormEvent } from 'react';
import { gql } from '../api';
import { day } from '../format';
import { Link, navigate, useLocation } from '../router';
import { useLoad } from '../session';
import { VerdictTable } from '../verdict-table';
import { listVerdicts, VERDICT_FIELDS, type Verdict } from '../verdicts';

export function GatePage() {
  const { search } = useLocation();
  const params = new URLSearchParams(search);
  const sha = params.get('sha') ?? '';
  const repository = params.get('repository') ?? '';
  const [text, setText] = useState(sha);
  const [repoText, setRepoText] = useState(repository);
  const recent = useLoad(() => listVerdicts({ first: 50, repository }), [repository]);
  const verdict = useLoad(
    () =>
      sha
        ? gql<{ prVerdict: Verdict | null }>(
            `query V($sha: String!) { prVerdict(sha: $sha) { ${VERDICT_FIELDS} } }`,
            { sha },
          )
        : Promise.resolve({ prVerdict: null }),
    [sha],
  );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    navigate(`/gate?sha=${encodeURIComponent(text.trim())}`);
  };
  const v = verdict.data?.prVerdict;
  return (
    <section>
      <h1>Merge gate</h1>
      <form onSubmit={submit} aria-label="Find a verdict">
        <label htmlFor="sha">Commit SHA (full, or 7+ characters)</label>
        <input id="sha" value={text} onChange={(e) => setText(e.target.value)} required minLength={7} />
        <button type="submit">Show the verdict</button>
      </form>
      {verdict.error && (
        <p role="alert" className="error">
          {verdict.error}
        </p>
      )}
      {sha && !verdict.loading && !verdict.error && !v && <p>The gate has not judged {sha}.</p>}
      {v && (
        <dl className="verdict" data-testid="verdict">
          <dt>Verdict</dt>
          <dd className={`verdict-${v.verdict}`}>{v.verdict}</dd>
          <dt>Why</dt>
          <dd>{v.reason}</dd>
          <dt>Repository</dt>
          <dd>
            {v.slug ?? '–'}
            {v.pr ? ` #${v.pr}` : ''} at {v.sha.slice(0, 12)}
          </dd>
          <dt>Routes</dt>
          <dd>
            {v.opened} opened, {v.worsened} worsened, {v.exposed} crown jewels exposed, {v.preexisting}{' '}
            already there
            {v.slug && (
              <>
                {' '}
                · <Link href="/paths?priority=P1">the open critical paths</Link>
              </>
            )}
          </dd>
          <dt>Decided</dt>
          <dd>
            {day(v.decidedAt)} ({v.attribution} attribution)
          </dd>
        </dl>
      )}
      <h2>Recent verdicts{repository ? ` of ${repository}` : ''}</h2>
      <form
        aria-label="Verdicts of a repository"
        onSubmit={(e) => {
          e.preventDefault();
          const r = repoText.trim();
          navigate(`/gate${r ? `?repository=${encodeURIComponent(r)}` : ''}`);
        }}
      >
        <label htmlFor="repository">Repository (owner/name)</label>
        <input id="repository" value={repoText} onChange={(e) => setRepoText(e.target.value)} />
        <button type="submit">Filter</button>
      </form>
      {recent.error && (
        <p role="alert" className="error">
          {recent.error}
        </p>
      )}
      {recent.data && !recent.data.verdicts.length && (
        <p>No verdict{repository ? ` for ${repository}` : ''}.</p>
      )}
      {!!recent.data?.verdicts.length && (
        <>
          <p>
            The newest {recent.data.verdicts.length} of {recent.data.total}.
          </p>
          <VerdictTable verdicts={recent.data.verdicts} testId="recent-verdicts" />
        </>
      )}
    </section>
  );
}
