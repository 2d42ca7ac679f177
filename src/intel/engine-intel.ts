// Threat intel in the running engine: loaded at start when THREATINTEL=on (configured files and URLs, then
// any catalog loaded by hand earlier and kept under DATA_DIR/intel/), applied to every tenant's CVEs, then
// to each CVE as it arrives; `load` takes a catalog by hand (`pathgate intel <file>`, POST /intel) without a
// restart. Each CVE node set or changed counts in `service_threatintel_cves_enriched`.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { TenantState } from '../engine/tenant.js';
import type { EventEnvelope } from '../ingest/envelope.js';
import { ProblemError } from '../http/problems.js';
import type { Log } from '../log/logger.js';
import type { Metrics } from '../metrics/metrics.js';
import { readIntel } from './catalog.js';
import { loadConfiguredIntel, ThreatIntel, type IntelSettings, type LoadedIntel } from './threat-intel.js';

export interface IntelLoadResult extends LoadedIntel {
  /** CVE nodes set or changed across tenants */
  enriched: number;
}

const KEPT = { kev: 'kev.json', epss: 'epss.csv' } as const;

export function createIntelHook(deps: {
  settings: IntelSettings | undefined;
  dataDir: string;
  log: Log;
  metrics: Metrics;
  tenants: () => Iterable<[string, TenantState]>;
  fetch?: typeof fetch;
}) {
  const intel = new ThreatIntel();
  const enabled = deps.settings?.enabled === true;
  const dir = path.join(deps.dataDir, 'intel');
  const lookup = (cve: string) => intel.lookup(cve) as Record<string, unknown> | undefined;

  const count = (tenant: string, n: number) => {
    if (n) deps.metrics.threatIntelCvesEnriched.inc({ tenant }, n);
    return n;
  };

  function applyAll(): number {
    let total = 0;
    for (const [name, state] of deps.tenants()) total += count(name, state.writer.enrichCves(lookup));
    return total;
  }

  return {
    enabled,
    intel,
    /** At start: configured catalogs, and those loaded by hand before, applied to every graph. */
    async start(): Promise<void> {
      if (!enabled) return;
      const configured = await loadConfiguredIntel(intel, deps.settings!, deps.fetch);
      for (const kind of ['kev', 'epss'] as const) {
        if (configured.some((l) => l.kind === kind)) continue;
        const kept = await readFile(path.join(dir, KEPT[kind]), 'utf8').catch(() => undefined);
        if (kept !== undefined) configured.push(intel.add(readIntel(kept), `${dir}/${KEPT[kind]}`));
      }
      const enriched = applyAll();
      if (configured.length) deps.log.info({ loaded: configured, enriched }, 'threat intel loaded');
    },
    /** After each envelope: the CVEs it brought. */
    applied(tenant: string, state: TenantState, envelope: EventEnvelope): void {
      if (!enabled || !intel.size) return;
      const cves = (envelope.nodes ?? []).filter((n) => n?.label === 'CVE').map((n) => n.id);
      if (cves.length) count(tenant, state.writer.enrichCves(lookup, cves));
    },
    /** A catalog by hand: read, kept under DATA_DIR/intel/ for the next start, applied now. */
    async load(text: string, source: string): Promise<IntelLoadResult> {
      if (!enabled)
        throw new ProblemError('conflict', 'threat intel is off: start the service with THREATINTEL=on', {
          errors: [{ pointer: '/', detail: 'THREATINTEL=on enables threat intel' }],
        });
      const doc = readIntel(text);
      await mkdir(dir, { recursive: true });
      await writeFile(path.join(dir, KEPT[doc.kind]), text);
      const loaded = intel.add(doc, source);
      const enriched = applyAll();
      deps.log.info({ ...loaded, enriched }, 'threat intel loaded by hand');
      return { ...loaded, enriched };
    },
  };
}

export type IntelHook = ReturnType<typeof createIntelHook>;
