// Durations written as the spec writes them: `30s`, `5m`, `168h`, `1h30m`, `250ms`, `1.5h`.
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const WHOLE = /^(?:\d+(?:\.\d+)?(?:ms|s|m|h))+$/;
const PART = /(\d+(?:\.\d+)?)(ms|s|m|h)/g;

/** Milliseconds of a duration; throws on anything else (bare numbers included: a unit is required). */
export function parseDuration(text: string): number {
  const trimmed = text.trim();
  if (!WHOLE.test(trimmed))
    throw new Error(`${JSON.stringify(text)} is not a duration (use e.g. 30s, 5m, 1h30m)`);
  let total = 0;
  for (const [, amount, unit] of trimmed.matchAll(PART)) total += Number(amount) * UNIT_MS[unit];
  return Math.round(total);
}

/** The inverse, for display: 5400000 -> `1h30m`, 250 -> `250ms`. */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0s';
  if (ms < 1000 || ms % 1000 !== 0) return `${ms}ms`;
  let rest = ms / 1000;
  const h = Math.floor(rest / 3600);
  rest -= h * 3600;
  const m = Math.floor(rest / 60);
  const s = rest - m * 60;
  return `${h ? `${h}h` : ''}${m ? `${m}m` : ''}${s ? `${s}s` : ''}`;
}
