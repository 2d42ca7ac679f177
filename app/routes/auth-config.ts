// `GET /auth/config` (public): how the dashboard signs in. `mode` takes the spec's words:
//   none   no credential is asked for (the open API);
//   token  bearer credentials only (API_TOKENS entries and/or OIDC-issued JWTs), no sign-in page published;
//   both   bearer credentials and the SSO sign-in (Authorization Code + PKCE: OIDC_CLIENT_ID and
//          OIDC_AUTHORIZE_URL published under `oidc`).
// AUTH_CONFIG_LEGACY_MODE=true answers the 0.x words (`open`, `token`, `oidc`, `token+oidc`) for one minor
// version, so a client written against them keeps working while it moves (CHANGELOG, docs/security.md).
import type { FastifyInstance } from 'fastify';
import type { AuthSettings } from '../../src/config/settings.js';

export type AuthConfigMode = 'none' | 'token' | 'both';

export function authConfigMode(auth: AuthSettings, authOn: boolean): AuthConfigMode {
  if (!authOn) return 'none';
  return auth.oidc && auth.oidcPublic.clientId && auth.oidcPublic.authorizeUrl ? 'both' : 'token';
}

function legacyMode(auth: AuthSettings): string {
  return [auth.apiTokens.length ? 'token' : '', auth.oidc ? 'oidc' : ''].filter(Boolean).join('+') || 'open';
}

export function registerAuthConfigRoute(app: FastifyInstance, auth: AuthSettings, authOn: boolean): void {
  app.get('/auth/config', { config: { access: 'public' } }, async () => {
    const { oidcPublic, oidc, anonymousRole } = auth;
    return {
      authRequired: authOn,
      mode: auth.legacyConfigMode ? legacyMode(auth) : authConfigMode(auth, authOn),
      ...(oidc && {
        oidc: {
          clientId: oidcPublic.clientId ?? null,
          authorizeUrl: oidcPublic.authorizeUrl ?? null,
          tokenUrl: oidcPublic.tokenUrl ?? null,
          logoutUrl: oidcPublic.logoutUrl ?? null,
          issuer: oidc.issuer,
        },
      }),
      ...(anonymousRole && { anonymousRole }),
    };
  });
}
