// The OSCAL export (spec: `GET /export/oscal`): a NIST OSCAL 1.1.2 assessment-results document. One result
// (this analysis) holding, for each open attack path, an observation (the route as the analyzer found it),
// a risk (its likelihood, status `open`, or `deviation-approved` / `closed` when it is suppressed) and a
// finding (`not-satisfied` when critical) tying them together. UUIDs of findings, observations and risks
// are derived from the tenant and the path id (version 5 form), so the same path keeps its UUIDs from one
// export to the next; the document and result UUIDs are new each time. Validated against NIST's schema in
// test/app/exports.test.ts. The document is produced as text chunks (three passes over the paths: the
// observations, the risks, the findings) for the spool, so a large estate is never held whole.
import { createHash, randomUUID } from 'node:crypto';
import type { ExportedPath } from './path-record.js';

export const OSCAL_VERSION = '1.1.2';
/** Our namespace for OSCAL props (attack path id, score, priority). */
export const PATHGATE_NS = 'https://github.com/pathgate/pathgate/ns/oscal';

/** A name-based UUID (version 5 layout: SHA-1 of the name, version and variant bits set). */
export function nameUuid(name: string): string {
  const h = createHash('sha1').update(`pathgate:${name}`).digest();
  h[6] = (h[6] & 0x0f) | 0x50;
  h[8] = (h[8] & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

const RISK_STATUS: Readonly<Record<string, string>> = {
  'accept-risk': 'deviation-approved',
  'mitigating-control': 'deviation-approved',
  'false-positive': 'closed',
  duplicate: 'closed',
};

export interface OscalInput {
  tenant: string;
  /** the applications the caller's credential is bound to: the export holds only theirs, and says so */
  applications?: readonly string[];
  version: string;
  /** export time, ISO */
  generatedAt: string;
  /** when the tenant's paths were last computed, ISO (the result's end) */
  analysedAt: string | null;
  /** the paths, read once per pass (each call may build the path afresh) */
  paths: () => Iterable<ExportedPath>;
}

type Part = 'observation' | 'risk' | 'finding';

/** One of a path's three entries (built alone: each pass over the paths writes one kind). */
function partOf(tenant: string, p: ExportedPath, part: Part): object {
  const key = `${tenant}/${p.id}`;
  const observationUuid = nameUuid(`observation/${key}`);
  const riskUuid = nameUuid(`risk/${key}`);
  const start = p.nodes[0].name;
  const target = p.nodes.at(-1)!.name;
  const chain = p.steps.length
    ? p.nodes.map((n) => `${n.name} (${n.label})`).join(' → ')
    : `${target} (${p.nodes.at(-1)!.label}) is directly accessible`;
  const hops = p.steps
    .map(
      (s, i) =>
        `${i + 1}. ${p.nodes[i].name} ${s.type} ${p.nodes[i + 1].name}: p=${s.probability} (${s.weightBasis})`,
    )
    .join('\n');
  const props = [
    { name: 'attack-path-id', ns: PATHGATE_NS, value: p.id },
    { name: 'score', ns: PATHGATE_NS, value: String(p.score) },
    { name: 'priority', ns: PATHGATE_NS, value: p.priority },
    { name: 'critical', ns: PATHGATE_NS, value: String(p.critical) },
  ];
  const suppression = p.suppression;
  if (part === 'observation')
    return {
      uuid: observationUuid,
      title: `Attack path ${start} → ${target}`,
      description: `An attack route from ${start} to ${target}: ${chain}.${hops ? `\n\nHops:\n${hops}` : ''}`,
      props,
      methods: ['TEST'],
      types: ['finding'],
      collected: p.openedAt,
    };
  if (part === 'risk')
    return {
      uuid: riskUuid,
      title: `${p.priority} attack path to ${target}`,
      description: `An attacker starting at ${start} reaches ${target} with an estimated probability of ${p.score.toPrecision(3)}.`,
      statement: p.critical
        ? `Critical: ${target} is reachable from ${start} (${p.priority}, not suppressed).`
        : suppression
          ? `Suppressed (${suppression.reason}) by ${suppression.owner} until ${suppression.expiresAt}.`
          : `${p.priority}: ${target} is reachable from ${start}.`,
      props,
      status: suppression ? (RISK_STATUS[suppression.reason] ?? 'open') : 'open',
      'related-observations': [{ 'observation-uuid': observationUuid }],
    };
  return {
    uuid: nameUuid(`finding/${key}`),
    title: `Attack path ${start} → ${target} (${p.priority})`,
    description: `${chain}. Score ${p.score.toPrecision(3)}, open since ${p.openedAt}${p.reopens ? `, reopened ${p.reopens} time(s)` : ''}.`,
    props,
    target: {
      type: 'objective-id',
      'target-id': `attack-path-${p.id}`,
      status: { state: p.critical ? 'not-satisfied' : 'satisfied' },
    },
    'related-observations': [{ 'observation-uuid': observationUuid }],
    'related-risks': [{ 'risk-uuid': riskUuid }],
  };
}

/** The assessment-results document as JSON text, chunk by chunk. */
export function* oscalChunks(input: OscalInput): Generator<string> {
  let count = 0;
  let critical = 0;
  let earliest: string | null = null;
  for (const p of input.paths()) {
    count++;
    if (p.critical) critical++;
    if (earliest === null || p.openedAt < earliest) earliest = p.openedAt;
  }
  const start = earliest ?? input.generatedAt;
  // A scoped export is a part of the tenant's posture: its titles say which part (issue 31).
  const scope = input.applications ? `, applications ${[...input.applications].sort().join(', ')} only` : '';
  const result = {
    uuid: randomUUID(),
    title: `pathgate attack-path analysis of tenant ${input.tenant}${scope}`,
    description: `Open attack paths from internet-exposed starting points to crown jewels, as correlated by pathgate ${input.version}: ${count} open path(s), ${critical} critical (P1, not suppressed).`,
    start,
    ...(input.analysedAt && { end: input.analysedAt >= start ? input.analysedAt : input.generatedAt }),
    'reviewed-controls': { 'control-selections': [{ 'include-all': {} }] },
  };
  const document = {
    'assessment-results': {
      uuid: randomUUID(),
      metadata: {
        title: `pathgate attack paths: ${input.tenant}${scope}`,
        'last-modified': input.generatedAt,
        version: input.version,
        'oscal-version': OSCAL_VERSION,
      },
      'import-ap': { href: '#pathgate-attack-path-analysis' },
      results: [result],
    },
  };
  const whole = JSON.stringify(document);
  // Everything up to the end of the result object, which the three lists then extend.
  const cut = whole.length - ']}}'.length - 1;
  yield whole.slice(0, cut);
  if (count) {
    for (const list of ['observations', 'risks', 'findings'] as const) {
      const field = list === 'observations' ? 'observation' : list === 'risks' ? 'risk' : 'finding';
      yield `,${JSON.stringify(list)}:[`;
      let first = true;
      for (const p of input.paths()) {
        yield (first ? '' : ',') + JSON.stringify(partOf(input.tenant, p, field));
        first = false;
      }
      yield ']';
    }
  }
  yield whole.slice(cut);
}
