// Threat-intel documents as published (the real slices under fixtures/real/intel): the CISA KEV catalog as
// JSON and as CSV, FIRST EPSS scores as CSV; anything else refused, naming what was expected.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ProblemError } from '../../src/http/problems.js';
import { readIntel } from '../../src/intel/catalog.js';
import { ThreatIntel } from '../../src/intel/threat-intel.js';
import { REAL } from '../helpers/normalize.js';

const real = (file: string) => readFileSync(path.join(REAL, 'intel', file), 'utf8');

describe('threat-intel catalogs', () => {
  it('reads the KEV catalog JSON and its CSV alike', () => {
    const json = readIntel(real('cisa-kev-slice.json'));
    const csv = readIntel(real('cisa-kev-slice.csv'));
    expect(json).toMatchObject({ kind: 'kev', version: '2025.08.25' });
    expect(json.entries.size).toBe(197);
    expect(csv.kind).toBe('kev');
    expect([...csv.entries.keys()].sort()).toEqual([...json.entries.keys()].sort());
    expect(json.entries.get('CVE-2022-22965')).toMatchObject({ dateAdded: '2022-04-04' });
  });

  it('reads EPSS scores with their model version', () => {
    const epss = readIntel(real('epss-scores-slice.csv'));
    expect(epss).toMatchObject({ kind: 'epss', version: 'v2026.06.15' });
    expect(epss.entries.size).toBe(178);
    expect(epss.entries.get('CVE-2021-44228')).toEqual({ epss: 0.99999, percentile: expect.any(Number) });
  });

  it('answers per CVE, KEV and EPSS together', () => {
    const intel = new ThreatIntel();
    intel.add(readIntel(real('cisa-kev-slice.json')), 'kev');
    intel.add(readIntel(real('epss-scores-slice.csv')), 'epss');
    expect(intel.lookup('cve-2021-44228')).toMatchObject({ kev: true, epss: 0.99999 });
    expect(intel.lookup('CVE-1999-0001')).toEqual({ epss: 0.03351, epss_percentile: 0.88255 });
    expect(intel.lookup('CVE-2000-0000')).toBeUndefined();
  });

  it('refuses what is neither, naming the expected documents and the offending value', () => {
    const problem = (text: string) => {
      try {
        readIntel(text);
      } catch (error) {
        return error as ProblemError;
      }
      throw new Error('accepted');
    };
    expect(problem('hello').problem.status).toBe(400);
    expect(problem('hello').message).toMatch(/CISA KEV catalog.*EPSS/);
    expect(problem('{"Results": []}').problem.errors?.[0]).toMatchObject({ pointer: '/vulnerabilities' });
    expect(problem('{"vulnerabilities": [{"cveID": "nope"}]}').problem.errors?.[0]).toMatchObject({
      pointer: '/vulnerabilities/0/cveID',
    });
    expect(problem('cve,epss,percentile\nCVE-2021-0001,1.5,0.9\n').problem.errors?.[0]).toMatchObject({
      pointer: '/rows/1/epss',
    });
  });
});
