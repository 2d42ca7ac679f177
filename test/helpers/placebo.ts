// Cloud Custodian's placebo recordings (../shared/fixtures/real/custodian, awsnet): each file is
// `{status_code, data}` with datetimes as `{__class__: "datetime", year, ...}`. This reads a recording's
// `data` with datetimes turned into ISO strings, and wraps resources into the custodian source's body.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { REAL } from './normalize.js';

function unwrap(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(unwrap);
  if (value && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    if (o.__class__ === 'datetime') {
      const n = (k: string) => String(o[k] ?? 0).padStart(2, '0');
      return `${o.year}-${n('month')}-${n('day')}T${n('hour')}:${n('minute')}:${n('second')}Z`;
    }
    return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, unwrap(v)]));
  }
  return value;
}

/** The `data` of every recording in a placebo directory, by file name without `.json`. */
export function placebo(dir: string): Record<string, any> {
  const full = path.join(REAL, dir);
  return Object.fromEntries(
    readdirSync(full)
      .filter((f) => f.endsWith('.json'))
      .sort()
      .map((f) => [
        f.replace(/\.json$/, ''),
        (unwrap(JSON.parse(readFileSync(path.join(full, f), 'utf8'))) as { data: unknown }).data,
      ]),
  );
}

export function custodianBody(
  account: string,
  policies: { resource: string; resources: unknown[] }[],
  region = 'us-east-1',
) {
  return {
    provider: 'aws',
    account_id: account,
    region,
    policies: policies.map((p, i) => ({ policy: `policy-${i}`, ...p })),
  };
}
