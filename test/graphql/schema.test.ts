import { readFileSync, writeFileSync } from 'node:fs';
import { buildSchema, lexicographicSortSchema, printSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { SCHEMA_SDL } from '../../app/graphql/schema.js';

const SNAPSHOT = new URL('./schema.snapshot.graphql', import.meta.url);

describe('GraphQL schema', () => {
  it('matches the committed snapshot (a stable surface: update the snapshot and CHANGELOG.md together)', () => {
    const printed = printSchema(lexicographicSortSchema(buildSchema(SCHEMA_SDL))) + '\n';
    if (process.env.UPDATE_SCHEMA_SNAPSHOT === '1') writeFileSync(SNAPSHOT, printed);
    expect(printed).toBe(readFileSync(SNAPSHOT, 'utf8'));
  });
});
