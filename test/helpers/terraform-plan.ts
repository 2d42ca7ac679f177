// Minimal `terraform show -json` pieces for the terraform source's unit tests: a managed resource named by
// its address (`aws_instance.web` is of type `aws_instance`, named `web`), a plan of such resources, and the
// real public plans and states kept in fixtures/unseen/terraform, read as `pathgate ingestreal` reads them.
import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import { decodeReportFile, readReport, recognizeReport } from '../../src/ingest/recognize.js';

export const ACCOUNT = '111122223333';

export const res = (address: string, values: Record<string, unknown>) => ({
  address,
  mode: 'managed',
  type: address.split('.')[0],
  name: address.split('.')[1],
  values,
});

/** A plan holding `resources` (planned values only), with any other top-level fields. */
export const plan = (resources: unknown[], extra: Record<string, unknown> = {}) => ({
  format_version: '1.2',
  planned_values: { root_module: { resources } },
  resource_changes: [],
  ...extra,
});

/** A real plan or state of fixtures/unseen/terraform as it is, checked to be recognised as Terraform's. */
export const unseenPlan = (path: string): Record<string, unknown> => {
  const { body } = readReport(
    decodeReportFile(readFileSync(new URL(`../../fixtures/unseen/terraform/${path}`, import.meta.url))),
  );
  expect(recognizeReport(body), path).toBe('terraform');
  return body as Record<string, unknown>;
};

/** A bucket policy letting anyone get the `exports` bucket's objects, with the statement's other fields. */
export const publicReadPolicy = (extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    Version: '2012-10-17',
    Statement: [
      {
        Effect: 'Allow',
        Principal: '*',
        Action: 's3:GetObject',
        Resource: 'arn:aws:s3:::exports/*',
        ...extra,
      },
    ],
  });
