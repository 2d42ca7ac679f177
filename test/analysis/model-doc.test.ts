// docs/model.md lists the basis priors and the attacker profiles exactly as the code has them.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_PROFILE_PRIORS,
  PROFILE_CORRELATION,
  PROFILE_NAMES,
} from '../../src/analysis/attacker-profiles.js';
import { BASIS_PRIORS } from '../../src/analysis/uncertainty.js';
import { WEIGHT_BASES } from '../../src/graph/vocabulary.js';

const doc = readFileSync(new URL('../../docs/model.md', import.meta.url), 'utf8');

describe('docs/model.md: uncertainty and profiles', () => {
  it('lists every basis prior', () => {
    for (const basis of WEIGHT_BASES) {
      const row = new RegExp(
        `^\\|\\s*\`${basis}\`\\s*\\|\\s*([\\d.]+)\\s*\\|\\s*([\\d.]+)\\s*\\|\\s*([\\d.]+)\\s*\\|`,
        'm',
      ).exec(doc);
      expect(row, basis).not.toBeNull();
      const { alpha, beta, weight } = BASIS_PRIORS[basis];
      expect(row!.slice(1).map(Number)).toEqual([alpha, beta, weight]);
    }
  });

  it('lists every attacker profile with its correlation and default prior', () => {
    for (const name of PROFILE_NAMES) {
      const row = new RegExp(`^\\|\\s*\`${name}\`\\s*\\|\\s*([\\d.]+)\\s*\\|\\s*([\\d.]+)\\s*\\|`, 'm').exec(
        doc,
      );
      expect(row, name).not.toBeNull();
      expect(row!.slice(1).map(Number)).toEqual([PROFILE_CORRELATION[name], DEFAULT_PROFILE_PRIORS[name]]);
    }
  });
});
