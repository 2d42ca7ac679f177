// Secret scrubbing: a named case for each kind, the look-alikes that must survive, and the walk itself
// (nesting, protected keys, same reference when clean, envelope marking and pointers).
import { describe, expect, it } from 'vitest';
import {
  PROTECTED_PROPERTIES,
  SECRET_PATTERNS,
  scrubEnvelope,
  scrubProperties,
} from '../../src/ingest/scrub.js';
import { envelope, node } from '../helpers/envelope.js';

// Secret-shaped values are assembled at run time so the repository holds no literal a scanner flags.
const join = (...parts: string[]) => parts.join('');
const AWS_KEY = join('AKIA', 'IOSFODNN7', 'EXAMPLE');
const AWS_TEMP_KEY = join('ASIA', 'Y34FZKBOKMUTVV7A');
const AWS_SECRET = join('wJalrXUtnFEMI/K7MDENG/', 'bPxRfiCYEXAMPLEKEY');
const GOOGLE = join('AIza', 'SyA-1234567890abcdefghijklmnopqrstu');
const GH = join('ghp_', 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8');
const GH_APP = join('ghs_', '0123456789abcdefghijABCDEFGHIJ012345');
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
const pem = (type: string, body = 'MIIEowIBAAKCAQEA7\nabc\n') =>
  join(`-----BEGIN ${type}`, 'PRIVATE KEY-----\n', body, `-----END ${type}`, 'PRIVATE KEY-----');
const SHA = '3f786850e387550fdab836ed7e6dc881de23001b';
const DIGEST = `sha256:${'5f2c0b8f6e4a3d2c1b0a9988776655443322110'}0ffeeddccbbaa998877665544`;
// The stand-in for a password in assignments and URLs.
const PW = join('hunter', '22hunter');
const r = (kind: string) => `***redacted:${kind}***`;

// [case, input, expected output]; every kind in SECRET_PATTERNS must appear (checked below).
const POSITIVE: [string, string, string][] = [
  ['aws-access-key', `key id ${AWS_KEY} in use`, `key id ${r('aws-access-key')} in use`],
  [
    'aws-access-key (temporary, in an env line)',
    `AWS_ACCESS_KEY_ID=${AWS_TEMP_KEY}`,
    `AWS_ACCESS_KEY_ID=${r('aws-access-key')}`,
  ],
  [
    'aws-secret-key',
    `aws_secret_access_key = ${AWS_SECRET}`,
    `aws_secret_access_key = ${r('aws-secret-key')}`,
  ],
  [
    'aws-secret-key (env)',
    `AWS_SECRET_ACCESS_KEY=${AWS_SECRET}`,
    `AWS_SECRET_ACCESS_KEY=${r('aws-secret-key')}`,
  ],
  [
    'aws-secret-key (JSON text)',
    `{"SecretAccessKey": "${AWS_SECRET}"}`,
    `{"SecretAccessKey": "${r('aws-secret-key')}"}`,
  ],
  ['google-api-key', `maps key ${GOOGLE}`, `maps key ${r('google-api-key')}`],
  ['github-token (classic)', `token ${GH}`, `token ${r('github-token')}`],
  ['github-token (app installation)', `auth: ${GH_APP}`, `auth: ${r('github-token')}`],
  ['github-token (fine-grained)', `GH=${GH_PAT} `, `GH=${r('github-token')} `],
  ['github-token (wins over the assignment)', `GITHUB_TOKEN=${GH}`, `GITHUB_TOKEN=${r('github-token')}`],
  [
    'github-token (in a clone URL, not also url-credentials)',
    `https://x-access-token:${GH_APP}@github.com/acme/app.git`,
    `https://x-access-token:${r('github-token')}@github.com/acme/app.git`,
  ],
  ['gitlab-token', `use ${GITLAB}`, `use ${r('gitlab-token')}`],
  ['slack-token', `bot ${SLACK}`, `bot ${r('slack-token')}`],
  ['slack-webhook', `notify ${HOOK}`, `notify ${r('slack-webhook')}`],
  ['jwt', `Bearer ${JWT}`, `Bearer ${r('jwt')}`],
  ['private-key (RSA)', `key:\n${pem('RSA ')}\nend`, `key:\n${r('private-key')}\nend`],
  ['private-key (plain PKCS#8)', pem(''), r('private-key')],
  ['private-key (EC)', pem('EC '), r('private-key')],
  ['private-key (DSA)', pem('DSA '), r('private-key')],
  ['private-key (OPENSSH)', `k=${pem('OPENSSH ', 'b3BlbnNzaC1rZXktdjEAAAAA\n')}`, `k=${r('private-key')}`],
  ['private-key (ENCRYPTED)', pem('ENCRYPTED '), r('private-key')],
  [
    'private-key (cut off before END)',
    join('x -----BEGIN RSA ', 'PRIVATE KEY-----\nMIIEow'),
    `x ${r('private-key')}`,
  ],
  [
    'url-credentials',
    `DATABASE_URL=postgres://app:${PW}@db.internal:5432/app`,
    `DATABASE_URL=postgres://app:${r('url-credentials')}@db.internal:5432/app`,
  ],
  [
    'url-credentials (no user)',
    `redis://:${PW.slice(0, 2)}@cache:6379`,
    `redis://:${r('url-credentials')}@cache:6379`,
  ],
  ['secret-assignment', `DB_PASSWORD=${PW}`, `DB_PASSWORD=${r('secret-assignment')}`],
  ['secret-assignment (shortest value)', `token=${PW.slice(0, 6)}`, `token=${r('secret-assignment')}`],
  ['secret-assignment (spaces around =)', `secret = ${PW}`, `secret = ${r('secret-assignment')}`],
  [
    'secret-assignment (quoted, in a URL query)',
    `client_secret='${PW}'&x=1`,
    `client_secret='${r('secret-assignment')}'&x=1`,
  ],
  [
    'secret-assignment (double-quoted with spaces)',
    `password="${PW} horse battery"`,
    `password="${r('secret-assignment')}"`,
  ],
  ['secret-assignment (api_key)', `api_key=${PW}`, `api_key=${r('secret-assignment')}`],
  ['secret-assignment (apikey)', `--apikey=${PW}`, `--apikey=${r('secret-assignment')}`],
  ['secret-assignment (passwd)', `passwd=${PW}`, `passwd=${r('secret-assignment')}`],
  ['secret-assignment (access_key)', `access_key=${PW}`, `access_key=${r('secret-assignment')}`],
  ['secret-assignment (camelCase)', `dbPassword=${PW}`, `dbPassword=${r('secret-assignment')}`],
  ['secret-assignment (prefixed pwd)', `DB_PWD=${PW}`, `DB_PWD=${r('secret-assignment')}`],
  [
    'secret-assignment (connection string)',
    `Server=db;User Id=app;Password=${PW};Database=x`,
    `Server=db;User Id=app;Password=${r('secret-assignment')};Database=x`,
  ],
  ['several secrets in one value', `a=${AWS_KEY} b=${GH}`, `a=${r('aws-access-key')} b=${r('github-token')}`],
];

describe('scrubProperties: what is redacted', () => {
  it.each(POSITIVE)('%s', (_case, input, expected) => {
    const { props, redactions } = scrubProperties({ value: input });
    expect(props.value).toBe(expected);
    expect(redactions.length).toBeGreaterThan(0);
    for (const red of redactions) expect(red.path).toBe('/value');
  });

  it('has a positive case for every kind in the table', () => {
    const covered = new Set(POSITIVE.map(([name]) => name.split(' ')[0]));
    for (const { kind } of SECRET_PATTERNS) expect(covered).toContain(kind);
  });

  it('keeps the table well-formed: global patterns, unique kebab kinds', () => {
    const kinds = SECRET_PATTERNS.map((p) => p.kind);
    expect(new Set(kinds).size).toBe(kinds.length);
    for (const p of SECRET_PATTERNS) {
      expect(p.kind).toMatch(/^[a-z]+(?:-[a-z]+)*$/);
      expect(p.pattern.global).toBe(true);
      expect(p.description.length).toBeGreaterThan(0);
    }
  });

  it('is idempotent: scrubbed output has nothing left to scrub', () => {
    const once = scrubProperties({ v: POSITIVE.map(([, input]) => input).join('\n') });
    const twice = scrubProperties(once.props);
    expect(twice.redactions).toEqual([]);
    expect(twice.props).toBe(once.props);
  });
});

describe('scrubProperties: what is left alone', () => {
  it.each([
    ['a commit SHA', `commit ${SHA}`],
    ['an upper-case SHA', SHA.toUpperCase()],
    ['an image digest', DIGEST],
    ['an image ref', `ghcr.io/acme/app:1.2.3@${DIGEST}`],
    ['a registry with a port', `registry.internal:5000/app@${DIGEST}`],
    ['a UUID', 'request 123e4567-e89b-12d3-a456-426614174000 done'],
    ['prose about passwords', 'the password policy requires 12 characters'],
    ['a yaml-ish requirement', 'password: required'],
    ['a short assignment', 'token=abc'],
    ['an ARN', 'arn:aws:iam::111122223333:role/deploy-admin'],
    ['an IAM role unique id (an identifier, not a key)', join('AROA', 'Y34FZKBOKMUTVV7A')],
    ['a URL without credentials', 'https://github.com/acme/app/pull/12?token_type=x'],
    ['an ssh remote', 'ssh://git@github.com/acme/app.git and git@github.com:acme/app.git'],
    ['the working directory', 'PWD=/home/runner/work/app OLDPWD=/tmp/build'],
    ['a variable reference', 'password=${DB_PASSWORD} token=$GITHUB_TOKEN'],
    ['a template reference', 'password={{ .Values.db.password }}'],
    ['a key that is not a secret', 'public_key=ssh-ed25519 max_tokens=4096 token_type=bearer'],
    ['an already redacted value', `password=${r('secret-assignment')}`],
    ['a JWT-ish prefix alone', 'eyJhbGciOiJIUzI1NiJ9'],
    ['a PEM public key', join('-----BEGIN PUBLIC ', 'KEY-----\nMIIBIjAN\n-----END PUBLIC KEY-----')],
    ['a certificate', '-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIE\n-----END CERTIFICATE-----'],
    ['a short string', 'on'],
    ['an empty string', ''],
  ])('%s', (_what, input) => {
    const props = { value: input };
    const result = scrubProperties(props);
    expect(result.redactions).toEqual([]);
    expect(result.props).toBe(props);
  });

  it('never touches protected identifier properties, at any depth', () => {
    const props = {
      commit_sha: AWS_KEY,
      image: `registry/${GH}`,
      ref: JWT,
      refs: [GH],
      nested: { digest: AWS_KEY, name: `DB_PASSWORD=${PW}` },
      other: AWS_KEY,
    };
    const { props: out } = scrubProperties(props);
    expect(out).toEqual({ ...props, other: r('aws-access-key') });
  });

  it('protects exactly the documented identifier keys', () => {
    expect([...PROTECTED_PROPERTIES].sort()).toEqual(
      [
        'id',
        'name',
        'commit_sha',
        'sha',
        'digest',
        'digests',
        'repo_digests',
        'image',
        'image_ref',
        'ref',
        'refs',
        'repo_slug',
        'resolution_alias',
      ].sort(),
    );
  });

  it('scrubs values, never key names, numbers, booleans or null', () => {
    const props = { [AWS_KEY]: 'x', n: 42, b: true, z: null, list: [1, false, null] };
    const result = scrubProperties(props);
    expect(result.props).toBe(props);
    expect(result.redactions).toEqual([]);
  });

  it('returns the same reference for a clean nested bag, and copies without mutating otherwise', () => {
    const clean = { a: { b: ['x', { c: 'prod' }] }, tags: ['web', 'public'] };
    expect(scrubProperties(clean).props).toBe(clean);

    const untouched = { keep: 'me' };
    const leaky = { deep: { a: [`k=${AWS_KEY}`] }, untouched };
    const snapshot = structuredClone(leaky);
    const { props } = scrubProperties(leaky);
    expect(leaky).toEqual(snapshot);
    expect(props).not.toBe(leaky);
    // Unchanged branches are shared, not copied.
    expect(props.untouched).toBe(untouched);
  });

  it('walks nested objects and arrays, naming each redaction by JSON pointer', () => {
    const { props, redactions } = scrubProperties(
      { env: [{ name: 'X', value: `k=${AWS_KEY}` }], deep: { a: { 'b/c~d': GH } } },
      '/p',
    );
    expect(props).toEqual({
      env: [{ name: 'X', value: `k=${r('aws-access-key')}` }],
      deep: { a: { 'b/c~d': r('github-token') } },
    });
    expect(redactions).toEqual([
      { kind: 'aws-access-key', path: '/p/env/0/value' },
      { kind: 'github-token', path: '/p/deep/a/b~1c~0d' },
    ]);
  });
});

describe('scrubEnvelope', () => {
  it('marks only nodes and edges that lost a secret, and leaves ids, names and endpoints untouched', () => {
    const leaky = node('Service', `svc-${AWS_KEY}`, { env: `KEY=${AWS_KEY}` });
    const clean = node('Service', 'clean', { env: 'MODE=prod' });
    const bare = { ...node('Service', 'bare'), properties: undefined };
    const cleanProps = clean.properties;
    const env = envelope(
      [leaky, clean, bare],
      [
        { type: 'CONNECTS_TO', from: leaky.id, to: clean.id, properties: { note: `via ${SLACK}` } },
        { type: 'CONNECTS_TO', from: clean.id, to: leaky.id, properties: { note: 'plain' } },
      ],
    );
    const id = leaky.id;
    const result = scrubEnvelope(env);
    expect(result.envelope).toBe(env);
    expect(env.nodes[0]).toMatchObject({
      id,
      name: `svc-${AWS_KEY}`,
      properties: { env: `KEY=${r('aws-access-key')}`, secrets_scrubbed: true },
    });
    expect(env.nodes[1].properties).toBe(cleanProps);
    expect(env.nodes[1].properties).toEqual({ env: 'MODE=prod' });
    expect(env.nodes[2].properties).toBeUndefined();
    expect(env.edges[0]).toEqual({
      type: 'CONNECTS_TO',
      from: id,
      to: clean.id,
      properties: { note: `via ${r('slack-token')}`, secrets_scrubbed: true },
    });
    expect(env.edges[1].properties).toEqual({ note: 'plain' });
    expect(result.redactions).toEqual([
      { kind: 'aws-access-key', pointer: '/nodes/0/properties/env' },
      { kind: 'slack-token', pointer: '/edges/0/properties/note' },
    ]);
  });

  it('scrubs a frozen property object shared by many edges once when clean, and each edge when it leaks', () => {
    const a = node('Service', 'a');
    const b = node('Service', 'b');
    const c = node('Service', 'c');
    const clean = Object.freeze({ via: 'mounted token' });
    const leaky = Object.freeze({ note: `via ${SLACK}` });
    const env = envelope(
      [a, b, c],
      [
        { type: 'ASSUMES', from: a.id, to: b.id, properties: clean },
        { type: 'ASSUMES', from: b.id, to: c.id, properties: clean },
        { type: 'CONNECTS_TO', from: a.id, to: b.id, properties: leaky },
        { type: 'CONNECTS_TO', from: b.id, to: c.id, properties: leaky },
      ],
    );
    const { redactions } = scrubEnvelope(env);
    expect(env.edges[0].properties).toBe(clean);
    expect(env.edges[1].properties).toBe(clean);
    // The leaking one is never marked clean: both edges get their own redacted copy, both are reported.
    for (const e of env.edges.slice(2))
      expect(e.properties).toEqual({ note: `via ${r('slack-token')}`, secrets_scrubbed: true });
    expect(env.edges[2].properties).not.toBe(env.edges[3].properties);
    expect(redactions).toEqual([
      { kind: 'slack-token', pointer: '/edges/2/properties/note' },
      { kind: 'slack-token', pointer: '/edges/3/properties/note' },
    ]);
  });

  it('points into nested values by index', () => {
    const svc = node('Service', 'a', {});
    const other = node('Service', 'b', { env: ['MODE=prod', `DB_PASSWORD=${PW}`] });
    const { redactions } = scrubEnvelope(envelope([svc, other]));
    expect(redactions).toEqual([{ kind: 'secret-assignment', pointer: '/nodes/1/properties/env/1' }]);
  });
});
