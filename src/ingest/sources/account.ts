// Cloud sources name things per account: `?account=<12-digit id>` (or the account a report or an ARN
// names) qualifies node names as `<account>/<name>`, so identical ids in different accounts stay separate
// nodes. A malformed account is a 400 naming the parameter.
import { ProblemError } from '../../http/problems.js';

const ACCOUNT_ID = /^\d{12}$/;

/** The `account` query parameter, checked; undefined when absent. */
export function accountParameter(query: Record<string, string | undefined>): string | undefined {
  const raw = query.account;
  if (raw === undefined || raw === '') return undefined;
  if (!ACCOUNT_ID.test(raw))
    throw new ProblemError(
      'invalid-query',
      `account must be a 12-digit account id, not ${JSON.stringify(raw)}`,
      {
        errors: [{ pointer: '/query/account', value: raw, detail: 'a 12-digit account id' }],
      },
    );
  return raw;
}

export function qualify(name: string, account: string | undefined): string {
  return account ? `${account}/${name}` : name;
}

/** `arn:aws:iam::123456789012:role/path/Admin` -> { account, kind: 'role', name: 'Admin' } */
export function parseIamArn(arn: string): { account: string; kind: string; name: string } | undefined {
  const match = /^arn:aws[a-z-]*:iam::(\d{12}):(role|user|group|policy)\/(?:.*\/)?([^/]+)$/.exec(arn.trim());
  return match ? { account: match[1], kind: match[2], name: match[3] } : undefined;
}
