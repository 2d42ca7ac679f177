// Who is looking: the API's /auth/config and /auth/me, shared by every page.
import { createContext, useCallback, useContext, useEffect, useState, type DependencyList } from 'react';
import { ApiError, rest, storedToken, storeToken, type AuthConfig, type Me } from './api';

export interface Session {
  config: AuthConfig;
  /** null: nobody signed in and no anonymous reading */
  me: Me | null;
  signIn(token: string): Promise<void>;
  signOut(): void;
}

export const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside the session');
  return session;
}

/** Admin controls are drawn only for a principal that may write. */
export function useCanWrite(): boolean {
  return useSession().me?.canWrite === true;
}

/** Remembers whether the API reads anything without a credential (see loadSession). */
const STRICT_KEY = 'pathgate.auth.strict';

/**
 * Whether asking the API before the session is read may be answered: false only where the API was seen to
 * read nothing anonymously and no token is held (the answer would be a 401, a console error in the page).
 */
export function mayAskBeforeSession(): boolean {
  return storedToken() !== null || localStorage.getItem(STRICT_KEY) !== 'yes';
}

export async function loadSession(): Promise<{ config: AuthConfig; me: Me | null }> {
  // Who is looking is asked at the same time as how to sign in: one round trip less before any page. Not
  // where the API was seen to read nothing anonymously and no token is held: that answer would be a 401.
  const early = mayAskBeforeSession() ? rest<Me>('GET', '/auth/me') : undefined;
  early?.catch(() => undefined);
  const config = await rest<AuthConfig>('GET', '/auth/config');
  localStorage.setItem(STRICT_KEY, config.authRequired && !config.anonymousRole ? 'yes' : 'no');
  if (config.authRequired && !config.anonymousRole && !storedToken()) return { config, me: null };
  try {
    return { config, me: await (early ?? rest<Me>('GET', '/auth/me')) };
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) {
      storeToken(null);
      // a stale token: anonymous reading may still be open
      if (config.anonymousRole) return { config, me: await rest<Me>('GET', '/auth/me') };
      return { config, me: null };
    }
    throw error;
  }
}

export interface Loaded<T> {
  data?: T;
  error?: string;
  loading: boolean;
  reload(): void;
}

/** Runs `load` when `deps` change; the latest answer wins. */
export function useLoad<T>(load: () => Promise<T>, deps: DependencyList): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: string; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => live && setState({ data, loading: false }),
      (error: unknown) =>
        live && setState({ error: error instanceof Error ? error.message : String(error), loading: false }),
    );
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((n) => n + 1), []);
  return { ...state, reload };
}
