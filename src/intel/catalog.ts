// Threat-intel documents as their publishers print them: the CISA Known Exploited Vulnerabilities catalog
// (JSON, `{catalogVersion, vulnerabilities: [{cveID, dateAdded, knownRansomwareCampaignUse, ...}]}`, or
// its CSV rendering) and the FIRST EPSS scores (CSV: a `#model_version:...,score_date:...` comment, then
// `cve,epss,percentile`). A document that is neither is refused, naming what was expected.
import { parse as parseCsv } from 'csv-parse/sync';
import { ProblemError } from '../http/problems.js';

export interface KevEntry {
  dateAdded?: string;
  ransomware?: boolean;
}

export interface EpssEntry {
  epss: number;
  percentile?: number;
}

export type IntelDocument =
  | { kind: 'kev'; version?: string; entries: Map<string, KevEntry> }
  | { kind: 'epss'; version?: string; entries: Map<string, EpssEntry> };

const CVE = /^CVE-\d{4}-\d{4,}$/i;
const EXPECTED =
  'expected the CISA KEV catalog (JSON with vulnerabilities[].cveID, or its CSV) or FIRST EPSS scores (CSV with cve,epss,percentile)';

function refuse(detail: string, pointer = '/'): never {
  throw new ProblemError('invalid-payload', `threat intel: ${detail}`, { errors: [{ pointer, detail }] });
}

/** Reads a KEV catalog or an EPSS score file, whichever the text is. */
export function readIntel(text: string): IntelDocument {
  const trimmed = text.replace(/^\uFEFF/, '').trimStart();
  if (trimmed.startsWith('{')) return readKevJson(trimmed);
  const firstLine = trimmed.split(/\r?\n/, 1)[0] ?? '';
  if (firstLine.startsWith('#') || /^cve,epss/i.test(firstLine)) return readEpssCsv(trimmed);
  if (/^"?cveID"?,/i.test(firstLine)) return readKevCsv(trimmed);
  return refuse(EXPECTED);
}

function readKevJson(text: string): IntelDocument {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (error) {
    return refuse(`not valid JSON (${(error as Error).message}); ${EXPECTED}`);
  }
  const list = (doc as { vulnerabilities?: unknown }).vulnerabilities;
  if (!Array.isArray(list)) return refuse(`no vulnerabilities list; ${EXPECTED}`, '/vulnerabilities');
  const entries = new Map<string, KevEntry>();
  for (const [i, v] of list.entries()) {
    const id = (v as { cveID?: unknown })?.cveID;
    if (typeof id !== 'string' || !CVE.test(id)) return refuse('not a CVE id', `/vulnerabilities/${i}/cveID`);
    entries.set(id.toUpperCase(), {
      dateAdded: typeof v.dateAdded === 'string' ? v.dateAdded : undefined,
      ransomware: v.knownRansomwareCampaignUse === 'Known' ? true : undefined,
    });
  }
  const version = (doc as { catalogVersion?: unknown }).catalogVersion;
  return { kind: 'kev', version: typeof version === 'string' ? version : undefined, entries };
}

function rows(text: string): Record<string, string>[] {
  try {
    return parseCsv(text, { columns: true, skip_empty_lines: true, comment: '#', trim: true, bom: true });
  } catch (error) {
    return refuse(`not valid CSV (${(error as Error).message}); ${EXPECTED}`);
  }
}

function readKevCsv(text: string): IntelDocument {
  const entries = new Map<string, KevEntry>();
  for (const [i, row] of rows(text).entries()) {
    if (!CVE.test(row.cveID ?? '')) return refuse('not a CVE id', `/rows/${i + 1}/cveID`);
    entries.set(row.cveID.toUpperCase(), {
      dateAdded: row.dateAdded || undefined,
      ransomware: row.knownRansomwareCampaignUse === 'Known' ? true : undefined,
    });
  }
  return { kind: 'kev', entries };
}

function readEpssCsv(text: string): IntelDocument {
  const comment = /^#(.*)$/m.exec(text.split(/\r?\n/, 1)[0] ?? '')?.[1];
  const version = comment
    ?.split(',')
    .map((part) => part.split(':'))
    .find(([key]) => key === 'model_version')?.[1];
  const entries = new Map<string, EpssEntry>();
  for (const [i, row] of rows(text).entries()) {
    const epss = Number(row.epss);
    const percentile = row.percentile === undefined ? undefined : Number(row.percentile);
    if (!CVE.test(row.cve ?? '')) return refuse('not a CVE id', `/rows/${i + 1}/cve`);
    if (!Number.isFinite(epss) || epss < 0 || epss > 1)
      return refuse(`epss ${JSON.stringify(row.epss)} is not a probability`, `/rows/${i + 1}/epss`);
    entries.set(row.cve.toUpperCase(), {
      epss,
      percentile: Number.isFinite(percentile) ? percentile : undefined,
    });
  }
  if (!entries.size) return refuse(`no scores; ${EXPECTED}`);
  return { kind: 'epss', version, entries };
}
