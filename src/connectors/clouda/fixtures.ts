// `clouda` in fixtures mode: AWS state as the AWS CLI prints it, one folder per account, read on every pull
// (demos, tests, and teams that already dump `aws ... --output json` on a schedule). Each account folder
// becomes up to three complete snapshots of `aws:<account>/<region>`, in the shapes the cloud sources read:
//   cloudnet   <- ec2-describe-security-groups.json, ec2-describe-instances.json, ec2-describe-subnets.json,
//                 ec2-describe-route-tables.json, ec2-describe-network-acls.json,
//                 ec2-describe-vpc-peering-connections.json, ec2-describe-network-interfaces.json,
//                 iam-list-instance-profiles.json (each the whole response, `{"SecurityGroups": [...]}`)
//   iam        <- iam-get-account-authorization-details.json
//   custodian  <- custodian.json (Cloud Custodian resources wrapped as `{provider, account_id, policies}`)
// A folder that cannot be read, or a file that is not JSON, is that account's failure: its previous
// snapshots stay. Files the connector does not know are ignored (named in no error), so a dump of more
// calls than it reads still works.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { AccountFailure, AccountPull, ConnectorSource, PulledReport, PullResult } from '../connector.js';

/** file -> the cloudnet bundle field it fills (DECISIONS.md, "Body shapes the spec leaves open") */
export const CLOUDNET_FILES: Readonly<Record<string, string>> = {
  'ec2-describe-security-groups.json': 'security_groups',
  'ec2-describe-instances.json': 'instances',
  'ec2-describe-vpc-peering-connections.json': 'vpc_peerings',
  'ec2-describe-subnets.json': 'subnets',
  'ec2-describe-route-tables.json': 'route_tables',
  'ec2-describe-network-acls.json': 'network_acls',
  'ec2-describe-network-interfaces.json': 'network_interfaces',
  'iam-list-instance-profiles.json': 'instance_profiles',
};
export const IAM_FILE = 'iam-get-account-authorization-details.json';
export const CUSTODIAN_FILE = 'custodian.json';

const ACCOUNT = /^\d{12}$/;

async function readJson(file: string): Promise<unknown> {
  const text = await readFile(file, 'utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new Error(`${path.basename(file)} is not JSON (${(error as Error).message})`, { cause: error });
  }
}

/** One account folder's reports; throws (the account's failure) when a known file cannot be read. */
export async function readAccountFolder(
  dir: string,
  account: string,
  region: string,
): Promise<PulledReport[]> {
  const files = new Set(await readdir(dir));
  const scope = `aws:${account}/${region}`;
  const reports: PulledReport[] = [];
  const bundle: Record<string, unknown> = { provider: 'aws' };
  for (const [file, field] of Object.entries(CLOUDNET_FILES))
    if (files.has(file)) bundle[field] = await readJson(path.join(dir, file));
  if (Object.keys(bundle).length > 1) reports.push({ source: 'cloudnet', scope, body: bundle });
  if (files.has(IAM_FILE))
    reports.push({ source: 'iam', scope, body: await readJson(path.join(dir, IAM_FILE)) });
  if (files.has(CUSTODIAN_FILE))
    reports.push({ source: 'custodian', scope, body: await readJson(path.join(dir, CUSTODIAN_FILE)) });
  if (!reports.length)
    throw new Error(
      `holds none of the files clouda reads (${[...Object.keys(CLOUDNET_FILES), IAM_FILE, CUSTODIAN_FILE].join(', ')})`,
    );
  return reports;
}

export function createCloudaFixturesSource(options: { dir: string; region: string }): ConnectorSource {
  return {
    name: 'clouda',
    mode: 'fixtures',
    async pull(signal: AbortSignal): Promise<PullResult> {
      const entries = await readdir(options.dir, { withFileTypes: true });
      const accounts: AccountPull[] = [];
      const failures: AccountFailure[] = [];
      for (const entry of entries
        .filter((e) => e.isDirectory())
        .sort((a, b) => a.name.localeCompare(b.name))) {
        signal.throwIfAborted();
        // Only account folders: a README or a notes folder beside them is not an account.
        if (!ACCOUNT.test(entry.name)) continue;
        try {
          const reports = await readAccountFolder(
            path.join(options.dir, entry.name),
            entry.name,
            options.region,
          );
          accounts.push({ account: entry.name, reports, calls: 0 });
        } catch (error) {
          failures.push({ account: entry.name, error: `fixtures: ${describe(error)}` });
        }
      }
      return { accounts, failures };
    },
  };
}

/** An error's message and its system code, without the absolute path (the folder is the operator's own). */
function describe(error: unknown): string {
  const e = error as NodeJS.ErrnoException;
  if (e.code && e.path) return `${path.basename(e.path)}: ${e.code}`;
  return e.message ?? String(error);
}
