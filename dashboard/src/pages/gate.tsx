// Gate: the merge gate's verdict for a commit (prVerdict), linking to the routes it judged.
import { useState, type FormEvent } from 'react';
import { gql } from '../api';
import { day } from '../format';
import { Link, navigate, useLocation } from '../router';
import { useLoad } from '../session';

interface Verdict {
  sha: string;
  verdict: string;
  reason: string;
  attribution: string;
  opened: number;
  worsened: number;
  exposed: number;
  preexisting: number;
  slug: string | null;
  pr: number | null;
  decidedAt: string;
}

export function GatePage() {
  const { search } = useLocation();
  const sha = new URLSearchParams(search).get('sha') ?? '';
  const [text, setText] = useState(sha);
  const verdict = useLoad(
    () =>
      sha
        ? gql<{ prVerdict: Verdict | null }>(
            `query V($sha: String!) { prVerdict(sha: $sha) { sha verdict reason attribution opened worsened exposed preexisting slug pr decidedAt } }`,
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
    </section>
  );
}
