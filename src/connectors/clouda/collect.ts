// One account's pull: its network (cloudnet), its IAM (iam), its buckets, databases and functions
// (custodian), each a complete snapshot of the scope `aws:<account>/<region>`. The account is the one STS
// reports for the credentials (GetCallerIdentity), never one read from configuration.
import { GetCallerIdentityCommand } from '@aws-sdk/client-sts';
import type { AccountPull, PulledReport } from '../connector.js';
import { pullAuthorization } from './authorization.js';
import type { AccountClients } from './clients.js';
import { pullNetwork } from './network.js';
import { pullResources } from './resources.js';
import { PullStepError, step } from './steps.js';

export function scopeOf(account: string, region: string): string {
  return `aws:${account}/${region}`;
}

export async function callerAccount(clients: AccountClients, signal: AbortSignal): Promise<string> {
  const identity = await step(signal, 'sts:GetCallerIdentity', () =>
    clients.sts.send(new GetCallerIdentityCommand({}), { abortSignal: signal }),
  );
  if (!identity.Account || !/^\d{12}$/.test(identity.Account))
    throw new PullStepError('sts:GetCallerIdentity', 'InvalidAccount', 'no 12-digit account in the answer');
  return identity.Account;
}

export async function collectAccount(
  clients: AccountClients,
  account: string,
  region: string,
  signal: AbortSignal,
): Promise<AccountPull> {
  const scope = scopeOf(account, region);
  const network = await pullNetwork(clients, signal);
  const authorization = await pullAuthorization(clients, signal);
  const policies = await pullResources(clients, signal);
  const reports: PulledReport[] = [];
  // A report that would say nothing is left out rather than sent: an empty complete snapshot is refused
  // (empty-snapshot), and the scope's previous one stays as it is.
  const lists = Object.values(network).filter(Array.isArray) as unknown[][];
  const reservations = (network.instances as { Reservations: unknown[] }).Reservations;
  if (reservations.length || lists.some((l) => l.length))
    reports.push({ source: 'cloudnet', scope, body: network });
  if (Object.values(authorization).some((l) => l.length))
    reports.push({ source: 'iam', scope, body: authorization });
  if (policies.some((p) => p.resources.length))
    reports.push({
      source: 'custodian',
      scope,
      body: { provider: 'aws', account_id: account, region, policies },
    });
  return { account, reports, calls: clients.calls() };
}
