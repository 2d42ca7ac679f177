// `pathgate ingestreal` as tests run it: a folder of the kept unseen reports, posted to a test service's own
// ingest listener, with the lines the command prints.
import { copyFile } from 'node:fs/promises';
import path from 'node:path';
import { ingestReal } from '../../app/ingest-real.js';
import { tempDir, type TestService } from './service.js';

/** A new folder holding the given files of fixtures/unseen (`<area>/<file>`), each under its own name. */
export async function unseenFolder(files: readonly string[], prefix: string): Promise<string> {
  const dir = await tempDir(prefix);
  for (const f of files)
    await copyFile(new URL(`../../fixtures/unseen/${f}`, import.meta.url), path.join(dir, path.basename(f)));
  return dir;
}

/** Runs `pathgate ingestreal <dir>` against the service's ingest listener; returns its summary and lines. */
export async function ingestRealRun(
  service: TestService,
  dir: string,
  options: { repo?: string } = {},
): Promise<{ summary: Awaited<ReturnType<typeof ingestReal>>; lines: string[] }> {
  const url = await service.ingestApp.listen({ host: '127.0.0.1', port: 0 });
  const lines: string[] = [];
  const summary = await ingestReal({ dir, url, ...options, out: (l) => lines.push(l) });
  return { summary, lines };
}
