// Every call the dashboard makes goes to /api/* on its own origin, which the dashboard listener forwards
// to the public API (app/dashboard-server.ts) with the Authorization header unchanged.
const TOKEN_KEY = 'pathgate.token';

export function storedToken(): string | null {
  return sessionStorage.getItem(TOKEN_KEY);
}

export function storeToken(token: string | null): void {
  if (token === null) sessionStorage.removeItem(TOKEN_KEY);
  else sessionStorage.setItem(TOKEN_KEY, token);
}

/** An answer the API refused: the problem's detail, and its status. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function headers(extra: Record<string, string> = {}): Record<string, string> {
  const token = storedToken();
  return { accept: 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}), ...extra };
}

async function problemOf(response: Response): Promise<ApiError> {
  let detail = `${response.status} ${response.statusText}`;
  try {
    const body = (await response.json()) as { detail?: string; title?: string };
    detail = body.detail ?? body.title ?? detail;
  } catch {
    // not JSON: the status says it
  }
  return new ApiError(response.status, detail);
}

export async function rest<T>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`/api${path}`, {
    method,
    headers: headers(body === undefined ? {} : { 'content-type': 'application/json' }),
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw await problemOf(response);
  const text = await response.text();
  return (text ? JSON.parse(text) : null) as T;
}

/** A download with its headers (exports: the signature travels in X-Service-Signature). */
export async function download(path: string): Promise<{ blob: Blob; headers: Headers }> {
  const response = await fetch(`/api${path}`, { headers: headers({ accept: '*/*' }) });
  if (!response.ok) throw await problemOf(response);
  return { blob: await response.blob(), headers: response.headers };
}

export async function gql<T>(query: string, variables: Record<string, unknown> = {}): Promise<T> {
  const response = await fetch('/api/graphql', {
    method: 'POST',
    headers: headers({ 'content-type': 'application/json' }),
    body: JSON.stringify({ query, variables }),
  });
  if (!response.ok && response.status !== 200) {
    const error = await problemOf(response);
    throw error;
  }
  const body = (await response.json()) as { data?: T; errors?: { message: string }[] };
  if (body.errors?.length) throw new ApiError(200, body.errors.map((e) => e.message).join('; '));
  return body.data as T;
}

export interface AuthConfig {
  authRequired: boolean;
  mode: string;
  oidc?: {
    clientId: string | null;
    authorizeUrl: string | null;
    tokenUrl: string | null;
    logoutUrl: string | null;
    issuer: string;
  };
  anonymousRole?: string;
}

export interface Me {
  subject: string;
  role: string;
  tenant: string | null;
  anonymous: boolean;
  canWrite: boolean;
  apps?: string[];
}
