// `clouda` in `sdk` mode: the AWS estate pulled live through the AWS SDK for JavaScript v3, read-only
// (docs/connectors.md lists the actions). With no role ARNs, the account of the credentials the SDK finds;
// with `CLOUDA_ROLE_ARN`'s list, each role assumed in turn from those credentials, its account the one STS
// reports for the assumed credentials. An account whose role or calls fail is a failure entry (the
// action that failed and AWS's error code and message, never a credential); the others proceed.
import { AssumeRoleCommand } from '@aws-sdk/client-sts';
import type { AccountFailure, AccountPull, ConnectorSource, PullResult } from '../connector.js';
import { accountClients, type AccountClients, type Credentials } from './clients.js';
import { callerAccount, collectAccount } from './collect.js';
import { PullStepError, safeMessage, step } from './steps.js';

export interface CloudaSdkOptions {
  /** `CLOUDA_REGION` */
  region: string;
  /** `CLOUDA_ROLE_ARN`'s roles, one per account; empty: the credentials' own account */
  roleArns?: readonly string[];
  /** the starting credentials; the SDK's default chain when absent */
  credentials?: Credentials;
  /** how many accounts are pulled at once (default 4) */
  concurrency?: number;
}

const SESSION_NAME = 'pathgate-clouda';

export function createCloudaSdkSource(options: CloudaSdkOptions): ConnectorSource {
  return { name: 'clouda', mode: 'sdk', pull: (signal) => pullCloudaAccounts(options, signal) };
}

/** The account a role ARN names (for a failure before STS could say). */
function accountOfRole(roleArn: string): string {
  return /^arn:aws[a-z-]*:iam::(\d{12}):role\//.exec(roleArn)?.[1] ?? roleArn;
}

function failureMessage(error: unknown): string {
  if (error instanceof PullStepError) return error.message;
  const e = error as { name?: string; message?: string };
  return safeMessage(`${e.name ?? 'Error'}: ${e.message ?? String(error)}`);
}

async function pullOne(
  options: CloudaSdkOptions,
  roleArn: string | undefined,
  signal: AbortSignal,
): Promise<AccountPull | AccountFailure> {
  let clients: AccountClients | undefined;
  let account = roleArn ? accountOfRole(roleArn) : 'credentials';
  let stsCalls = 0;
  try {
    if (roleArn) {
      const base = accountClients(options.region, options.credentials);
      try {
        const assumed = await step(signal, 'sts:AssumeRole', () =>
          base.sts.send(new AssumeRoleCommand({ RoleArn: roleArn, RoleSessionName: SESSION_NAME }), {
            abortSignal: signal,
          }),
        );
        const c = assumed.Credentials;
        if (!c?.AccessKeyId || !c.SecretAccessKey)
          throw new PullStepError('sts:AssumeRole', 'NoCredentials', 'the answer held no credentials');
        clients = accountClients(options.region, {
          accessKeyId: c.AccessKeyId,
          secretAccessKey: c.SecretAccessKey,
          sessionToken: c.SessionToken,
          expiration: c.Expiration,
        });
      } finally {
        stsCalls = base.calls();
        base.destroy();
      }
    } else clients = accountClients(options.region, options.credentials);
    account = await callerAccount(clients, signal);
    const pulled = await collectAccount(clients, account, options.region, signal);
    return { ...pulled, calls: (pulled.calls ?? 0) + stsCalls };
  } catch (error) {
    if (signal.aborted) throw error;
    return { account, error: failureMessage(error) };
  } finally {
    clients?.destroy();
  }
}

export async function pullCloudaAccounts(
  options: CloudaSdkOptions,
  signal: AbortSignal,
): Promise<PullResult> {
  const roles: (string | undefined)[] = options.roleArns?.length ? [...options.roleArns] : [undefined];
  const results: (AccountPull | AccountFailure)[] = new Array(roles.length);
  let next = 0;
  const worker = async () => {
    while (next < roles.length) {
      const index = next++;
      results[index] = await pullOne(options, roles[index], signal);
    }
  };
  await Promise.all(Array.from({ length: Math.min(options.concurrency ?? 4, roles.length) }, worker));
  return {
    accounts: results.filter((r): r is AccountPull => 'reports' in r),
    failures: results.filter((r): r is AccountFailure => 'error' in r),
  };
}
