// `pathgate awscollect`: the clouda connector's pull (src/connectors/clouda/), run once from a shell. Posts
// each account's reports to a running ingest listener as complete snapshots (`snapshot=aws:<account>/<region>`,
// signed with $INGEST_HMAC_SECRET when set, as `ingestreal` does), or with -json writes them to a folder for
// a user to post themselves. Credentials are the AWS SDK's (environment, profile, SSO, instance role);
// AWS_ENDPOINT_URL is honoured.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { signedPostHeaders } from '../src/auth/ingest-signature.js';
import type { PulledReport } from '../src/connectors/connector.js';
import { describeError, type CommandSpec } from './cli-flags.js';

export const AWSCOLLECT_COMMAND = {
  name: 'awscollect',
  summary: 'pull the AWS estate once (read-only) and post it to ingest, or write the reports with -json',
  synopsis: '[-json DIR] [-url URL] [-region R] [-role ARN,...] [-tenant T]',
  description:
    "The same collection as the clouda connector in sdk mode (docs/connectors.md): per account (each -role assumed through STS, else the credentials' own account), EC2 network state, IAM authorization details, S3 buckets, RDS instances, load balancers and Lambda functions, as cloudnet, iam and custodian reports, each a complete snapshot of aws:<account>/<region> sent with account=<account>, as the connector sends it. Credentials are the AWS SDK's own (AWS_PROFILE, AWS_ACCESS_KEY_ID, SSO, instance role); AWS_ENDPOINT_URL is honoured. With -json DIR nothing is posted: each report is written as DIR/<source>.<account>.<region>.json, and the line printed for it says where to POST it. Posts are signed (v2) with $INGEST_HMAC_SECRET when set.",
  flags: {
    json: { type: 'string', value: 'DIR', help: 'write the reports to DIR instead of posting them' },
    url: {
      type: 'string',
      value: 'URL',
      url: true,
      default: 'http://127.0.0.1:8081',
      help: 'the ingest listener to post to',
    },
    region: { type: 'string', value: 'R', help: 'the region (default $CLOUDA_REGION, else $AWS_REGION)' },
    role: {
      type: 'string',
      value: 'ARN,...',
      help: "roles to assume, one per account (default $CLOUDA_ROLE_ARN; none: the credentials' account)",
    },
    tenant: { type: 'string', value: 'T', help: 'the tenant (X-Tenant)' },
  },
  exits:
    '0 every account pulled and every report accepted (or written), 1 an account failed or a report was refused',
} as const satisfies CommandSpec;

/** Where `-json` writes a report, named so that its source and scope can be read back from the name. */
export function reportFileName(report: PulledReport): string {
  return `${report.source}.${report.scope.replace(/^aws:/, '').replace('/', '.')}.json`;
}

export async function awscollectCommand(options: {
  json?: string;
  url: string;
  region?: string;
  roles?: string;
  tenant?: string;
  env: NodeJS.ProcessEnv;
  out: (line: string) => void;
  err: (line: string) => void;
}): Promise<number> {
  const region = options.region || options.env.CLOUDA_REGION || options.env.AWS_REGION;
  if (!region) {
    options.err('pathgate awscollect: no region: give -region, or set CLOUDA_REGION or AWS_REGION');
    return 64;
  }
  const roleArns = (options.roles ?? options.env.CLOUDA_ROLE_ARN ?? '')
    .split(',')
    .map((r) => r.trim())
    .filter(Boolean);
  // Loaded here, not with the command table: every other command starts without reading the AWS SDK.
  const { pullCloudaAccounts } = await import('../src/connectors/clouda/sdk.js');
  const result = await pullCloudaAccounts({ region, roleArns }, AbortSignal.timeout(30 * 60_000));
  let failed = result.failures.length > 0;
  for (const failure of result.failures)
    options.err(`pathgate awscollect: account ${failure.account}: ${failure.error}`);
  if (options.json) await mkdir(options.json, { recursive: true });
  const secret = options.env.INGEST_HMAC_SECRET || undefined;
  for (const account of result.accounts) {
    options.out(
      `account ${account.account}: ${account.reports.length} reports, ${account.calls ?? 0} API calls`,
    );
    for (const report of account.reports) {
      const body = JSON.stringify(report.body);
      // As the connector runtime sends them: the scope, and the account that qualifies the report's names.
      const target = `/ingest/${report.source}?snapshot=${encodeURIComponent(report.scope)}&account=${account.account}`;
      if (options.json) {
        const file = path.join(options.json, reportFileName(report));
        await writeFile(file, body);
        options.out(`  ${file}: POST ${target}`);
        continue;
      }
      const url = new URL(target, options.url);
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (options.tenant) headers['x-tenant'] = options.tenant;
      if (secret) Object.assign(headers, signedPostHeaders(secret, url, body));
      try {
        const response = await fetch(url, {
          method: 'POST',
          headers,
          body,
          signal: AbortSignal.timeout(120_000),
        });
        const answer = (await response.json().catch(() => ({}))) as Record<string, unknown>;
        if (response.status === 202)
          options.out(
            `  ${report.source} ${report.scope} -> 202, ${answer.nodes} nodes, ${answer.edges} edges`,
          );
        else {
          failed = true;
          options.err(
            `pathgate awscollect: ${report.source} ${report.scope} -> ${response.status} ${String(answer.detail ?? answer.title ?? '')}`,
          );
        }
      } catch (error) {
        options.err(`pathgate awscollect: cannot reach ${url.origin}: ${describeError(error)}`);
        return 1;
      }
    }
  }
  return failed ? 1 : 0;
}
