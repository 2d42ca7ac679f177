// What the service knows about CVEs beyond a scanner's report (DECISIONS "Threat intel"): listed in CISA's
// KEV catalog, and FIRST's EPSS probability of exploitation. Loaded from files or configured URLs when
// THREATINTEL=on (never any network use otherwise), or by hand (`pathgate intel <file>`); applied to the
// CVE nodes already in the graph and to every later one (GraphWriter.enrichCves), which reprices the hops
// priced from them (src/model/probability.ts: priceCve, basis `kev` then `epss`).
import { readFile } from 'node:fs/promises';
import type { EpssEntry, IntelDocument, KevEntry } from './catalog.js';
import { readIntel } from './catalog.js';

export interface IntelSettings {
  enabled: boolean;
  kevFile?: string;
  epssFile?: string;
  kevUrl?: string;
  epssUrl?: string;
}

/** CVE node properties intel sets (priceCve reads `kev` and `epss`). */
export interface CveIntel {
  kev?: true;
  kev_date_added?: string;
  kev_ransomware?: true;
  epss?: number;
  epss_percentile?: number;
}

export interface LoadedIntel {
  kind: 'kev' | 'epss';
  source: string;
  version?: string;
  entries: number;
}

export class ThreatIntel {
  private kev = new Map<string, KevEntry>();
  private epss = new Map<string, EpssEntry>();
  readonly loaded: LoadedIntel[] = [];

  get size(): number {
    return this.kev.size + this.epss.size;
  }

  /** Takes a document in: a newer catalog of a kind replaces the older one. */
  add(doc: IntelDocument, source: string): LoadedIntel {
    if (doc.kind === 'kev') this.kev = doc.entries;
    else this.epss = doc.entries;
    const loaded = { kind: doc.kind, source, version: doc.version, entries: doc.entries.size };
    this.loaded.push(loaded);
    return loaded;
  }

  /** What intel says about a CVE id (`CVE-2021-44228`, any case); undefined when nothing. */
  lookup(cve: string): CveIntel | undefined {
    const id = cve.trim().toUpperCase();
    const kev = this.kev.get(id);
    const epss = this.epss.get(id);
    if (!kev && !epss) return undefined;
    const out: CveIntel = {};
    if (kev) {
      out.kev = true;
      if (kev.dateAdded) out.kev_date_added = kev.dateAdded;
      if (kev.ransomware) out.kev_ransomware = true;
    }
    if (epss) {
      out.epss = epss.epss;
      if (epss.percentile !== undefined) out.epss_percentile = epss.percentile;
    }
    return out;
  }
}

/**
 * Loads what the settings name: files first, URLs when set (fetched, with a timeout). Nothing is fetched
 * unless a URL is configured.
 */
export async function loadConfiguredIntel(
  intel: ThreatIntel,
  settings: IntelSettings,
  fetchImpl: typeof fetch = fetch,
): Promise<LoadedIntel[]> {
  const out: LoadedIntel[] = [];
  for (const file of [settings.kevFile, settings.epssFile]) {
    if (file) out.push(intel.add(readIntel(await readFile(file, 'utf8')), file));
  }
  for (const url of [settings.kevUrl, settings.epssUrl]) {
    if (!url) continue;
    const response = await fetchImpl(url, { signal: AbortSignal.timeout(30_000) });
    if (!response.ok) throw new Error(`threat intel: ${url} answered ${response.status}`);
    out.push(intel.add(readIntel(await response.text()), url));
  }
  return out;
}
