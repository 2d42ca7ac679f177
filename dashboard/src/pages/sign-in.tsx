import { useState, type FormEvent } from 'react';
import { startLogin } from '../pkce';
import { navigate, useLocation } from '../router';
import { useSession } from '../session';

export function SignIn() {
  const session = useSession();
  const { path, search } = useLocation();
  const [token, setToken] = useState('');
  const [error, setError] = useState<string | null>(null);
  const oidc = session.config.oidc;
  const returnTo = path === '/sign-in' ? '/' : path + search;
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    try {
      await session.signIn(token.trim());
      if (path === '/sign-in') navigate('/');
    } catch (e) {
      session.signOut();
      setError(e instanceof Error ? e.message : String(e));
    }
  };
  return (
    <section className="sign-in">
      <h1>Sign in to pathgate</h1>
      {oidc?.clientId && oidc.authorizeUrl && oidc.tokenUrl && (
        <p>
          <button type="button" className="primary" onClick={() => void startLogin(oidc, returnTo)}>
            Sign in with single sign-on
          </button>
        </p>
      )}
      {/* Bearer tokens are taken whenever auth is on: mode `token` or `both` (`open`/`none`: nothing to sign in to). */}
      {session.config.mode !== 'none' && session.config.mode !== 'open' && (
        <form onSubmit={(e) => void submit(e)}>
          <label htmlFor="token">API token</label>
          <input
            id="token"
            type="password"
            autoComplete="off"
            value={token}
            onChange={(e) => setToken(e.target.value)}
            required
          />
          <button type="submit">Sign in with a token</button>
        </form>
      )}
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
    </section>
  );
}
