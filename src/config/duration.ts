// Durations as the spec and Go write them (`30s`, `5m`, `168h`, `1h30m`, `250ms`, `1.5h`), in milliseconds.
// A unit is always required: a bare `30` is refused rather than guessed as seconds or milliseconds.

const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
// `ms` before `m` and `s` so that `250ms` is not read as 250 minutes and a stray `s`.
const WHOLE = /^(?:(?:\d+(?:\.\d*)?|\.\d+)(?:ms|s|m|h))+$/;
const PART = /(\d+(?:\.\d*)?|\.\d+)(ms|s|m|h)/g;

export class DurationError extends Error {
  constructor(readonly text: string) {
    super(`${JSON.stringify(text)} is not a duration (use e.g. 30s, 5m, 1h30m)`);
    this.name = 'DurationError';
  }
}

/**
 * Milliseconds of a duration such as `1h30m` (units `ms`, `s`, `m`, `h`; parts may be fractional, `1.5h`),
 * rounded to a whole millisecond. Surrounding whitespace is ignored; bare numbers, signs, spaces between
 * parts, other units and empty text throw `DurationError`.
 */
export function parseDuration(text: string): number {
  const trimmed = text.trim();
  if (!WHOLE.test(trimmed)) throw new DurationError(text);
  let total = 0;
  for (const [, amount, unit] of trimmed.matchAll(PART)) total += Number(amount) * UNIT_MS[unit];
  const ms = Math.round(total);
  if (!Number.isSafeInteger(ms)) throw new DurationError(text);
  return ms;
}

/**
 * The inverse, for display and messages: 5400000 -> `1h30m`, 90500 -> `1m30.5s`, 250 -> `250ms`, 0 -> `0s`.
 * Fractions of a millisecond are rounded; parseDuration(formatDuration(ms)) === ms for whole ms >= 0.
 */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) throw new RangeError(`${ms} is not a finite number of milliseconds`);
  const whole = Math.round(ms);
  if (whole < 0) return `-${formatDuration(-whole)}`;
  if (whole === 0) return '0s';
  if (whole < 1000) return `${whole}ms`;
  const h = Math.floor(whole / 3_600_000);
  const m = Math.floor((whole % 3_600_000) / 60_000);
  const msOfMinute = whole % 60_000;
  // Seconds keep their milliseconds as a decimal fraction, without trailing zeros (`1.5s`, `1.001s`).
  const s =
    msOfMinute % 1000 === 0 ? `${msOfMinute / 1000}` : (msOfMinute / 1000).toFixed(3).replace(/0+$/, '');
  return `${h ? `${h}h` : ''}${m ? `${m}m` : ''}${msOfMinute ? `${s}s` : ''}`;
}
