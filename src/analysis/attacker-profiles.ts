// Attacker profiles (spec "Attack path": profileScores, mixtureScore; `ATTACKER_PROFILE_PRIORS`). A profile
// says how strongly the hops of a route succeed or fail together for that kind of attacker: with
// probability `correlation` the attacker's skill decides every hop at once (one draw U, a hop succeeds when
// U < p: the route succeeds with its weakest hop's p, the Fréchet ceiling), otherwise each hop is its own
// chance (the product, the baseline score). The mixture weighs the profiles by their prior. Every profile
// score therefore lies between the score and its ceiling: score <= mixtureScore <= scoreUpperBound.
// docs/model.md documents the values.

export const PROFILE_NAMES = ['commodity', 'criminal', 'apt'] as const;
export type ProfileName = (typeof PROFILE_NAMES)[number];

/** How much a profile's success on one hop says about the next (0: independent, 1: one skill decides all). */
export const PROFILE_CORRELATION: Readonly<Record<ProfileName, number>> = {
  // Opportunistic scanning and kits: each hop is luck of its own.
  commodity: 0.1,
  // Organized crime buys access and tooling: a crew that gets in tends to get further.
  criminal: 0.4,
  // A state-level team that clears one hop clears the others: the weakest hop is the route's odds.
  apt: 0.8,
};

/** Default priors: who is likely to be on the other end (ATTACKER_PROFILE_PRIORS overrides). */
export const DEFAULT_PROFILE_PRIORS: Readonly<Record<ProfileName, number>> = {
  commodity: 0.6,
  criminal: 0.3,
  apt: 0.1,
};

export interface AttackerProfile {
  name: ProfileName;
  /** Prior weight, normalized so the profiles sum to 1. */
  weight: number;
  correlation: number;
}

/** The profiles with their normalized priors. */
export function attackerProfiles(
  priors: Readonly<Record<ProfileName, number>> = DEFAULT_PROFILE_PRIORS,
): AttackerProfile[] {
  const total = PROFILE_NAMES.reduce((sum, name) => sum + priors[name], 0);
  return PROFILE_NAMES.map((name) => ({
    name,
    weight: total > 0 ? priors[name] / total : 1 / PROFILE_NAMES.length,
    correlation: PROFILE_CORRELATION[name],
  }));
}

/**
 * Parses ATTACKER_PROFILE_PRIORS: `commodity=0.6,criminal=0.3,apt=0.1` (non-negative weights, at least one
 * positive; unnamed profiles get 0; weights are normalized). Throws a message naming what is wrong.
 */
export function parseProfilePriors(text: string): Record<ProfileName, number> {
  const out: Record<ProfileName, number> = { commodity: 0, criminal: 0, apt: 0 };
  const seen = new Set<string>();
  for (const part of text.split(',')) {
    const item = part.trim();
    if (!item) continue;
    const match = /^([a-z]+)\s*=\s*([0-9]*\.?[0-9]+(?:e[-+]?\d+)?)$/i.exec(item);
    if (!match) throw new Error(`"${item}" is not profile=weight (profiles: ${PROFILE_NAMES.join(', ')})`);
    const name = match[1].toLowerCase();
    if (!(PROFILE_NAMES as readonly string[]).includes(name))
      throw new Error(`unknown attacker profile "${match[1]}" (profiles: ${PROFILE_NAMES.join(', ')})`);
    if (seen.has(name)) throw new Error(`attacker profile "${name}" is given twice`);
    seen.add(name);
    const weight = Number(match[2]);
    if (!Number.isFinite(weight) || weight < 0) throw new Error(`weight of "${name}" must be 0 or more`);
    out[name as ProfileName] = weight;
  }
  if (PROFILE_NAMES.every((name) => out[name] === 0))
    throw new Error('at least one attacker profile needs a positive weight');
  return out;
}
