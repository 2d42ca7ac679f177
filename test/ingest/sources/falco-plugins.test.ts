// Falco alerts beyond the syscall source (src/ingest/sources/falco.ts): the CloudTrail plugin's alerts land
// on the IAM user or role that made the call, as the iam source names it; alerts written without `output`
// (`json_include_output_property: false`) are read from their fields; an alert of a plugin the engine has no
// node for is said and skipped, never costing the batch, and a batch of only such alerts is refused.
import { describe, expect, it } from 'vitest';
import { createFalcoSource } from '../../../src/ingest/sources/falco.js';
import { normalize, readReal, rejection } from '../../helpers/normalize.js';
import { makeService } from '../../helpers/service.js';

const falco = createFalcoSource();
const alert = (fields: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  rule: 'Console Login Without MFA',
  priority: 'Critical',
  time: '2026-11-24T04:00:00.000000000Z',
  source: 'aws_cloudtrail',
  output: 'Detected a console login without MFA',
  output_fields: fields,
  ...extra,
});
const user = (arn: string) => alert({ 'ct.user': 'obama', 'ct.user.arn': arn, 'ct.region': 'us-east-1' });

describe('falco: the CloudTrail plugin', () => {
  it('an IAM user’s call lands on the user, an assumed role’s session on its role', () => {
    expect(normalize(falco, [user('arn:aws:iam::012345678901:user/obama')]).names('User')).toEqual([
      '012345678901/obama',
    ]);
    expect(
      normalize(falco, [user('arn:aws:sts::012345678901:assumed-role/MyRole/botocore-session-1')]).names(
        'IAM_Role',
      ),
    ).toEqual(['012345678901/MyRole']);
  });

  it('twin: the account root, or a call with no principal, attaches to nothing: said, the others kept', () => {
    const shell = alert(
      { 'container.name': 'web', 'container.id': 'abc123' },
      { rule: 'Terminal shell in container', source: 'syscall' },
    );
    const out = normalize(falco, [
      user('arn:aws:iam::012345678901:root'),
      alert({ 'ct.region': 'eu-west-1' }),
      shell,
    ]);
    expect(out.names('Service')).toEqual(['web']);
    expect(out.names('User')).toEqual([]);
    expect(out.warnings).toEqual([
      expect.stringMatching(
        /^falco report: 2 alert\(s\) not attached \(aws_cloudtrail\): .*; first at \/0\/output_fields$/,
      ),
    ]);
    // Alone, nothing is stored: refused, naming each.
    expect(rejection(falco, [user('arn:aws:iam::012345678901:root')]).map((e) => e.pointer)).toEqual([
      '/0/output_fields',
    ]);
  });
});

describe('falco: CloudTrail alerts naming `ct.user` without an ARN (the plugin’s own rules)', () => {
  const named = (fields: Record<string, unknown>, query: Record<string, string> = {}) =>
    normalize(falco, [alert({ 'ct.user': 'obama', 'ct.srcip': '198.51.100.7', ...fields })], query);

  it('a typed user or assumed role lands on it, in its account, else in the one account that has it', () => {
    expect(
      named({ 'ct.user.identitytype': 'IAMUser', 'ct.user.accountid': '012345678901' }).names('User'),
    ).toEqual(['012345678901/obama']);
    // The unique-id prefix types it when the rule prints the principal id (`AROA…:session` is a role's).
    expect(
      named({ 'ct.user.principalid': 'AROAEXAMPLE:botocore-session' }, { account: '012345678901' }).names(
        'IAM_Role',
      ),
    ).toEqual(['012345678901/obama']);
    // No account anywhere: the bare name, marked for the writer to join the one `obama` of any account.
    const bare = named({ 'ct.user.identitytype': 'IAMUser' });
    expect(bare.names('User')).toEqual(['obama']);
    expect(bare.node('User', 'obama').properties).toMatchObject({
      account_unknown: true,
      runtime_observed: true,
    });
  });

  it('twin: `ct.user` alone (a user or a role?) and the root user, an AWS service or `<NA>` attach to nothing', () => {
    const shell = alert(
      { 'container.name': 'web', 'container.id': 'abc123' },
      { rule: 'Terminal shell in container', source: 'syscall' },
    );
    const out = normalize(falco, [
      alert({ 'ct.user': 'obama', 'ct.srcip': '198.51.100.7', 'ct.region': 'us-east-1' }),
      alert({ 'ct.user': '<NA>', 'ct.user.identitytype': 'Root' }),
      alert({ 'ct.user': 'ec2.amazonaws.com', 'ct.user.identitytype': 'AWSService' }),
      alert({ 'ct.user': 'AssumedRole' }),
      shell,
    ]);
    expect([...out.names('User'), ...out.names('IAM_Role')]).toEqual([]);
    expect(out.warnings).toEqual([
      expect.stringMatching(/^falco report: 4 alert\(s\) not attached \(aws_cloudtrail\): /),
      'falco report: 1 CloudTrail alert(s): `ct.user` alone names a user or a role: add `%ct.user.identitytype` ' +
        "(or `%ct.user.arn`) to the rule's output; first at /0/output_fields",
    ]);
    // Alone, refused, saying what to add.
    expect(rejection(falco, [alert({ 'ct.user': 'obama' })])).toEqual([
      expect.objectContaining({
        pointer: '/0/output_fields',
        detail: expect.stringContaining('%ct.user.identitytype'),
      }),
    ]);
    expect(
      rejection(falco, [alert({ 'ct.user': 'obama', 'ct.user.identitytype': 'IAMUser' })], {
        account: 'prod',
      }),
    ).toEqual([expect.objectContaining({ pointer: '/query/account' })]);
  });
});

describe('falco: alerts without their output text', () => {
  it('are read from their fields (json_include_output_property: false)', () => {
    const out = normalize(falco, {
      rule: 'Terminal shell in container',
      priority: 'Notice',
      time: '2026-11-24T04:00:00Z',
      output_fields: { 'k8s.ns.name': 'shop', 'k8s.pod.name': 'web-7d4b9c8f6d-x2x9q', 'proc.name': 'sh' },
    });
    expect(out.names('Service')).toEqual(['shop/web']);
  });
});

describe('falco: CloudTrail alerts through the service', () => {
  it("land on the iam source's user, adding no node", async () => {
    const service = await makeService();
    try {
      const iam = await service.ingest(readReal('iam/cloudsplaining-test-example-authz-details.json'), {
        source: 'iam',
        query: 'account=012345678901',
      });
      expect(iam.status, JSON.stringify(iam.json)).toBe(202);
      await service.settle();
      const graph = service.engine.tenant('default')!.graph;
      const before = graph.order;
      const alerted = await service.ingest([user('arn:aws:iam::012345678901:user/obama')], {
        source: 'falco',
      });
      expect(alerted.status, JSON.stringify(alerted.json)).toBe(202);
      await service.settle();
      expect(graph.order).toBe(before);
      const obama = graph.findNode((_, a) => a.label === 'User' && a.name === '012345678901/obama');
      expect(graph.getNodeAttributes(obama!).props).toMatchObject({
        runtime_observed: true,
        runtime_rules: ['Console Login Without MFA'],
      });
      // The plugin's own rule prints `ct.user` and no account: typed, it joins the same user.
      const typed = await service.ingest(
        [alert({ 'ct.user': 'obama', 'ct.user.identitytype': 'IAMUser' }, { rule: 'Create AWS user' })],
        { source: 'falco' },
      );
      expect(typed.status, JSON.stringify(typed.json)).toBe(202);
      await service.settle();
      expect(graph.order).toBe(before);
      expect(graph.getNodeAttributes(obama!).props.runtime_rules).toEqual(['Create AWS user']);
    } finally {
      await service.dispose();
    }
  });
});
