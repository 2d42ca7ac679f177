// The AWS SDK v3 clients of one account and region. Credentials are the SDK's default chain (environment,
// shared config, web identity, container or instance role) unless given; the endpoint is the SDK's own
// setting (`AWS_ENDPOINT_URL`, `AWS_ENDPOINT_URL_<SERVICE>`), with S3 path-style when one is set (a
// custom endpoint has no per-bucket host names); retries are the SDK's standard strategy (throttling
// errors backed off; `AWS_MAX_ATTEMPTS`, `AWS_RETRY_MODE`). Every operation is counted.
import { EC2Client, type EC2ClientConfig } from '@aws-sdk/client-ec2';
import { ElasticLoadBalancingV2Client } from '@aws-sdk/client-elastic-load-balancing-v2';
import { IAMClient } from '@aws-sdk/client-iam';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { RDSClient } from '@aws-sdk/client-rds';
import { S3Client } from '@aws-sdk/client-s3';
import { STSClient } from '@aws-sdk/client-sts';
/** Static credentials or a provider, as every client takes them. */
export type Credentials = NonNullable<EC2ClientConfig['credentials']>;

export interface AccountClients {
  ec2: EC2Client;
  iam: IAMClient;
  sts: STSClient;
  s3: S3Client;
  rds: RDSClient;
  elbv2: ElasticLoadBalancingV2Client;
  lambda: LambdaClient;
  /** operations sent so far (each page counts; a retried attempt does not) */
  calls(): number;
  destroy(): void;
}

/** Whether the SDK is pointed at a custom endpoint (S3 then needs path-style addressing). */
export function customEndpoint(env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(env.AWS_ENDPOINT_URL || env.AWS_ENDPOINT_URL_S3);
}

export function accountClients(region: string, credentials?: Credentials): AccountClients {
  const config = { region, ...(credentials && { credentials }) };
  const clients = {
    ec2: new EC2Client(config),
    iam: new IAMClient(config),
    sts: new STSClient(config),
    s3: new S3Client({ ...config, forcePathStyle: customEndpoint(), followRegionRedirects: true }),
    rds: new RDSClient(config),
    elbv2: new ElasticLoadBalancingV2Client(config),
    lambda: new LambdaClient(config),
  };
  let calls = 0;
  const count = { step: 'initialize', name: 'pathgateCallCounter' } as const;
  for (const client of Object.values(clients))
    (client.middlewareStack as { add(middleware: unknown, options: typeof count): void }).add(
      (next: (args: unknown) => Promise<unknown>) => (args: unknown) => {
        calls += 1;
        return next(args);
      },
      count,
    );
  return {
    ...clients,
    calls: () => calls,
    destroy: () => Object.values(clients).forEach((c) => c.destroy()),
  };
}
