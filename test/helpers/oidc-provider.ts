// A real OpenID provider (the `oidc-provider` library, certified) on loopback for the dashboard's PKCE
// login: a public client, PKCE S256 required, access tokens issued as RS256 JWTs for the API's audience with
// the role (and optional tenant) claims the API reads, its development login and consent pages.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

// A resource indicator is an absolute URI (RFC 8707).
export const OIDC_AUDIENCE = 'https://api.pathgate.invalid';
export const OIDC_CLIENT = 'pathgate-dashboard';

export interface TestProvider {
  issuer: string;
  env: Record<string, string>;
  /** Registers the dashboard (its redirect URI and origin) once its address is known. */
  admit(dashboardUrl: string, claims: { role: string; tenant?: string }): void;
  close(): Promise<void>;
}

export async function startOidcProvider(): Promise<TestProvider> {
  let handler: http.RequestListener = (_req, res) => {
    res.statusCode = 503;
    res.end();
  };
  const server = http.createServer((req, res) => handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = { ...privateKey.export({ format: 'jwk' }), kid: 'test-key', use: 'sig', alg: 'RS256' };
  return {
    issuer,
    env: {
      OIDC_JWKS_URL: `${issuer}/jwks`,
      OIDC_ISSUER: issuer,
      OIDC_AUDIENCE,
      OIDC_CLIENT_ID: OIDC_CLIENT,
      OIDC_AUTHORIZE_URL: `${issuer}/auth`,
      OIDC_TOKEN_URL: `${issuer}/token`,
    },
    admit(dashboardUrl, claims) {
      const origin = new URL(dashboardUrl).origin;
      const provider = new Provider(issuer, {
        clients: [
          {
            client_id: OIDC_CLIENT,
            token_endpoint_auth_method: 'none',
            redirect_uris: [`${origin}/auth/callback`],
            grant_types: ['authorization_code'],
            response_types: ['code'],
          },
        ],
        jwks: { keys: [jwk as never] },
        cookies: { keys: [randomBytes(32).toString('hex')] },
        pkce: { required: () => true, methods: ['S256'] },
        clientBasedCORS: (_ctx, requestOrigin) => requestOrigin === origin,
        findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => ({ sub }) }),
        extraTokenClaims: async () => claims,
        features: {
          devInteractions: { enabled: true },
          resourceIndicators: {
            enabled: true,
            defaultResource: async () => OIDC_AUDIENCE,
            useGrantedResource: async () => true,
            getResourceServerInfo: async () => ({
              scope: 'openid',
              audience: OIDC_AUDIENCE,
              accessTokenTTL: 600,
              accessTokenFormat: 'jwt',
              jwt: { sign: { alg: 'RS256' } },
            }),
          },
        },
      });
      handler = provider.callback();
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
