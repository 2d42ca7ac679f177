// The GitHub App settings (GITHUB_*) and the GitHub server it talks to: read by loadSettings (settings.ts).
import { TenantRepos } from '../forge/tenant-repos.js';
import { type Reader, parseHostName, parseUrl } from './parsers.js';
import { readSecret } from './auth-settings.js';
import type { Env } from './settings.js';

export interface GithubSettings {
  /** WEBHOOK_SECRET: webhooks are taken only with it */
  webhookSecret?: string;
  /** FORGE_TOKEN: token mode (no App): comments and statuses written with this token */
  token?: string;
  /** APP_ID and PRIVATE_KEY: without both the app runs dry */
  appId?: string;
  privateKey?: string;
  /** FORGE_API_URL, or from GHE_HOST: GitHub's REST API (GitHub Enterprise Server: https://<host>/api/v3) */
  apiUrl: string;
  /** WEBHOOK_PROXY_URL: a smee.io channel whose webhooks are forwarded to this service (local development) */
  webhookProxyUrl?: string;
  /** REPO_ALLOWLIST entries by the tenant whose repositories they name (src/forge/tenant-repos.ts) */
  allowlist: Map<string, string[]>;
  /** PUBLIC_URL: where people open pathgate (links in comments and statuses) */
  publicUrl?: string;
  /** a dashboard is configured (DASHBOARD_ADDR): the pages links point at exist (app/github/links.ts) */
  dashboard?: boolean;
}

/** Which GitHub the app talks to: its REST API and its web pages (where Apps are registered). */
export interface GithubServer {
  apiUrl: string;
  /** `https://github.com`, or `https://<GHE_HOST>` */
  webUrl: string;
}

export function readGithub(
  env: Env,
  problems: string[],
  read: Reader,
  server: GithubServer,
  publicUrl: string | undefined,
): GithubSettings | undefined {
  const webhookSecret = readSecret(env, 'WEBHOOK_SECRET', problems);
  const appId = read<string | undefined>(
    'APP_ID',
    (t) => {
      if (!/^\d+$/.test(t.trim())) throw new Error('is not a GitHub App id (digits)');
      return t.trim();
    },
    undefined,
  );
  const privateKey = readSecret(env, 'PRIVATE_KEY', problems)?.replace(/\\n/g, '\n');
  const token = readSecret(env, 'FORGE_TOKEN', problems)?.trim() || undefined;
  const { apiUrl } = server;
  const webhookProxyUrl = read<string | undefined>('WEBHOOK_PROXY_URL', parseUrl, undefined);
  const allowlist = read('REPO_ALLOWLIST', (t) => TenantRepos.parse(t), new Map<string, string[]>());
  if (privateKey !== undefined && !/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(privateKey))
    problems.push('PRIVATE_KEY is not a PEM private key');
  if ((appId === undefined) !== (privateKey === undefined))
    problems.push('APP_ID and PRIVATE_KEY go together: set both, or neither for a dry run');
  if (token !== undefined && appId !== undefined)
    problems.push('FORGE_TOKEN and APP_ID exclude each other: the App writes with its installation tokens');
  if (webhookSecret === undefined) {
    if (appId !== undefined)
      problems.push('APP_ID is set without WEBHOOK_SECRET: the app cannot verify its webhooks');
    if (webhookProxyUrl !== undefined)
      problems.push(
        'WEBHOOK_PROXY_URL is set without WEBHOOK_SECRET: the webhooks it forwards cannot be verified',
      );
    if (token === undefined) return undefined;
  }
  return {
    ...(webhookProxyUrl && { webhookProxyUrl }),
    webhookSecret,
    token,
    appId,
    privateKey,
    apiUrl: apiUrl.replace(/\/+$/, ''),
    allowlist,
    publicUrl,
    dashboard: Boolean(env.DASHBOARD_ADDR?.trim()),
  };
}

/**
 * GHE_HOST (as Probot reads it: `ghe.example.com` → `https://ghe.example.com/api/v3`) or FORGE_API_URL;
 * both naming different servers is refused. Problems are reported once (by the caller that passes them).
 */
export function readGithubServer(problems: string[], read: Reader): GithubServer {
  const gheHost = read<string | undefined>('GHE_HOST', parseHostName, undefined);
  const forgeApiUrl = read<string | undefined>('FORGE_API_URL', parseUrl, undefined);
  const fromHost = gheHost && `https://${gheHost}/api/v3`;
  if (fromHost && forgeApiUrl && forgeApiUrl.replace(/\/+$/, '') !== fromHost)
    problems.push(
      `GHE_HOST=${JSON.stringify(gheHost)} and FORGE_API_URL=${JSON.stringify(forgeApiUrl)} name different GitHub servers: set one (GHE_HOST means ${fromHost})`,
    );
  const apiUrl = (fromHost ?? forgeApiUrl ?? 'https://api.github.com').replace(/\/+$/, '');
  const api = new URL(apiUrl);
  const webUrl =
    api.hostname === 'api.github.com'
      ? 'https://github.com'
      : `${api.protocol}//${api.host}${api.pathname.replace(/\/api\/v3\/?$/, '').replace(/\/+$/, '')}`;
  return { apiUrl, webUrl };
}
