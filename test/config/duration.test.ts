// Durations as the spec writes them: what parses, what is refused, and formatting back.
import { describe, expect, it } from 'vitest';
import { DurationError, formatDuration, parseDuration } from '../../src/config/duration.js';

describe('parseDuration', () => {
  it.each([
    ['seconds', '30s', 30_000],
    ['minutes', '5m', 300_000],
    ['hours', '168h', 604_800_000],
    ['hours and minutes', '1h30m', 5_400_000],
    ['milliseconds', '250ms', 250],
    ['fractional hours', '1.5h', 5_400_000],
    ['every unit', '1h2m3s4ms', 3_723_004],
    ['minutes then milliseconds', '1m250ms', 60_250],
    ['a leading fraction', '.5s', 500],
    ['zero', '0s', 0],
    ['surrounding whitespace', ' 30s\n', 30_000],
    ['sub-millisecond, rounded', '1.6ms', 2],
  ])('%s: %j is %i ms', (_case, text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each([
    ['a bare number', '30'],
    ['a bare zero', '0'],
    ['empty', ''],
    ['blank', '   '],
    ['negative', '-5s'],
    ['signed', '+5s'],
    ['days', '5d'],
    ['microseconds', '5us'],
    ['upper-case unit', '30S'],
    ['a word', 'soon'],
    ['a space between parts', '1h 30m'],
    ['a unit without a number', 'h'],
    ['a trailing number', '1h30'],
    ['a lone dot', '.s'],
    ['too long to hold', `${'9'.repeat(400)}h`],
  ])('refuses %s (%j)', (_case, text) => {
    expect(() => parseDuration(text)).toThrow(DurationError);
    expect(() => parseDuration(text)).toThrow(
      `${JSON.stringify(text)} is not a duration (use e.g. 30s, 5m, 1h30m)`,
    );
  });
});

describe('formatDuration', () => {
  it.each([
    [0, '0s'],
    [250, '250ms'],
    [1000, '1s'],
    [1500, '1.5s'],
    [30_000, '30s'],
    [90_500, '1m30.5s'],
    [300_000, '5m'],
    [3_600_000, '1h'],
    [3_661_001, '1h1m1.001s'],
    [5_400_000, '1h30m'],
    [604_800_000, '168h'],
    [-30_000, '-30s'],
    [249.6, '250ms'],
  ])('%d ms is %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });

  it.each([0, 1, 999, 1000, 1001, 59_999, 60_001, 3_599_999, 3_600_001, 5_400_000, 604_800_000, 2 ** 31 - 1])(
    'round-trips %d ms',
    (ms) => {
      expect(parseDuration(formatDuration(ms))).toBe(ms);
    },
  );

  it('refuses what is not a finite number', () => {
    expect(() => formatDuration(Number.NaN)).toThrow(RangeError);
    expect(() => formatDuration(Infinity)).toThrow(RangeError);
  });
});
