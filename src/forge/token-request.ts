// Token mode (FORGE_TOKEN): teams that do not install the App give pathgate a token, and the forge writes
// through GitHub's REST API with it (FORGE_API_URL for GitHub Enterprise Server). A GithubRequest in the
// shape of Octokit's `request` (`'POST /repos/{owner}/{repo}/statuses/{sha}'` and its parameters): path
// parameters substituted and encoded, the rest as the query (GET, DELETE) or the JSON body. A failed call
// throws an error with the HTTP `status` (the forge reads 404s) and GitHub's message, never the token.
import type { GithubRequest } from './forge.js';

export class GithubRequestError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

export function tokenRequest(options: {
  token: string;
  apiUrl: string;
  fetch?: typeof fetch;
  timeoutMs?: number;
  /** the longest rate-limit wait honoured before failing (default one minute) */
  maxRetryWaitMs?: number;
}): GithubRequest {
  const base = options.apiUrl.replace(/\/+$/, '');
  const send = options.fetch ?? fetch;
  return async (route, parameters) => {
    const [method, template] = route.split(' ');
    const rest: Record<string, unknown> = { ...parameters };
    const pathname = template.replace(/\{(\w+)\}/g, (_m, name: string) => {
      const value = rest[name];
      delete rest[name];
      if (value === undefined) throw new Error(`${route}: no value for {${name}}`);
      // A file path keeps its slashes; every other segment is one.
      return name === 'path'
        ? String(value).split('/').map(encodeURIComponent).join('/')
        : encodeURIComponent(String(value));
    });
    const url = new URL(`${base}${pathname}`);
    const bodyless = method === 'GET' || method === 'DELETE' || method === 'HEAD';
    if (bodyless)
      for (const [k, v] of Object.entries(rest)) if (v !== undefined) url.searchParams.set(k, String(v));
    const call = () =>
      send(url, {
        method,
        headers: {
          accept: 'application/vnd.github+json',
          authorization: `Bearer ${options.token}`,
          'x-github-api-version': '2022-11-28',
          'user-agent': 'pathgate',
          ...(!bodyless && { 'content-type': 'application/json' }),
        },
        body: bodyless ? undefined : JSON.stringify(rest),
        signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
      });
    let response = await call();
    // A secondary rate limit (403 or 429 with retry-after, or no primary quota left) is waited out once,
    // as GitHub asks, within a minute; the work is queued, so nobody waits on it but this pull request.
    const wait = retryAfterMs(response);
    if (wait !== undefined && wait <= (options.maxRetryWaitMs ?? 60_000)) {
      await response.body?.cancel();
      await new Promise((resolve) => setTimeout(resolve, wait));
      response = await call();
    }
    const text = await response.text();
    let data: unknown = text;
    try {
      data = text ? JSON.parse(text) : null;
    } catch {
      // a non-JSON answer is kept as text
    }
    if (!response.ok) {
      const message = (data as { message?: string } | null)?.message ?? response.statusText;
      throw new GithubRequestError(`${method} ${pathname}: ${response.status} ${message}`, response.status);
    }
    return { data };
  };
}

/** How long GitHub asks to wait before the next call, when the answer is a rate limit. */
function retryAfterMs(response: Response): number | undefined {
  if (response.status !== 403 && response.status !== 429) return undefined;
  const retryAfter = Number(response.headers.get('retry-after'));
  if (Number.isFinite(retryAfter) && retryAfter >= 0 && response.headers.has('retry-after'))
    return retryAfter * 1000;
  if (response.headers.get('x-ratelimit-remaining') === '0') {
    const reset = Number(response.headers.get('x-ratelimit-reset'));
    if (Number.isFinite(reset)) return Math.max(0, reset * 1000 - Date.now());
  }
  return undefined;
}
