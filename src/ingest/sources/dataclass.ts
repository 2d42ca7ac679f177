// Source `dataclass`: data-classification findings (DECISIONS.md), `{source, records: [{asset, label,
// kind, account?, region?}]}`. Each record marks the asset (by label and name, qualified by its account)
// a crown jewel with `crown_jewel_basis = classified:<source>:<kind>`. A record without an account (in the
// record or `?account=`) joins the one asset of that label and name in any account, in the graph writer.
import { NODE_LABELS } from '../../graph/vocabulary.js';
import { ACCOUNT_UNKNOWN } from '../../graph/account-identity.js';
import { accountParameter, qualify } from './account.js';
import { EnvelopeBuilder } from './envelope-builder.js';
import { reportSchema } from './report-schema.js';
import type { IngestSource } from './source.js';

interface DataclassReport {
  source: string;
  records: { asset: string; label: string; kind: string; account?: string; region?: string }[];
}

export function createDataclassSource(): IngestSource {
  const check = reportSchema<DataclassReport>('dataclass', {
    type: 'object',
    required: ['source', 'records'],
    properties: {
      source: { type: 'string', minLength: 1, pattern: '^[A-Za-z0-9._-]+$' },
      records: {
        type: 'array',
        items: {
          type: 'object',
          required: ['asset', 'label', 'kind'],
          properties: {
            asset: { type: 'string', minLength: 1, pattern: '\\S' },
            label: { enum: [...NODE_LABELS] },
            kind: { type: 'string', minLength: 1, pattern: '^[A-Za-z0-9._-]+$' },
            account: { type: 'string', pattern: '^\\d{12}$' },
            region: { type: 'string' },
          },
        },
      },
    },
  });
  return {
    name: 'dataclass',
    version: '2',
    description: 'Data-classification findings: marks assets crown_jewel (classified:<source>:<kind>).',
    snapshots: 'query',
    normalize({ body, query, receivedAt }) {
      const account = accountParameter(query);
      const report = check(body);
      const out = new EnvelopeBuilder('dataclass', 'finding', receivedAt);
      for (const record of report.records) {
        const owner = record.account ?? account;
        out.node(record.label as never, qualify(record.asset.trim(), owner), {
          // Without an account, the writer joins the one asset of this label and name (DECISIONS "Accounts").
          ...(owner === undefined && { [ACCOUNT_UNKNOWN]: true }),
          crown_jewel: true,
          crown_jewel_basis: `classified:${report.source}:${record.kind}`,
          data_classification: record.kind,
          account: record.account ?? account,
          region: record.region,
        });
      }
      return { envelopes: [out.build()], warnings: [] };
    },
  };
}
