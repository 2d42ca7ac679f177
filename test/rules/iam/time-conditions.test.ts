// DECISIONS "Time conditions": a grant under a test of the request time against a literal date is judged at
// the report's clock. The policy shape is AWS's own documentation example "AWS: Allows access within
// specific dates" (reference_policies_examples_aws-dates: `DateGreaterThan` / `DateLessThan` on
// `aws:CurrentTime`); the operators are those of "IAM JSON policy elements: Condition operators". A grant that
// holds now is unconditional and says until when; a past-only or future-only one is no grant (before: 0.45);
// at a later analyzer pass, once its date has passed, the route through it resolves.
import { afterAll, describe, expect, it } from 'vitest';
import { createPathFinder } from '../../../src/analysis/path-finder.js';
import { runPass } from '../../../src/engine/analyzer.js';
import { createIamSource } from '../../../src/ingest/sources/iam.js';
import { judgeTime, readTimeTest } from '../../../src/rules/iam/time-condition.js';
import type { Statement } from '../../../src/rules/iam/policy.js';
import { passDeps, testTenant } from '../../helpers/tenant.js';
import { ACCOUNT, allow, deny, edges, role, user } from './fixtures.js';

const ME = 'attacker';
const ADMIN = 'account-admin';
// test/helpers/normalize.ts receives every report at 2026-11-22T10:00:00Z: the clock the grants are judged at.
const NOW = Date.parse('2026-11-22T10:00:00.000Z');

/** AWS's example: allowed between two dates. */
const within = (from: string, to: string): Partial<Statement> => ({
  Condition: { DateGreaterThan: { 'aws:CurrentTime': from }, DateLessThan: { 'aws:CurrentTime': to } },
});
const attachSelf = (condition: Partial<Statement>) => ({
  UserDetailList: [
    user(ME, [allow('iam:AttachUserPolicy', `arn:aws:iam::${ACCOUNT}:user/${ME}`, condition)]),
  ],
});

describe('time conditions on a grant', () => {
  it('a grant within dates that include now is unconditional until the end date (p 0.6 on its literal ARN)', () => {
    expect(edges(attachSelf(within('2020-04-01T00:00:00Z', '2099-06-30T23:59:59Z')))).toEqual([
      `${ME} -> ${ADMIN} [AttachUserPolicy] 0.6`,
    ]);
    const out = createIamSource().normalize({
      body: attachSelf(within('2020-04-01T00:00:00Z', '2099-06-30T23:59:59Z')),
      query: {},
      receivedAt: new Date(NOW).toISOString(),
    });
    const [edge] = out.envelopes[0].edges.filter((e) => e.type === 'CAN_ESCALATE_TO');
    expect(edge.properties).toMatchObject({ valid_until: '2099-06-30T23:59:59.000Z' });
    expect(edge.properties?.conditional).toBeUndefined();
  });

  it('twin: the same grant that could only hold before 2020, or only from 2099, is no grant', () => {
    expect(edges(attachSelf(within('2019-04-01T00:00:00Z', '2019-12-31T23:59:59Z')))).toEqual([]);
    expect(
      edges(attachSelf({ Condition: { DateGreaterThan: { 'aws:CurrentTime': '2099-01-01' } } })),
    ).toEqual([]);
  });

  it.each([
    // [operator, key, value, holds at NOW]
    ['DateLessThan', 'aws:CurrentTime', '2030-01-01T00:00:00Z', true],
    ['DateLessThan', 'aws:CurrentTime', '2020-01-01T00:00:00Z', false],
    ['DateLessThanEquals', 'aws:CurrentTime', '2026-11-22T10:00:00Z', true],
    ['DateLessThanEquals', 'aws:CurrentTime', '2026-11-22T09:59:59Z', false],
    ['DateGreaterThan', 'aws:CurrentTime', '2020-01-01', true],
    ['DateGreaterThan', 'aws:CurrentTime', '2026-11-22T10:00:00Z', false],
    ['DateGreaterThanEquals', 'aws:CurrentTime', '2026-11-22T10:00:00Z', true],
    ['DateGreaterThanEquals', 'aws:CurrentTime', '2027-01-01', false],
    ['DateEquals', 'aws:CurrentTime', '2019-06-01T00:00:00Z', false],
    ['DateNotEquals', 'aws:CurrentTime', '2019-06-01T00:00:00Z', true],
    ['DateLessThanIfExists', 'aws:TokenIssueTime', '2030-01-01T00:00:00Z', true],
    ['DateLessThanIfExists', 'aws:TokenIssueTime', '2019-01-01T00:00:00Z', false],
    ['DateGreaterThan', 'aws:TokenIssueTime', '2019-01-01T00:00:00Z', true],
    ['DateLessThan', 'aws:EpochTime', '1577836800', false], // 2020-01-01 in epoch seconds
    ['NumericLessThan', 'aws:EpochTime', 1577836800, false],
    ['NumericLessThan', 'aws:EpochTime', 4102444800, true], // 2100-01-01
    ['NumericGreaterThanEquals', 'aws:EpochTime', '1577836800', true],
    ['NumericLessThanEqualsIfExists', 'aws:EpochTime', '1577836800', false],
    ['NumericEquals', 'aws:EpochTime', '1577836800', false],
    ['NumericNotEquals', 'aws:EpochTime', '1577836800', true],
  ] as const)('%s %s %s: holds now %s (twin: the other way)', (operator, key, value, holds) => {
    const got = edges(attachSelf({ Condition: { [operator]: { [key]: value } } }));
    expect(got).toEqual(holds ? [`${ME} -> ${ADMIN} [AttachUserPolicy] 0.6`] : []);
  });

  it('a value it cannot decide (a policy variable, a numeric test of a date key) stays conditional at 0.45', () => {
    expect(
      edges(attachSelf({ Condition: { DateLessThan: { 'aws:CurrentTime': '${aws:TokenIssueTime}' } } })),
    ).toEqual([`${ME} -> ${ADMIN} [AttachUserPolicy] 0.45`]);
    expect(edges(attachSelf({ Condition: { NumericLessThan: { 'aws:CurrentTime': 1 } } }))).toEqual([
      `${ME} -> ${ADMIN} [AttachUserPolicy] 0.45`,
    ]);
  });

  it('a Deny in force now removes the grant; twin: a Deny that ended in 2019 removes nothing', () => {
    const doc = (until: string) => ({
      UserDetailList: [
        user(ME, [
          allow('iam:AttachUserPolicy'),
          deny('iam:AttachUserPolicy', '*', { Condition: { DateLessThan: { 'aws:CurrentTime': until } } }),
        ]),
      ],
    });
    expect(edges(doc('2099-01-01'))).toEqual([]);
    expect(edges(doc('2019-01-01'))).toEqual([`${ME} -> ${ADMIN} [AttachUserPolicy] 0.9`]);
  });

  it('`*` on `*` until a date is full-admin until then; twin: one that ended is nothing', () => {
    const admin = (to: string) => ({
      UserDetailList: [user(ME, [allow('*', '*', within('2020-01-01T00:00:00Z', to))])],
    });
    expect(edges(admin('2099-01-01T00:00:00Z'))).toEqual([`${ME} -> ${ADMIN} [full-admin] 1`]);
    expect(edges(admin('2020-06-01T00:00:00Z'))).toEqual([]);
  });

  it('a trust policy that admitted the user only before 2020 admits no one; twin: one still in force', () => {
    const trusted = (until: string) => ({
      UserDetailList: [user(ME, [])],
      RoleDetailList: [
        role('ops', [
          {
            Effect: 'Allow',
            Principal: { AWS: `arn:aws:iam::${ACCOUNT}:user/${ME}` },
            Action: 'sts:AssumeRole',
            Condition: { DateLessThan: { 'aws:CurrentTime': until } },
          },
        ]),
      ],
    });
    expect(edges(trusted('2020-01-01T00:00:00Z'), 'ASSUMES')).toEqual([]);
    expect(edges(trusted('2099-01-01T00:00:00Z'), 'ASSUMES')).toEqual([`${ME} -> ops via trust-policy`]);
  });
});

describe('the clock: judging and re-judging', () => {
  it('readTimeTest and judgeTime say when the answer changes', () => {
    const lt = readTimeTest('DateLessThan', 'aws:CurrentTime', '2030-01-01T00:00:00Z')!;
    expect(judgeTime([lt], NOW)).toEqual({ holds: true, until: Date.parse('2030-01-01T00:00:00Z') });
    const gt = readTimeTest('DateGreaterThan', 'aws:CurrentTime', '2030-01-01T00:00:00Z')!;
    expect(judgeTime([gt], NOW)).toEqual({ holds: false, until: Date.parse('2030-01-01T00:00:00Z') + 1 });
    expect(readTimeTest('StringEquals', 'aws:CurrentTime', 'x')).toBeUndefined();
    expect(readTimeTest('DateLessThan', 'aws:username', '2030-01-01')).toBeUndefined();
  });

  const finder = createPathFinder({ threads: 1 });
  afterAll(() => finder.close());

  it('a grant that expires stops escalating at the first analyzer pass after its date; twin: a permanent one stays', async () => {
    let clock = NOW;
    const tenant = testTenant();
    const deps = passDeps(finder, () => clock, { seedIamUsers: true });
    const end = '2026-11-22T12:00:00Z';
    const body = {
      UserDetailList: [
        user(ME, [allow('iam:AttachUserPolicy', '*', within('2020-01-01T00:00:00Z', end))]),
        user('steady', [allow('iam:AttachUserPolicy')]),
      ],
    };
    const out = createIamSource({ seedIamUsers: true }).normalize({
      body,
      query: {},
      receivedAt: new Date(clock).toISOString(),
    });
    for (const envelope of out.envelopes) tenant.writer.apply(envelope, clock);
    await runPass(tenant, deps);
    const idOf = (name: string) => out.envelopes[0].nodes.find((n) => n.name === `${ACCOUNT}/${name}`)!.id;
    const starts = () =>
      tenant.paths
        .open()
        .map((p) => p.startId)
        .sort();
    expect(starts()).toEqual([idOf(ME), idOf('steady')].sort());
    // An hour later, still before the date: the same paths.
    clock += 3_600_000;
    expect(tenant.writer.expireTimed(clock)).toBe(0);
    // Past the date: the timed edge is retracted and the pass resolves its path; the permanent one stays.
    clock = Date.parse(end) + 1;
    expect(tenant.writer.expireTimed(clock)).toBe(1);
    expect(tenant.stale).toBe(true);
    await runPass(tenant, deps);
    expect(starts()).toEqual([idOf('steady')]);
  });
});
