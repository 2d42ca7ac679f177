// The search's own rules, apart from any index: words, typo budgets, matching, cursors, snippets.
import { describe, expect, it } from 'vitest';
import { ProblemError } from '../../src/http/problems.js';
import {
  cursorAt,
  offsetAfter,
  pageSize,
  searchKinds,
  searchTerms,
  snippet,
  tokenize,
  typoBudget,
  wordMatches,
} from '../../src/search/query.js';

function problemOf(run: () => unknown) {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ProblemError);
    return (error as ProblemError).problem;
  }
  throw new Error('expected a refusal');
}

describe('search query rules', () => {
  it('cuts words at what is not a letter or digit, lowercased', () => {
    expect(tokenize('log4j-core')).toEqual(['log4j', 'core']);
    expect(tokenize('CVE-2021-44228')).toEqual(['cve', '2021', '44228']);
    expect(tokenize('pkg:maven/org.apache/log4j-core@2.13.2')).toEqual([
      'pkg',
      'maven',
      'org',
      'apache',
      'log4j',
      'core',
      '2',
      '13',
      '2',
    ]);
    expect(searchTerms('Ledger ledger  LEDGER')).toEqual(['ledger']);
  });

  it('allows no typo up to four letters, one up to eight, two from nine', () => {
    expect([3, 4, 5, 8, 9].map((n) => typoBudget('x'.repeat(n)))).toEqual([0, 0, 1, 1, 2]);
    expect(wordMatches('checkout', 'chekout')).toBe(true);
    expect(wordMatches('ssl', 'sql')).toBe(false);
    expect(wordMatches('pod', 'prod')).toBe(false);
    expect(wordMatches('kubernetes', 'kubrnetis')).toBe(true);
    expect(wordMatches('kubernetes', 'kbrnetis')).toBe(false);
    // Only the last word of a query matches by prefix.
    expect(wordMatches('log4j', 'log4')).toBe(true);
    expect(wordMatches('log4j', 'log4', false)).toBe(false);
  });

  it('hands out cursors it takes back, and refuses any other by value', () => {
    expect(offsetAfter(undefined)).toBe(0);
    expect(offsetAfter(cursorAt(0))).toBe(1);
    expect(offsetAfter(cursorAt(41))).toBe(42);
    for (const bad of [
      'nope',
      cursorAt(10_000),
      Buffer.from('search:-1').toString('base64url'),
      'x'.repeat(40),
    ]) {
      const problem = problemOf(() => offsetAfter(bad));
      expect(problem.detail).toContain(JSON.stringify(bad.slice(0, 64)));
      expect(problem.errors).toEqual([
        expect.objectContaining({ pointer: '/after', value: bad.slice(0, 64) }),
      ]);
    }
  });

  it('refuses page sizes, kinds and queries out of bounds by value', () => {
    expect(pageSize(undefined)).toBe(20);
    expect(pageSize(100)).toBe(100);
    for (const first of [0, 101, 2.5])
      expect(problemOf(() => pageSize(first)).detail).toContain(`got ${first}`);
    expect(searchKinds(['PATH', 'path', 'Node'])).toEqual(['path', 'node']);
    expect(problemOf(() => searchKinds(['edge'])).detail).toContain('"edge"');
    expect(problemOf(() => searchTerms('')).detail).toMatch(/empty/);
    expect(
      problemOf(() => searchTerms(Array.from({ length: 17 }, (_, i) => `w${i}`).join(' '))).detail,
    ).toContain('17 words');
  });

  it('shows the text around the first matching word, cut with ellipses', () => {
    const text = `${'a'.repeat(100)} the checkout-api image ${'b'.repeat(100)}`;
    const shown = snippet(text, ['chekout']);
    expect(shown.startsWith('…')).toBe(true);
    expect(shown.endsWith('…')).toBe(true);
    expect(shown).toContain('checkout-api');
    expect(shown.length).toBeLessThan(150);
    expect(snippet('short text', ['zzz'])).toBe('short text');
  });
});
