// SOURCES: the one table of ingest sources, name -> normalizer. Adding a source is one file and one row.
import { createEventsSource } from './events.js';
import type { IngestSource } from './source.js';

export function createSources(): ReadonlyMap<string, IngestSource> {
  const sources: IngestSource[] = [createEventsSource()];
  return new Map(sources.map((s) => [s.name, s]));
}
