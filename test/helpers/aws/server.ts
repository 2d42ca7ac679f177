// A loopback AWS for the real AWS SDK for JavaScript v3 (pointed at it through AWS_ENDPOINT_URL, S3 with
// forcePathStyle): one listener for every service, told apart as AWS tells them apart, by the signing scope
// of the request's SigV4 `Authorization` (`Credential=<key>/<date>/<region>/<service>/aws4_request`); the
// caller's account is the one its access key belongs to (the long-term key, or a key AssumeRole issued).
// The signature itself is not checked. Every call is recorded (service, action, account), so a test can
// assert the connector only read; `throttle` makes an action fail with that service's throttling error the
// given number of times first, as AWS does under load, for the SDK's retry strategy to ride out.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { BadToken, type AccountEstate, type Estate } from './estate.js';
import { ec2 } from './ec2.js';
import { elbv2 } from './elbv2.js';
import { iam } from './iam.js';
import { lambda } from './lambda.js';
import { rds } from './rds.js';
import { s3 } from './s3.js';
import { sts } from './sts.js';

export interface StandInRequest {
  method: string;
  url: URL;
  body: string;
  /** the query protocols' parameters (form body), or the REST protocols' query string */
  params: URLSearchParams;
  account: string;
  region: string;
  estate: AccountEstate;
  /** the caller's ARN (the user of the long-term key, or the assumed-role session) */
  callerArn: string;
  /** the stand-in's page size cap */
  pageSize: number;
  standIn: AwsStandIn;
}

export interface StandInReply {
  status: number;
  type: string;
  body: string;
  headers?: Record<string, string>;
}

export interface StandInService {
  /** The SigV4 signing name (`elasticloadbalancing` for ELBv2). */
  signingName: string;
  action(request: StandInRequest): string;
  handle(action: string, request: StandInRequest): StandInReply;
  /** The throttling error as this service sends it. */
  throttled(action: string): StandInReply;
  error(status: number, code: string, message: string): StandInReply;
}

export interface StandInCall {
  service: string;
  action: string;
  account: string;
  region: string;
}

const SERVICES = [ec2, iam, sts, s3, rds, elbv2, lambda];

export class AwsStandIn {
  readonly calls: StandInCall[] = [];
  /**
   * `service:Action` (or `service:Action@<account>`, one account's calls alone) -> how many more calls of it
   * fail with the throttling error
   */
  readonly throttle = new Map<string, number>();
  /** how many calls were answered with a throttling error */
  throttled = 0;
  url = '';
  private server?: http.Server;
  private readonly keys = new Map<string, { account: string; arn: string }>();
  private issued = 0;

  /** `pageSize`: the most items one page holds (AWS's own maxima are larger; a small cap makes tests page). */
  constructor(
    readonly estate: Estate,
    readonly pageSize = 2,
  ) {
    const { caller } = estate;
    this.keys.set(caller.accessKeyId, {
      account: caller.account,
      arn: `arn:aws:iam::${caller.account}:user/${caller.userName}`,
    });
  }

  /** A temporary key for an assumed role (STS AssumeRole). */
  issueKey(
    account: string,
    sessionArn: string,
  ): { accessKeyId: string; secretAccessKey: string; sessionToken: string } {
    this.issued += 1;
    const accessKeyId = `ASIASTANDIN${String(this.issued).padStart(9, '0')}`;
    this.keys.set(accessKeyId, { account, arn: sessionArn });
    return {
      accessKeyId,
      secretAccessKey: `standin-secret-${this.issued}`,
      sessionToken: `standin-session-${this.issued}`,
    };
  }

  async start(): Promise<void> {
    this.server = http.createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (c: Buffer) => chunks.push(c));
      request.on('end', () => {
        const reply = this.answer(request, Buffer.concat(chunks).toString('utf8'));
        response.writeHead(reply.status, {
          'content-type': reply.type,
          'x-amzn-requestid': 'standin',
          ...reply.headers,
        });
        response.end(reply.body);
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** Every recorded action, as `service:Action`. */
  actions(): string[] {
    return this.calls.map((c) => `${c.service}:${c.action}`);
  }

  private answer(request: http.IncomingMessage, body: string): StandInReply {
    const scope = /Credential=([^/]+)\/\d{8}\/([^/]+)\/([^/]+)\/aws4_request/.exec(
      String(request.headers.authorization ?? ''),
    );
    const plain = (status: number, message: string) => ({ status, type: 'text/plain', body: message });
    if (!scope) return plain(403, 'missing SigV4 Authorization');
    const [, accessKeyId, region, signingName] = scope;
    const service = SERVICES.find((s) => s.signingName === signingName);
    if (!service) return plain(400, `no such service ${signingName}`);
    const identity = this.keys.get(accessKeyId);
    if (!identity)
      return service.error(
        403,
        'InvalidClientTokenId',
        'The security token included in the request is invalid.',
      );
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const form = String(request.headers['content-type'] ?? '').startsWith(
      'application/x-www-form-urlencoded',
    );
    const standInRequest: StandInRequest = {
      method: request.method ?? 'GET',
      url,
      body,
      params: form ? new URLSearchParams(body) : url.searchParams,
      account: identity.account,
      region,
      estate: this.estate.accounts[identity.account] ?? {},
      callerArn: identity.arn,
      pageSize: this.pageSize,
      standIn: this,
    };
    const action = service.action(standInRequest);
    this.calls.push({ service: signingName, action, account: identity.account, region });
    const key = [`${signingName}:${action}@${identity.account}`, `${signingName}:${action}`].find(
      (k) => (this.throttle.get(k) ?? 0) > 0,
    );
    const left = key ? this.throttle.get(key)! : 0;
    if (key && left > 0) {
      this.throttle.set(key, left - 1);
      this.throttled += 1;
      return service.throttled(action);
    }
    try {
      return service.handle(action, standInRequest);
    } catch (error) {
      if (error instanceof BadToken) return service.error(400, 'InvalidParameterValue', error.message);
      throw error;
    }
  }
}
