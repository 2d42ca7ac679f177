// The NDJSON export (DECISIONS.md: `GET /export/ndjson`, one attack path per line), as the text chunks the
// spool (src/export/spool.ts) writes: nothing holds the whole export.
import type { PathRecord } from '../paths/path-store.js';
import type { ExportedPath } from './path-record.js';

export function* ndjsonLines(
  records: Iterable<PathRecord>,
  line: (record: PathRecord) => ExportedPath,
): Generator<string> {
  for (const record of records) yield `${JSON.stringify(line(record))}\n`;
}
