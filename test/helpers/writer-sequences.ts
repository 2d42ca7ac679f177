// Seeded random sequences of what the graph writer is asked to do (issue 38's differential test): reports
// over a small pool of nodes so that updates collide, complete snapshots of two scopes that omit part of what
// they held, edges whose endpoints come later, image references joined by digest, tag or name, VMs renamed by
// their Name tag, records from an account-less source, unknown labels and malformed records, pruning, TTLs,
// time-limited edges, threat intel and restarts. A sequence is data, drawn up front from its seed: the same
// seed gives the same sequence, and `describeOp` prints it.
import { nodeId } from '../../src/graph/ids.js';
import type { EdgeType, WeightBasis } from '../../src/graph/vocabulary.js';
import { parseImageRef } from '../../src/identity/image-ref.js';
import type { EnvelopeEdge, EnvelopeNode, EventEnvelope } from '../../src/ingest/envelope.js';
import { prng } from './random-estate.js';

export type Op =
  | { kind: 'apply'; at: number; envelope: EventEnvelope }
  | { kind: 'snapshot'; at: number; scope: string; envelopes: EventEnvelope[]; retract: boolean }
  | { kind: 'prune'; cutoff: number }
  | { kind: 'expireParked'; now: number }
  | { kind: 'expireTimed'; now: number }
  | { kind: 'enrich'; intel: Record<string, Record<string, unknown>>; ids?: string[] }
  | { kind: 'restart' };

export const T0 = Date.parse('2026-11-01T00:00:00.000Z');
/** How long a parked edge waits in the writers the sequences drive. */
export const PARKED_TTL_MS = 2_000;
export const SCOPES = ['k8s|cluster:a', 'k8s|cluster:b'];

const ACCOUNT = '111122223333';
const D1 = `sha256:${'ab'.repeat(32)}`;
const D2 = `sha256:${'cd'.repeat(32)}`;

/** A node as a report sends it: label, name and the properties it always carries. */
type Handle = { node: EnvelopeNode; vary: (next: () => number) => Record<string, unknown> };

const none = () => ({});
const flag = (key: string) => (next: () => number) => (next() < 0.5 ? { [key]: next() < 0.7 } : {});
const version = (next: () => number) => (next() < 0.4 ? { v: Math.floor(next() * 3) } : {});

function plain(
  label: EnvelopeNode['label'],
  name: string,
  props: Record<string, unknown> = {},
): EnvelopeNode {
  return { id: nodeId(label, name), label, name, properties: props };
}

function scanned(ref: string, digests: string[]): EnvelopeNode {
  return plain('Image', parseImageRef(ref)!.canonical, { image_ref: ref, digests, scanner: 'trivy' });
}

function reference(ref: string): EnvelopeNode {
  const parsed = parseImageRef(ref)!;
  return plain('Image', parsed.canonical, {
    image_ref: ref,
    ...(parsed.digest && { digests: [parsed.digest] }),
    resolve_ref: ref,
  });
}

const vm = (name: string, instance: string, tagged: boolean): EnvelopeNode =>
  plain('VirtualMachine', `${ACCOUNT}/${name}`, {
    instance_id: instance,
    ...(tagged && { aliases: [`${ACCOUNT}/${instance}`] }),
  });

/** The pool every report draws from, by a short name used when a sequence is printed. */
const POOL: Record<string, Handle> = {
  lbA: { node: plain('LoadBalancer', 'lb-a', { internet_exposed: true }), vary: version },
  lbB: { node: plain('LoadBalancer', 'lb-b'), vary: flag('internet_exposed') },
  web: { node: plain('Service', 'web'), vary: flag('internet_exposed') },
  api: { node: plain('Service', 'api'), vary: version },
  worker: { node: plain('Service', 'worker'), vary: version },
  orders: { node: plain('Database', 'orders', { crown_jewel: true }), vary: version },
  users: { node: plain('Database', 'users'), vary: flag('crown_jewel') },
  logs: { node: plain('Bucket', 'logs', { crown_jewel: true }), vary: flag('public_access') },
  token: { node: plain('Secret', 'token'), vary: none },
  admin: { node: plain('IAM_Role', 'admin', { crown_jewel: true }), vary: none },
  alice: { node: plain('User', 'alice', { credential_exposed: true }), vary: none },
  cveA: { node: plain('CVE', 'CVE-2021-44228', { severity: 'CRITICAL', cvss: 10 }), vary: none },
  cveB: { node: plain('CVE', 'CVE-2022-22965', { severity: 'HIGH', cvss: 9.8 }), vary: none },
  libx: { node: plain('Package', 'pkg:npm/libx@1.0.0'), vary: version },
  // Scanned images, and references to them that join by digest, tag, bare name or `:latest`.
  shop14: { node: scanned('acme/shop:1.4', [D1]), vary: none },
  shop15: { node: scanned('acme/shop:1.5', []), vary: none },
  redis: { node: scanned('redis', []), vary: none },
  api20: { node: scanned('acme/api:2.0', [D2]), vary: none },
  refShopTag: { node: reference('registry.example.com/acme/shop:1.4'), vary: none },
  refShopDigest: { node: reference(`acme/shop@${D1}`), vary: none },
  refShopBare: { node: reference('acme/shop'), vary: none },
  refRedisLatest: { node: reference('redis:latest'), vary: none },
  refApiDigest: { node: reference(`acme/api@${D2}`), vary: none },
  refApiTag: { node: reference('ghcr.io/acme/api:2.0'), vary: none },
  refNever: { node: reference('acme/web:9'), vary: none },
  // One machine under its Name tag (its instance id an alias) and by its id; another instance of that tag.
  vmTagged: { node: vm('web-1', 'i-0aaaaaaaaaaaaaaa1', true), vary: version },
  vmById: { node: vm('i-0aaaaaaaaaaaaaaa1', 'i-0aaaaaaaaaaaaaaa1', false), vary: version },
  vmOther: { node: vm('web-1', 'i-0bbbbbbbbbbbbbbb2', true), vary: version },
  vmOtherById: { node: vm('i-0bbbbbbbbbbbbbbb2', 'i-0bbbbbbbbbbbbbbb2', false), vary: none },
  // An asset named without its account (a dataclass finding), and the account-qualified one.
  ordersNoAccount: { node: plain('Database', 'orders-db', { account_unknown: true }), vary: version },
  ordersQualified: { node: plain('Database', `${ACCOUNT}/orders-db`, { crown_jewel: true }), vary: none },
};
const HANDLES = Object.keys(POOL);
/** Handles by id; handles that share an id (a scan and its references, two instances of a Name tag) print as one. */
const NAME_OF = new Map<string, string>();
for (const h of HANDLES) {
  const id = POOL[h].node.id;
  NAME_OF.set(id, NAME_OF.has(id) ? `${NAME_OF.get(id)}/${h}` : h);
}

const TYPES: EdgeType[] = [
  'ROUTES_TO',
  'CONNECTS_TO',
  'DEPENDS_ON',
  'DEPENDS_ON',
  'AFFECTS',
  'AFFECTS',
  'HAS_PERMISSION',
  'ASSUMES',
  'EXPOSES',
  'BUILT_FROM',
];
const PS = [undefined, undefined, undefined, 0, 0.3, 0.5, 0.85, 0.9, 1];
const BASES: (WeightBasis | undefined)[] = [undefined, undefined, 'cvss', 'epss', 'kev', 'heuristic'];
const UNKNOWN_ID = 'Gadget:0123456789abcdef';

class Draw {
  /** The instants drawn so far (`valid_until`s, receipts): boundaries are hit exactly now and then. */
  readonly untils: number[] = [];
  readonly receipts: number[] = [];
  constructor(readonly next: () => number) {}
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  pick<T>(list: readonly T[]): T {
    return list[Math.floor(this.next() * list.length)];
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
}

function drawNode(d: Draw, handle: string): EnvelopeNode {
  const { node, vary } = POOL[handle];
  // Now and then the same node in other case: the same id, a new name.
  const name = d.chance(0.08) && node.label !== 'Image' ? node.name.toUpperCase() : node.name;
  return { ...node, name, properties: { ...node.properties, ...vary(d.next) } };
}

function drawEdge(d: Draw, at: number, from = d.pick(HANDLES), to = d.pick(HANDLES)): EnvelopeEdge {
  const edge: EnvelopeEdge = { type: d.pick(TYPES), from: POOL[from].node.id, to: POOL[to].node.id };
  const p = d.pick(PS);
  if (p !== undefined) edge.exploit_probability = p;
  const basis = p === undefined ? undefined : d.pick(BASES);
  if (basis) edge.weight_basis = basis;
  if (d.chance(0.12)) edge.resource_scoped = true;
  if (d.chance(0.2)) {
    const until = at + d.int(-200, 3_000);
    d.untils.push(until);
    edge.properties = { valid_until: new Date(until).toISOString() };
  } else if (d.chance(0.15)) edge.properties = { port: d.pick([22, 443, 5432]) };
  return edge;
}

/** Records outside the vocabulary or malformed: dropped, counted, never written. */
function drawBad(d: Draw, at: number): { nodes: unknown[]; edges: unknown[] } {
  switch (d.int(0, 6)) {
    case 0:
      return { nodes: [{ id: UNKNOWN_ID, label: 'Gadget', name: 'g' }], edges: [] };
    case 1:
      return { nodes: [{ id: nodeId('Database', 'x'), label: 'Service', name: 'x' }], edges: [] };
    case 2:
      return { nodes: [{ id: nodeId('Service', 'y'), label: 'Service' }, null], edges: [] };
    case 3:
      return { nodes: [], edges: [{ ...drawEdge(d, at), type: 'FLIES_TO' }] };
    case 4: {
      const self = d.pick(HANDLES);
      return { nodes: [], edges: [drawEdge(d, at, self, self)] };
    }
    case 5:
      return {
        nodes: [],
        edges: [
          { ...drawEdge(d, at), to: UNKNOWN_ID },
          { type: 'ROUTES_TO', from: 42 },
        ],
      };
    default:
      return { nodes: [], edges: [null, { ...drawEdge(d, at), from: 'not an id' }] };
  }
}

function drawEnvelope(d: Draw, at: number, handles?: string[]): EventEnvelope {
  const chosen = handles ?? Array.from({ length: d.int(0, 5) }, () => d.pick(HANDLES));
  const nodes: unknown[] = chosen.map((h) => drawNode(d, h));
  // Edges mostly between the report's own nodes, some to nodes it does not carry (parked or landed).
  const edges: unknown[] = Array.from({ length: d.int(0, 5) }, () =>
    chosen.length && d.chance(0.6)
      ? drawEdge(d, at, d.pick(chosen), d.chance(0.6) ? d.pick(chosen) : d.pick(HANDLES))
      : drawEdge(d, at),
  );
  if (d.chance(0.08)) {
    const bad = drawBad(d, at);
    nodes.push(...bad.nodes);
    edges.push(...bad.edges);
  }
  return {
    source: d.pick(['k8s', 'trivy', 'events']),
    kind: 'asset',
    observed_at: new Date(at).toISOString(),
    nodes: nodes as EnvelopeNode[],
    edges: edges as EnvelopeEdge[],
  };
}

/** A sequence of `steps` operations drawn from `seed`. */
export function drawSequence(seed: number, steps: number): Op[] {
  const d = new Draw(prng(seed));
  let t = T0;
  const ops: Op[] = [];
  // What each scope's snapshots draw from: each snapshot carries part of it, so a later one omits items.
  const held = new Map<string, string[]>();
  for (let step = 0; step < steps; step++) {
    t += d.int(0, 150);
    const r = d.next();
    // Late deliveries: a record received before the last one applied (lastSeen keeps the later).
    const at = d.chance(0.15) ? t - d.int(0, 400) : t;
    d.receipts.push(at);
    // Now and then an instant exactly on a boundary: an edge's end, a receipt as the cutoff, a TTL's end.
    const boundary = (list: number[], offset = 0) =>
      list.length && d.chance(0.3) ? d.pick(list) + offset : undefined;
    if (r < 0.45) ops.push({ kind: 'apply', at, envelope: drawEnvelope(d, at) });
    else if (r < 0.62) {
      const scope = d.pick(SCOPES);
      let universe = held.get(scope);
      if (!universe || d.chance(0.15))
        held.set(scope, (universe = Array.from({ length: d.int(2, 8) }, () => d.pick(HANDLES))));
      const kept = universe.filter(() => d.chance(0.75));
      const chunks = d.int(1, 3);
      const envelopes = Array.from({ length: chunks }, (_, i) =>
        drawEnvelope(
          d,
          at,
          kept.filter((_h, j) => j % chunks === i),
        ),
      );
      ops.push({ kind: 'snapshot', at, scope, envelopes, retract: d.chance(0.85) });
    } else if (r < 0.68) ops.push({ kind: 'prune', cutoff: boundary(d.receipts) ?? t - d.int(100, 2_500) });
    else if (r < 0.75)
      ops.push({ kind: 'expireParked', now: Math.max(t, boundary(d.receipts, PARKED_TTL_MS) ?? t) });
    else if (r < 0.82) ops.push({ kind: 'expireTimed', now: boundary(d.untils) ?? t });
    else if (r < 0.87) {
      const intel: Record<string, Record<string, unknown>> = {};
      for (const cve of ['CVE-2021-44228', 'CVE-2022-22965'])
        if (d.chance(0.7)) intel[cve] = { kev: d.chance(0.5), epss: d.pick([0.1, 0.5, 0.97]) };
      const ids = d.chance(0.5) ? [POOL.cveA.node.id, POOL.web.node.id] : undefined;
      ops.push({ kind: 'enrich', intel, ids });
    } else if (r < 0.92) ops.push({ kind: 'restart' });
    else t += d.int(500, 3_000);
  }
  return ops;
}

const short = (id: unknown) => (typeof id === 'string' ? (NAME_OF.get(id) ?? id) : JSON.stringify(id));

function describeEnvelope(e: EventEnvelope): string {
  const nodes = (e.nodes ?? []).map((n) =>
    n && typeof n === 'object'
      ? `${NAME_OF.get(n.id) === undefined ? `${String(n.label)}:${String(n.name)}` : short(n.id)}${
          n.properties && Object.keys(n.properties).length ? JSON.stringify(n.properties) : ''
        }`
      : JSON.stringify(n),
  );
  const edges = (e.edges ?? []).map((x) => {
    if (!x || typeof x !== 'object') return JSON.stringify(x);
    const { type, from, to, ...rest } = x;
    return `${String(type)} ${short(from)}>${short(to)}${Object.keys(rest).length ? JSON.stringify(rest) : ''}`;
  });
  return `nodes [${nodes.join(', ')}] edges [${edges.join(', ')}]`;
}

/** One line per operation, as a failure prints the sequence. */
export function describeOp(op: Op): string {
  switch (op.kind) {
    case 'apply':
      return `apply at T0+${op.at - T0}: ${describeEnvelope(op.envelope)}`;
    case 'snapshot':
      return `snapshot ${op.scope} at T0+${op.at - T0}${op.retract ? '' : ' (retract: false)'}: ${op.envelopes
        .map(describeEnvelope)
        .join(' | ')}`;
    case 'prune':
      return `prune(T0+${op.cutoff - T0})`;
    case 'expireParked':
      return `expireParked(T0+${op.now - T0})`;
    case 'expireTimed':
      return `expireTimed(T0+${op.now - T0})`;
    case 'enrich':
      return `enrichCves(${JSON.stringify(op.intel)}${op.ids ? `, [${op.ids.map(short).join(', ')}]` : ''})`;
    case 'restart':
      return 'restart (snapshot lines, restored into a fresh graph and writer)';
  }
}

/** Every id of the pool, and every image reference it holds: what the aliases and joins are asked about. */
export const POOL_IDS = HANDLES.map((h) => POOL[h].node.id);
export const POOL_REFERENCES = HANDLES.flatMap((h) => {
  const ref = POOL[h].node.properties?.resolve_ref;
  return typeof ref === 'string' ? [{ ref, id: POOL[h].node.id }] : [];
});
