import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PROBLEMS, problem, problemTypeUri } from '../../src/http/problems.js';

const doc = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');
const documented = new Map(
  [...doc.matchAll(/^\|\s*`([a-z-]+)`\s*\|\s*(\d{3})\s*\|/gm)].map((m) => [m[1], Number(m[2])] as const),
);

describe('problem catalog', () => {
  it('documents every problem code with its status, and documents no code the catalog lacks', () => {
    const catalog = new Map(Object.entries(PROBLEMS).map(([code, p]) => [code, p.status]));
    expect(documented).toEqual(catalog);
  });

  it('builds RFC 9457 bodies and leaves out an empty errors list', () => {
    const body = problem('unknown-source', 'no ingest source named "nope"');
    expect(body).toEqual({
      type: problemTypeUri('unknown-source'),
      title: PROBLEMS['unknown-source'].title,
      status: 404,
      detail: 'no ingest source named "nope"',
    });
  });
});
