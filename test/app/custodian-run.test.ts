// `pathgate ingestreal` on a `custodian run` output folder (app/custodian-run.ts): each policy's
// resources.json (here the real EC2 list of ../shared/fixtures/real/custodian) is read with the
// metadata.json beside it, written here as c7n/ctx.py `get_metadata` writes it (policy, execution, config),
// and posted to the custodian source as one policy's report of that account; the metadata is not posted.
// Twin: a resources.json with no metadata beside it is skipped, saying what is missing.
import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { expect, it } from 'vitest';
import { REAL } from '../helpers/normalize.js';
import { ingestRealRun } from '../helpers/ingest-real-run.js';
import { makeService, tempDir } from '../helpers/service.js';

const metadata = {
  policy: { name: 'ec2-running-instances', resource: 'aws.ec2', filters: [{ 'State.Name': 'running' }] },
  version: '0.9.40',
  execution: {
    id: '8f3e1c8a-5c7e-4f7e-9c0e-6c1f0b7d2a11',
    start: 1732420800.1,
    end_time: 1732420803.4,
    duration: 3.3,
  },
  config: {
    region: 'us-east-1',
    regions: ['us-east-1'],
    account_id: '644160558196',
    output_dir: 'out',
    cache: '',
  },
  'api-stats': { 'ec2.DescribeInstances': 1 },
};

it('posts a policy’s resources.json with its metadata as one custodian report; without it, says what is missing', async () => {
  const dir = await tempDir('pathgate-custodian-run-');
  const ran = path.join(dir, 'out', 'ec2-running-instances');
  const bare = path.join(dir, 'elsewhere');
  await mkdir(ran, { recursive: true });
  await mkdir(bare, { recursive: true });
  const resources = path.join(REAL, 'custodian', 'resources.ec2-running-instances.json');
  await copyFile(resources, path.join(ran, 'resources.json'));
  await writeFile(path.join(ran, 'metadata.json'), JSON.stringify(metadata, null, 2));
  await copyFile(resources, path.join(bare, 'resources.json'));
  const service = await makeService();
  try {
    const { summary, lines } = await ingestRealRun(service, dir);
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^out\/ec2-running-instances\/resources\.json: custodian -> 202, \d+ nodes/),
        expect.stringMatching(/^elsewhere\/resources\.json: skipped, .*with no metadata\.json beside it/),
        '1 file(s) not read as reports: Cloud Custodian run metadata (read with the resources.json beside it) (1 .json)',
      ]),
    );
    expect(summary).toEqual({ accepted: 1, rejected: 0, skipped: 2 });
    await service.settle();
    const vms = service.engine
      .tenant('default')!
      .graph.filterNodes((_, a) => a.label === 'VirtualMachine')
      .map((id) => service.engine.tenant('default')!.graph.getNodeAttribute(id, 'name'));
    // Named in the account the metadata names.
    expect(vms.length).toBeGreaterThan(0);
    expect(vms.every((name) => name.startsWith('644160558196/'))).toBe(true);
  } finally {
    await service.dispose();
  }
});
