// The shell: who is signed in, the navigation, and the page the location names.
import { lazy, Suspense, useCallback, useEffect, useState, type ReactNode } from 'react';
import { rest, storeToken, type AuthConfig, type Me } from './api';
import { finishLogin } from './pkce';
import { Link, navigate, useLocation } from './router';
import { loadSession, SessionContext, type Session } from './session';
import { SignIn } from './pages/sign-in';
import { Overview } from './pages/overview';
import { PathsPage } from './pages/paths';
import { invalidatePaths } from './paths-data';

// The heavier pages load when first visited (their own chunks): the overview and the paths list, where a
// visit usually starts, do not wait for sigma.js and the rest.
const PathPage = lazy(() => import('./pages/path').then((m) => ({ default: m.PathPage })));
const GraphPage = lazy(() => import('./pages/graph').then((m) => ({ default: m.GraphPage })));
const WhatIfPage = lazy(() => import('./pages/what-if').then((m) => ({ default: m.WhatIfPage })));
const GatePage = lazy(() => import('./pages/gate').then((m) => ({ default: m.GatePage })));
const GovernancePage = lazy(() => import('./pages/governance').then((m) => ({ default: m.GovernancePage })));

const NAV: [string, string][] = [
  ['/', 'Overview'],
  ['/paths', 'Paths'],
  ['/graph', 'Graph'],
  ['/what-if', 'What-if'],
  ['/gate', 'Gate'],
  ['/governance', 'Governance'],
];

function page(path: string): ReactNode {
  const pathMatch = /^\/paths\/([^/]+)$/.exec(path);
  if (pathMatch) return <PathPage id={decodeURIComponent(pathMatch[1])} />;
  switch (path) {
    case '/':
      return <Overview />;
    case '/paths':
      return <PathsPage />;
    case '/graph':
      return <GraphPage />;
    case '/what-if':
      return <WhatIfPage />;
    case '/gate':
      return <GatePage />;
    case '/governance':
      return <GovernancePage />;
    default:
      return (
        <section>
          <h1>Not found</h1>
          <p>There is no page at {path}.</p>
        </section>
      );
  }
}

export function App() {
  const { path, search } = useLocation();
  const [state, setState] = useState<{ config: AuthConfig; me: Me | null } | { error: string } | null>(null);

  const refresh = useCallback(() => {
    loadSession().then(setState, (error: unknown) =>
      setState({ error: error instanceof Error ? error.message : String(error) }),
    );
  }, []);

  useEffect(() => {
    if (path === '/auth/callback') {
      rest<AuthConfig>('GET', '/auth/config')
        .then((config) => {
          if (!config.oidc) throw new Error('OIDC login is not configured');
          return finishLogin(config.oidc, search);
        })
        .then(
          ({ token, returnTo }) => {
            storeToken(token);
            navigate(returnTo, { replace: true });
            refresh();
          },
          (error: unknown) => setState({ error: error instanceof Error ? error.message : String(error) }),
        );
      return;
    }
    refresh();
    // the session is loaded once; sign-in and sign-out refresh it
  }, []);

  if (state === null) return <main className="loading">Loading…</main>;
  if ('error' in state)
    return (
      <main>
        <h1>pathgate</h1>
        <p role="alert" className="error">
          {state.error}
        </p>
        <button
          type="button"
          onClick={() => {
            navigate('/', { replace: true });
            refresh();
          }}
        >
          Try again
        </button>
      </main>
    );

  const session: Session = {
    config: state.config,
    me: state.me,
    async signIn(token) {
      storeToken(token);
      invalidatePaths();
      const me = await rest<Me>('GET', '/auth/me');
      setState({ config: state.config, me });
    },
    signOut() {
      storeToken(null);
      invalidatePaths();
      refresh();
    },
  };

  return (
    <SessionContext.Provider value={session}>
      <header className="top">
        <Link href="/" className="brand">
          pathgate
        </Link>
        {state.me && (
          <nav aria-label="Pages">
            <ul>
              {NAV.map(([href, label]) => (
                <li key={href}>
                  <Link
                    href={href}
                    aria-current={
                      href === path || (href !== '/' && path.startsWith(`${href}/`)) ? 'page' : undefined
                    }
                  >
                    {label}
                  </Link>
                </li>
              ))}
            </ul>
          </nav>
        )}
        <div className="who">
          {state.me ? (
            <>
              <span data-testid="who">
                {state.me.anonymous ? 'anonymous' : state.me.subject} · {state.me.role}
                {state.me.tenant ? ` · ${state.me.tenant}` : ''}
              </span>
              {state.me.anonymous && state.config.authRequired ? (
                <Link href="/sign-in">Sign in</Link>
              ) : state.config.authRequired ? (
                <button type="button" onClick={() => session.signOut()}>
                  Sign out
                </button>
              ) : null}
            </>
          ) : null}
        </div>
      </header>
      <main id="main">
        <Suspense fallback={<p className="loading">Loading…</p>}>
          {!state.me || path === '/sign-in' ? <SignIn /> : page(path)}
        </Suspense>
      </main>
    </SessionContext.Provider>
  );
}
