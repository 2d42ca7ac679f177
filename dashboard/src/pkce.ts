// The OIDC authorization-code flow with PKCE (RFC 7636, S256) for a public client: the verifier never
// leaves this tab's sessionStorage, the code is exchanged at OIDC_TOKEN_URL from the browser.
import type { AuthConfig } from './api';

const FLOW_KEY = 'pathgate.pkce';

interface Flow {
  verifier: string;
  state: string;
  returnTo: string;
}

function base64url(bytes: Uint8Array): string {
  let text = '';
  for (const b of bytes) text += String.fromCharCode(b);
  return btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function random(bytes = 32): string {
  return base64url(crypto.getRandomValues(new Uint8Array(bytes)));
}

export const redirectUri = () => `${location.origin}/auth/callback`;

export async function startLogin(config: NonNullable<AuthConfig['oidc']>, returnTo: string): Promise<void> {
  if (!config.clientId || !config.authorizeUrl) throw new Error('OIDC login is not configured');
  const flow: Flow = { verifier: random(), state: random(16), returnTo };
  sessionStorage.setItem(FLOW_KEY, JSON.stringify(flow));
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(flow.verifier));
  const url = new URL(config.authorizeUrl);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', config.clientId);
  url.searchParams.set('redirect_uri', redirectUri());
  url.searchParams.set('scope', 'openid');
  url.searchParams.set('state', flow.state);
  url.searchParams.set('code_challenge', base64url(new Uint8Array(digest)));
  url.searchParams.set('code_challenge_method', 'S256');
  location.assign(url.toString());
}

/** Finishes the login on /auth/callback: the access token (a JWT the API verifies) and where to go next. */
export async function finishLogin(
  config: NonNullable<AuthConfig['oidc']>,
  search: string,
): Promise<{ token: string; returnTo: string }> {
  const params = new URLSearchParams(search);
  const saved = sessionStorage.getItem(FLOW_KEY);
  sessionStorage.removeItem(FLOW_KEY);
  if (params.get('error'))
    throw new Error(
      `the identity provider refused: ${params.get('error_description') ?? params.get('error')}`,
    );
  if (!saved) throw new Error('no login was started in this tab');
  const flow = JSON.parse(saved) as Flow;
  if (params.get('state') !== flow.state)
    throw new Error('the login answer does not match the request (state)');
  const code = params.get('code');
  if (!code || !config.tokenUrl || !config.clientId) throw new Error('the login answer carries no code');
  const response = await fetch(config.tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri(),
      client_id: config.clientId,
      code_verifier: flow.verifier,
    }),
  });
  const body = (await response.json()) as {
    access_token?: string;
    error?: string;
    error_description?: string;
  };
  if (!response.ok || !body.access_token)
    throw new Error(`the token exchange failed: ${body.error_description ?? body.error ?? response.status}`);
  return { token: body.access_token, returnTo: flow.returnTo };
}
