// Vitest global setup: every test file's temporary folders (DATA_DIRs, audit logs, keys, journals) go
// under one run-wide folder that is removed when the run ends, so a test that forgets its own clean-up
// (or a child process killed mid-write) leaves nothing behind in the machine's temp folder.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

export default async function setup(): Promise<() => Promise<void>> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'pathgate-vitest-'));
  // The test workers are forked after this runs and inherit the environment, so os.tmpdir() is `root`.
  process.env.TMPDIR = root;
  return async () => {
    await rm(root, { recursive: true, force: true });
  };
}
