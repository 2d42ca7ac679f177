// Paging the preexisting routes of a gate answer (src/gate/preexisting.ts): every route exactly once, in
// score order, and nothing listed unless asked.
import { describe, expect, it } from 'vitest';
import { pathsAnswer, readPreexistingQuery, type PathEntry } from '../../src/gate/preexisting.js';

const entry = (id: string, score: number, status: PathEntry['status'] = 'preexisting'): PathEntry => ({
  id,
  status,
  score,
  priority: score >= 0.5 ? 'P1' : 'P2',
});
const preexisting = [
  entry('ap-c', 0.2),
  entry('ap-a', 0.7),
  entry('ap-e', 0.2),
  entry('ap-b', 0.4),
  entry('ap-d', 0.1),
];
const opened = [entry('ap-new', 0.9, 'opened')];

describe('preexisting routes', () => {
  it('are counted only, unless listed', () => {
    expect(pathsAnswer(opened, preexisting, readPreexistingQuery({}))).toEqual({ paths: opened });
  });

  it('page through every route once, highest score first, ties by id', () => {
    const seen: string[] = [];
    let after: string | undefined;
    for (let pages = 0; pages < 10; pages++) {
      const query = readPreexistingQuery({ preexisting: 'list', first: '2', ...(after && { after }) });
      const { paths, preexistingPage } = pathsAnswer(opened, preexisting, query);
      expect(paths[0]).toEqual(opened[0]);
      seen.push(...paths.slice(1).map((p) => p.id));
      if (!preexistingPage!.hasNextPage) break;
      after = preexistingPage!.endCursor!;
    }
    expect(seen).toEqual(['ap-a', 'ap-b', 'ap-c', 'ap-e', 'ap-d']);
  });

  it('refuses what it cannot read, naming it', () => {
    expect(() => readPreexistingQuery({ preexisting: 'yes' })).toThrow(/"yes"/);
    expect(() => readPreexistingQuery({ preexisting: 'list', first: '10001' })).toThrow(/1 to 10000/);
    expect(() => readPreexistingQuery({ preexisting: 'list', after: 'abc' })).toThrow(/"abc"/);
  });
});
