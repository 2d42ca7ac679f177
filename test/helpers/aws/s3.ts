// S3 on its REST protocol, path-style (`/<bucket>?<subresource>`): ListBuckets (paged by
// continuation-token), GetBucketPolicy (the document as it was put, 404 NoSuchBucketPolicy without one),
// GetBucketAcl, GetPublicAccessBlock (404 NoSuchPublicAccessBlockConfiguration) and GetBucketTagging
// (404 NoSuchTagSet). Modelled on the examples of
// https://docs.aws.amazon.com/AmazonS3/latest/API/API_ListBuckets.html, API_GetBucketPolicy.html,
// API_GetBucketAcl.html, API_GetPublicAccessBlock.html, API_GetBucketTagging.html; errors as
// https://docs.aws.amazon.com/AmazonS3/latest/API/ErrorResponses.html shows them (throttling `SlowDown`, 503).
import type { Grant } from '@aws-sdk/client-s3';
import { page } from './estate.js';
import type { StandInReply, StandInService } from './server.js';
import { escapeXml, requestId } from './xml.js';

const NS = 'http://s3.amazonaws.com/doc/2006-03-01/';
const SUBRESOURCES = {
  policy: 'GetBucketPolicy',
  acl: 'GetBucketAcl',
  publicAccessBlock: 'GetPublicAccessBlock',
  tagging: 'GetBucketTagging',
} as const;
const xml = (status: number, body: string): StandInReply => ({
  status,
  type: 'application/xml',
  body: `<?xml version="1.0" encoding="UTF-8"?>\n${body}`,
});
const element = (name: string, value: unknown) =>
  value === undefined
    ? ''
    : `<${name}>${escapeXml(value instanceof Date ? value.toISOString() : String(value))}</${name}>`;

function bucketOf(path: string): string {
  return decodeURIComponent(path.split('/')[1] ?? '');
}

function grantXml(grant: Grant): string {
  const g: NonNullable<Grant['Grantee']> = grant.Grantee ?? { Type: 'Group' };
  return (
    `<Grant><Grantee xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:type="${g.Type ?? 'Group'}">` +
    `${element('ID', g.ID)}${element('DisplayName', g.DisplayName)}${element('URI', g.URI)}</Grantee>` +
    `${element('Permission', grant.Permission)}</Grant>`
  );
}

export const s3: StandInService = {
  signingName: 's3',
  action(request) {
    const bucket = bucketOf(request.url.pathname);
    if (request.method === 'GET' && !bucket) return 'ListBuckets';
    const sub = Object.keys(SUBRESOURCES).find((s) => request.url.searchParams.has(s));
    if (request.method === 'GET' && sub) return SUBRESOURCES[sub as keyof typeof SUBRESOURCES];
    // Anything else is named by its method and subresource (a write shows up as PUT/DELETE/POST).
    return `${request.method}${sub ? `:${sub}` : ''}${request.url.searchParams.get('x-id') ? `:${request.url.searchParams.get('x-id')}` : ''}`;
  },
  handle(action, request) {
    const owner = `<Owner><ID>${'7a'.repeat(32)}</ID><DisplayName>standin-${request.account}</DisplayName></Owner>`;
    const buckets = request.estate.buckets ?? [];
    if (action === 'ListBuckets') {
      const { items, next } = page(
        buckets,
        request.url.searchParams.get('continuation-token'),
        request.url.searchParams.get('max-buckets'),
        request.pageSize,
      );
      return xml(
        200,
        `<ListAllMyBucketsResult xmlns="${NS}">${owner}<Buckets>${items
          .map(
            (b) =>
              `<Bucket>${element('Name', b.Name)}${element('CreationDate', b.CreationDate ?? new Date('2026-01-05T10:00:00Z'))}</Bucket>`,
          )
          .join('')}</Buckets>${element('ContinuationToken', next)}</ListAllMyBucketsResult>`,
      );
    }
    const name = bucketOf(request.url.pathname);
    const bucket = buckets.find((b) => b.Name === name);
    if (!bucket) return this.error(404, 'NoSuchBucket', 'The specified bucket does not exist', name);
    switch (action) {
      case 'GetBucketPolicy':
        if (!bucket.Policy)
          return this.error(404, 'NoSuchBucketPolicy', 'The bucket policy does not exist', name);
        return { status: 200, type: 'application/json', body: JSON.stringify(bucket.Policy) };
      case 'GetBucketAcl': {
        const ownerGrant: Grant = {
          Grantee: { Type: 'CanonicalUser', ID: '7a'.repeat(32), DisplayName: `standin-${request.account}` },
          Permission: 'FULL_CONTROL',
        };
        return xml(
          200,
          `<AccessControlPolicy xmlns="${NS}">${owner}<AccessControlList>${[
            ownerGrant,
            ...(bucket.Grants ?? []),
          ]
            .map(grantXml)
            .join('')}</AccessControlList></AccessControlPolicy>`,
        );
      }
      case 'GetPublicAccessBlock': {
        const block = bucket.PublicAccessBlock;
        if (!block)
          return this.error(
            404,
            'NoSuchPublicAccessBlockConfiguration',
            'The public access block configuration was not found',
            name,
          );
        return xml(
          200,
          `<PublicAccessBlockConfiguration xmlns="${NS}">${element('BlockPublicAcls', block.BlockPublicAcls ?? false)}` +
            `${element('IgnorePublicAcls', block.IgnorePublicAcls ?? false)}${element('BlockPublicPolicy', block.BlockPublicPolicy ?? false)}` +
            `${element('RestrictPublicBuckets', block.RestrictPublicBuckets ?? false)}</PublicAccessBlockConfiguration>`,
        );
      }
      case 'GetBucketTagging':
        if (!bucket.Tags) return this.error(404, 'NoSuchTagSet', 'The TagSet does not exist', name);
        return xml(
          200,
          `<Tagging xmlns="${NS}"><TagSet>${bucket.Tags.map(
            (t) => `<Tag>${element('Key', t.Key)}${element('Value', t.Value)}</Tag>`,
          ).join('')}</TagSet></Tagging>`,
        );
      default:
        return this.error(
          405,
          'MethodNotAllowed',
          'The specified method is not allowed against this resource.',
          name,
        );
    }
  },
  throttled: () =>
    xml(
      503,
      `<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message><RequestId>${requestId()}</RequestId></Error>`,
    ),
  error(status, code, message, bucket?: string) {
    return xml(
      status,
      `<Error><Code>${code}</Code><Message>${escapeXml(message)}</Message>${element('BucketName', bucket)}<RequestId>${requestId()}</RequestId><HostId>standin</HostId></Error>`,
    );
  },
} as StandInService & { error(status: number, code: string, message: string, bucket?: string): StandInReply };
