// Conditions on the request time (DECISIONS "Time conditions"): `aws:CurrentTime`, `aws:EpochTime` and
// `aws:TokenIssueTime` compared with literal dates, read as AWS's "Date condition operators" and, for
// `aws:EpochTime` (seconds), its "Numeric condition operators" read them. A statement under such tests holds
// at some instants only; the evaluator asks whether it holds at its clock's "now" and when that answer
// next changes, so a grant that holds now is unconditional until then and the analyzer re-judges it there.
// - The attacker chooses when to call and can always get a fresh session, so the token's issue time is
//   read as the request time (a token issued before a past date is one nobody can get any more).
// - `…IfExists` reads the same (the three keys are present on every request with a session).
// - Several values of one test: any of them (a negated operator: none of them), as AWS matches a
//   single-valued key; several tests: all of them.

/** The keys read as the request time, lowercased. */
const TIME_KEYS = new Set(['aws:currenttime', 'aws:epochtime', 'aws:tokenissuetime']);

type Comparison = 'eq' | 'ne' | 'lt' | 'le' | 'gt' | 'ge';

const DATE_OPERATORS: Readonly<Record<string, Comparison>> = {
  dateequals: 'eq',
  datenotequals: 'ne',
  datelessthan: 'lt',
  datelessthanequals: 'le',
  dategreaterthan: 'gt',
  dategreaterthanequals: 'ge',
};
const NUMERIC_OPERATORS: Readonly<Record<string, Comparison>> = {
  numericequals: 'eq',
  numericnotequals: 'ne',
  numericlessthan: 'lt',
  numericlessthanequals: 'le',
  numericgreaterthan: 'gt',
  numericgreaterthanequals: 'ge',
};

/** One test on the request time: the comparison and its literal instants (epoch ms). */
export interface TimeTest {
  comparison: Comparison;
  instants: number[];
}

/**
 * A condition entry read as a time test; undefined when it is none (another key) or not one we can decide
 * (a policy variable for a value, an operator that does not apply to the key, a date that does not parse).
 */
export function readTimeTest(operator: string, key: string, value: unknown): TimeTest | undefined {
  const k = key.toLowerCase();
  if (!TIME_KEYS.has(k)) return undefined;
  const op = operator.toLowerCase().replace(/ifexists$/, '');
  const numeric = NUMERIC_OPERATORS[op];
  // Numeric operators apply to the epoch-seconds key only (aws:CurrentTime is a date).
  const comparison = DATE_OPERATORS[op] ?? (k === 'aws:epochtime' ? numeric : undefined);
  if (!comparison) return undefined;
  const values = Array.isArray(value) ? value : [value];
  const instants: number[] = [];
  for (const v of values) {
    const instant = numeric ? epochSeconds(v) : dateValue(v);
    if (instant === undefined) return undefined;
    instants.push(instant);
  }
  return instants.length ? { comparison, instants } : undefined;
}

/** Whether a time key is one of ours (its test could not be decided when readTimeTest says undefined). */
export const isTimeKey = (key: string): boolean => TIME_KEYS.has(key.toLowerCase());

/** A date condition value: ISO 8601, or epoch seconds (AWS accepts both). */
function dateValue(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? v * 1000 : undefined;
  if (typeof v !== 'string' || v.includes('${')) return undefined;
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  // A date alone (`2020-01-01`) or a date and time; Date.parse reads both as UTC when no zone is written.
  if (!/^\d{4}-\d{2}-\d{2}/.test(v)) return undefined;
  const t = Date.parse(v);
  return Number.isNaN(t) ? undefined : t;
}

function epochSeconds(v: unknown): number | undefined {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : NaN;
  return Number.isFinite(n) ? n * 1000 : undefined;
}

/** Whether every test holds at `now`, and the next instant after `now` that answer may change (Infinity: never). */
export function judgeTime(tests: readonly TimeTest[], now: number): { holds: boolean; until: number } {
  let holds = true;
  let until = Infinity;
  for (const test of tests) {
    const judged = judgeOne(test, now);
    holds &&= judged.holds;
    until = Math.min(until, judged.until);
  }
  return { holds, until };
}

function judgeOne({ comparison, instants }: TimeTest, now: number): { holds: boolean; until: number } {
  const later = instants.filter((t) => t > now);
  const nextLater = later.length ? Math.min(...later) : Infinity;
  switch (comparison) {
    case 'eq': {
      // Holds at one instant only: during it, until the next millisecond.
      const holds = instants.includes(now);
      return { holds, until: holds ? now + 1 : nextLater };
    }
    case 'ne': {
      const holds = !instants.includes(now);
      return { holds, until: holds ? nextLater : now + 1 };
    }
    case 'lt': {
      const last = Math.max(...instants);
      return now < last ? { holds: true, until: last } : { holds: false, until: Infinity };
    }
    case 'le': {
      const last = Math.max(...instants);
      return now <= last ? { holds: true, until: last + 1 } : { holds: false, until: Infinity };
    }
    case 'gt': {
      const first = Math.min(...instants);
      return now > first ? { holds: true, until: Infinity } : { holds: false, until: first + 1 };
    }
    case 'ge': {
      const first = Math.min(...instants);
      return now >= first ? { holds: true, until: Infinity } : { holds: false, until: first };
    }
  }
}
