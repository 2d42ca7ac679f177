// Terraform plans (BENCH_SUITES=terraform): a plan of N buckets, each with an `aws_s3_bucket_acl` naming it
// by reference (through the plan's configuration, as `terraform show -json` records `bucket =
// aws_s3_bucket.b.id`) and a public access block naming it by name, through the terraform normalizer alone
// (the event loop is held for exactly this long per report). Issue 31: each bucket scanned the whole plan,
// so time grew with the square of the buckets (20,000 buckets: 6.7 s); indexed once, it grows linearly.
// Prints the time at 10,000, 20,000 and 40,000 buckets (BENCH_TERRAFORM_SIZES) and the time per 1,000.
import { createTerraformSource } from '../src/ingest/sources/terraform.js';

export function syntheticBucketPlan(buckets: number): Record<string, unknown> {
  const resources: unknown[] = [];
  const configured: unknown[] = [];
  for (let i = 0; i < buckets; i++) {
    const name = `bucket-${i}`;
    resources.push(
      {
        address: `aws_s3_bucket.b${i}`,
        mode: 'managed',
        type: 'aws_s3_bucket',
        name: `b${i}`,
        values: { bucket: name, tags: { team: 'data' } },
      },
      {
        address: `aws_s3_bucket_acl.b${i}`,
        mode: 'managed',
        type: 'aws_s3_bucket_acl',
        name: `b${i}`,
        values: { acl: i % 50 === 0 ? 'public-read' : 'private' },
      },
      {
        address: `aws_s3_bucket_public_access_block.b${i}`,
        mode: 'managed',
        type: 'aws_s3_bucket_public_access_block',
        name: `b${i}`,
        values: { bucket: name, block_public_acls: i % 3 === 0, ignore_public_acls: i % 3 === 0 },
      },
    );
    configured.push({
      address: `aws_s3_bucket_acl.b${i}`,
      mode: 'managed',
      type: 'aws_s3_bucket_acl',
      name: `b${i}`,
      expressions: { bucket: { references: [`aws_s3_bucket.b${i}.id`, `aws_s3_bucket.b${i}`] } },
    });
  }
  return {
    format_version: '1.2',
    planned_values: { root_module: { resources } },
    resource_changes: [],
    configuration: { root_module: { resources: configured } },
  };
}

export async function runTerraformBench(): Promise<void> {
  const sizes = (process.env.BENCH_TERRAFORM_SIZES ?? '10000,20000,40000').split(',').map(Number);
  const source = createTerraformSource();
  console.log('\nterraform plans: buckets through the terraform normalizer (main thread, ms)');
  // One small plan first: the code paths are compiled before anything is timed.
  source.normalize({ body: syntheticBucketPlan(500), query: {}, receivedAt: new Date().toISOString() });
  for (const size of sizes) {
    const body = syntheticBucketPlan(size);
    const started = process.hrtime.bigint();
    const { envelopes } = source.normalize({ body, query: {}, receivedAt: new Date().toISOString() });
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    const nodes = envelopes.reduce((n, e) => n + e.nodes.length, 0);
    console.log(
      `  ${String(size).padStart(6)} buckets: ${ms.toFixed(0).padStart(6)} ms  (${(ms / (size / 1000)).toFixed(1)} ms per 1,000 buckets; ${nodes} nodes)`,
    );
  }
}
