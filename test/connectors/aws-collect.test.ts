// `pathgate awscollect` against the loopback AWS: -json writes reports that, posted to ingest by hand as
// the printed lines say, make the same graph (node ids and edges) as the connector's own pull; without
// -json it posts them itself (signed with INGEST_HMAC_SECRET) to a listening ingest; a failing account
// fails the command and says why, the others' reports written all the same.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../app/cli-commands.js';
import { pullCloudaAccounts } from '../../src/connectors/clouda/sdk.js';
import { pointSdkAt } from '../helpers/aws/env.js';
import { publishPull } from '../helpers/aws/publish.js';
import { A, B, C, CALLER_KEY, roleArn, sampleEstate } from '../helpers/aws/sample-estate.js';
import { AwsStandIn } from '../helpers/aws/server.js';
import { makeService, tempDir, type TestService } from '../helpers/service.js';

let aws: AwsStandIn;
let restore: () => void;
const services: TestService[] = [];
const KEYS = { AWS_ACCESS_KEY_ID: CALLER_KEY.accessKeyId, AWS_SECRET_ACCESS_KEY: CALLER_KEY.secretAccessKey };

beforeAll(() => {
  restore = pointSdkAt('http://127.0.0.1:1');
  Object.assign(process.env, KEYS); // the SDK's default chain reads the environment
});
afterAll(() => {
  restore();
  for (const k of Object.keys(KEYS)) delete process.env[k];
});
beforeEach(async () => {
  aws = new AwsStandIn(sampleEstate());
  await aws.start();
  process.env.AWS_ENDPOINT_URL = aws.url;
});
afterEach(async () => {
  await aws.stop();
  for (const s of services.splice(0)) await s.dispose();
});

async function cli(...argv: string[]) {
  let out = '';
  let err = '';
  const code = await runCli(argv, {
    out: (t) => (out += t),
    err: (t) => (err += t),
    env: { ...process.env },
    isTTY: false,
  });
  return { code, out, err };
}

async function service(env: Record<string, string> = {}) {
  const s = await makeService(env);
  services.push(s);
  return s;
}

/** The tenant graph as node ids and edge keys (type, from, to). */
function graphOf(s: TestService): { nodes: string[]; edges: string[] } {
  const graph = s.engine.tenant('default')!.graph;
  const edges: string[] = [];
  graph.forEachEdge((_key, attributes, from, to) => edges.push(`${attributes.type} ${from} ${to}`));
  return { nodes: graph.nodes().sort(), edges: edges.sort() };
}

const ROLES = `${roleArn(A)},${roleArn(B)}`;

describe('pathgate awscollect', () => {
  it('-json writes reports that, posted to ingest, make the same graph as the connector', async () => {
    const dir = await tempDir('pathgate-awscollect-');
    const run = await cli('awscollect', '-json', dir, '-region', 'us-east-1', '-role', ROLES);
    expect(run.err).toBe('');
    expect(run.code).toBe(0);
    const files = (await readdir(dir)).sort();
    expect(files).toEqual([
      `cloudnet.${A}.us-east-1.json`,
      `cloudnet.${B}.us-east-1.json`,
      `custodian.${A}.us-east-1.json`,
      `iam.${A}.us-east-1.json`,
      `iam.${B}.us-east-1.json`,
    ]);
    // What a user does: POST each file where its line says.
    const pushed = await service();
    for (const [, file, target] of run.out.matchAll(/^ {2}(\S+): POST (\S+)$/gm)) {
      const [, source, query] = /^\/ingest\/([a-z]+)\?(.*)$/.exec(target)!;
      const answer = await pushed.ingest(await readFile(file, 'utf8'), { source, query });
      expect(answer.status, path.basename(file)).toBe(202);
    }
    await pushed.settle();

    const pulled = await service();
    await publishPull(
      pulled,
      await pullCloudaAccounts(
        { region: 'us-east-1', roleArns: [roleArn(A), roleArn(B)] },
        new AbortController().signal,
      ),
    );
    const a = graphOf(pushed);
    expect(a.nodes.length).toBeGreaterThan(15);
    expect(a).toEqual(graphOf(pulled));
  });

  it('posts the reports itself, signed, to a listening ingest', async () => {
    const s = await service({ INGEST_HMAC_SECRET: 'awscollect-test-secret' });
    const url = await s.ingestApp.listen({ host: '127.0.0.1', port: 0 });
    const unsigned = await cli('awscollect', '-url', url, '-region', 'us-east-1', '-role', ROLES);
    expect(unsigned.code).toBe(1); // the listener wants signatures
    expect(unsigned.err).toMatch(/cloudnet aws:111111111111\/us-east-1 -> 401/);

    const signed = await runCli(['awscollect', '-url', url, '-region', 'us-east-1', '-role', ROLES], {
      out: () => {},
      err: () => {},
      env: { ...process.env, INGEST_HMAC_SECRET: 'awscollect-test-secret' },
      isTTY: false,
    });
    expect(signed).toBe(0);
    await s.settle();
    const graph = s.engine.tenant('default')!.graph;
    expect(graph.order).toBeGreaterThan(15);
  });

  it('a failing account fails the command, says why, and the others are written', async () => {
    const dir = await tempDir('pathgate-awscollect-');
    const run = await cli(
      'awscollect',
      '-json',
      dir,
      '-region',
      'us-east-1',
      '-role',
      `${roleArn(C)},${roleArn(B)}`,
    );
    expect(run.code).toBe(1);
    expect(run.err).toContain(`account ${C}: sts:AssumeRole: AccessDenied`);
    expect(run.err).not.toContain(CALLER_KEY.secretAccessKey);
    expect((await readdir(dir)).sort()).toEqual([`cloudnet.${B}.us-east-1.json`, `iam.${B}.us-east-1.json`]);
  });

  it('refuses to run without a region (64), naming the settings', async () => {
    const env = { ...process.env };
    delete env.AWS_REGION;
    delete env.CLOUDA_REGION;
    let err = '';
    const code = await runCli(['awscollect', '-json', '/tmp/x'], {
      out: () => {},
      err: (t) => (err += t),
      env,
      isTTY: false,
    });
    expect(code).toBe(64);
    expect(err).toContain('CLOUDA_REGION');
  });
});
