import { describe, expect, it } from 'vitest';
import { scrubEnvelope, scrubProperties } from '../../src/ingest/scrub.js';
import { envelope, node } from '../helpers/envelope.js';

// Secret-shaped values are assembled at run time so the repository holds no literal a scanner flags.
const join = (...parts: string[]) => parts.join('');
const AWS_KEY = join('AKIA', 'IOSFODNN7', 'EXAMPLE');
const AWS_SECRET = join('wJalrXUtnFEMI/K7MDENG/', 'bPxRfiCYEXAMPLEKEY');
const GOOGLE = join('AIza', 'SyA-1234567890abcdefghijklmnopqrstu');
const GH = join('ghp_', 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8');
const GH_PAT = join('github_pat_', '11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz');
const GITLAB = join('glpat-', 'xXxXxXxXxXxXxXxXxXxX');
const SLACK = join('xoxb-', '123456789012-1234567890123-AbCdEfGhIjKlMnOp');
const HOOK = join('https://hooks.slack.com/services/', 'T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX');
const JWT = join(
  'eyJhbGciOiJIUzI1NiJ9',
  '.',
  'eyJzdWIiOiIxMjM0NTY3ODkwIn0',
  '.',
  'dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
);
const PEM = join(
  '-----BEGIN RSA ',
  'PRIVATE KEY-----\nMIIEowIBAAKCAQEA7\nabc\n-----END RSA ',
  'PRIVATE KEY-----',
);

describe('scrubProperties: what is redacted', () => {
  it.each([
    ['aws-access-key', `key id ${AWS_KEY} in use`, `key id ***redacted:aws-access-key*** in use`],
    [
      'aws-secret-key',
      `aws_secret_access_key = ${AWS_SECRET}`,
      'aws_secret_access_key = ***redacted:aws-secret-key***',
    ],
    ['google-api-key', `maps key ${GOOGLE}`, 'maps key ***redacted:google-api-key***'],
    ['github-token (classic)', `token ${GH}`, 'token ***redacted:github-token***'],
    ['github-token (fine-grained)', `GH=${GH_PAT} `, 'GH=***redacted:github-token*** '],
    ['gitlab-token', `use ${GITLAB}`, 'use ***redacted:gitlab-token***'],
    ['slack-token', `bot ${SLACK}`, 'bot ***redacted:slack-token***'],
    ['slack-webhook', `notify ${HOOK}`, 'notify ***redacted:slack-webhook***'],
    ['jwt', `Bearer ${JWT}`, 'Bearer ***redacted:jwt***'],
    ['private-key', `key:\n${PEM}\nend`, 'key:\n***redacted:private-key***\nend'],
    ['secret-assignment', 'DB_PASSWORD=hunter22hunter', 'DB_PASSWORD=***redacted:secret-assignment***'],
    [
      'secret-assignment (quoted, in a URL query)',
      "client_secret='abcdef123456'&x=1",
      "client_secret='***redacted:secret-assignment***'&x=1",
    ],
  ])('%s', (_kind, input, expected) => {
    const { props, redactions } = scrubProperties({ value: input });
    expect(props.value).toBe(expected);
    expect(redactions.length).toBeGreaterThan(0);
  });
});

describe('scrubProperties: what is left alone', () => {
  it.each([
    ['a commit SHA', 'commit 3f786850e387550fdab836ed7e6dc881de23001b'],
    ['an image digest', 'sha256:5f2c0b8f6e4a3d2c1b0a99887766554433221100ffeeddccbbaa998877665544'],
    [
      'an image ref',
      'ghcr.io/acme/app:1.2.3@sha256:5f2c0b8f6e4a3d2c1b0a99887766554433221100ffeeddccbbaa998877665544',
    ],
    ['a UUID', 'request 123e4567-e89b-12d3-a456-426614174000 done'],
    ['prose about passwords', 'the password policy requires 12 characters'],
    ['a yaml-ish requirement', 'password: required'],
    ['a short assignment', 'token=abc'],
    ['an ARN', 'arn:aws:iam::111122223333:role/deploy-admin'],
  ])('%s', (_what, input) => {
    const props = { value: input };
    const result = scrubProperties(props);
    expect(result.props).toBe(props);
    expect(result.redactions).toEqual([]);
  });

  it('never touches protected identifier properties', () => {
    const props = { commit_sha: AWS_KEY, image: `registry/${GH}`, ref: JWT, other: AWS_KEY };
    const { props: out } = scrubProperties(props);
    expect(out).toEqual({
      commit_sha: AWS_KEY,
      image: `registry/${GH}`,
      ref: JWT,
      other: '***redacted:aws-access-key***',
    });
  });

  it('walks nested objects and arrays, naming each redaction by JSON pointer', () => {
    const { props, redactions } = scrubProperties(
      { env: [{ name: 'X', value: `k=${AWS_KEY}` }], deep: { a: { b: GH } } },
      '/p',
    );
    expect(props).toEqual({
      env: [{ name: 'X', value: 'k=***redacted:aws-access-key***' }],
      deep: { a: { b: '***redacted:github-token***' } },
    });
    expect(redactions).toEqual([
      { kind: 'aws-access-key', path: '/p/env/0/value' },
      { kind: 'github-token', path: '/p/deep/a/b' },
    ]);
  });
});

describe('scrubEnvelope', () => {
  it('marks only nodes that lost a secret, and leaves ids, names and edge endpoints untouched', () => {
    const leaky = node('Service', `svc-${AWS_KEY}`, { env: `KEY=${AWS_KEY}` });
    const clean = node('Service', 'clean', { env: 'MODE=prod' });
    const env = envelope(
      [leaky, clean],
      [{ type: 'CONNECTS_TO', from: leaky.id, to: clean.id, properties: { note: `via ${SLACK}` } }],
    );
    const id = leaky.id;
    const { redactions } = scrubEnvelope(env);
    expect(env.nodes[0]).toMatchObject({
      id,
      name: `svc-${AWS_KEY}`,
      properties: { env: 'KEY=***redacted:aws-access-key***', secrets_scrubbed: true },
    });
    expect(env.nodes[1].properties).toEqual({ env: 'MODE=prod' });
    expect(env.edges[0]).toMatchObject({
      from: id,
      to: clean.id,
      properties: { note: 'via ***redacted:slack-token***' },
    });
    expect(redactions).toEqual([
      { kind: 'aws-access-key', pointer: '/nodes/0/properties/env' },
      { kind: 'slack-token', pointer: '/edges/0/properties/note' },
    ]);
  });
});
