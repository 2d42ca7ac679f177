// The source names clients check a `source` against are the ingest sources the server has.
import { describe, expect, it } from 'vitest';
import { createSources } from '../../../src/ingest/sources/index.js';
import { SOURCE_NAMES } from '../../../src/ingest/sources/names.js';

describe('SOURCE_NAMES', () => {
  it('lists every ingest source, and nothing else', () => {
    expect([...SOURCE_NAMES].sort()).toEqual([...createSources().keys()].sort());
  });
});
