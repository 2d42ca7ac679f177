// The scope ledger keeps edges in the graph by number (src/graph/scope-ledger.ts). Driven by the same random
// operations as the string-keyed ledger it replaced (test/helpers/reference-scope-ledger.ts), it must retract
// and store the same live items. Dead edges (forgotten: dropped from the graph, so never written again) are
// left out of the comparison: the writer skips any retraction of an edge it no longer has.
import { describe, expect, it } from 'vitest';
import { ScopeLedger, type ScopeState } from '../../src/graph/scope-ledger.js';
import { prng } from '../helpers/random-estate.js';
import { ReferenceScopeLedger } from '../helpers/reference-scope-ledger.js';

const SCOPES = ['k8s|cluster/a', 'k8s|cluster/b', 'trivy|image:shop'];
const NODES = ['Service:a', 'Service:b', 'Image:c', 'CVE:d', 'Secret:e'];
const TRIPLES = ['AFFECTS|CVE:d|Image:c', 'EXPOSES|Service:a|Service:b', 'DEPENDS_ON|Service:b|Image:c'];

type Ledger = Pick<ScopeLedger, 'claim' | 'assert' | 'complete' | 'rename' | 'forget' | 'serialize'> & {
  readonly scopeCount: number;
};

function run(seed: number, steps: number): void {
  const next = prng(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)];
  // Pages of two edges now and then, so that pages are freed and reallocated all along the way.
  const pageBits = seed % 2 ? 1 : 12;
  let ours: Ledger = new ScopeLedger({ pageBits });
  let reference: Ledger = new ReferenceScopeLedger();
  let edges = 0;
  const dead = new Set<string>();
  const live = () => [...Array(edges).keys()].map(String).filter((key) => !dead.has(key));
  const item = () => {
    const r = next();
    const alive = live();
    if (r < 0.3 || !alive.length) return pick(NODES);
    if (r < 0.4) return pick(TRIPLES);
    if (r < 0.55 || edges === 0) return String(edges++);
    return pick(alive);
  };
  const liveOnly = (items: string[]) => items.filter((i) => !dead.has(i)).sort();
  const stored = (i: string) => (dead.has(i) ? undefined : i);
  const state = (s: ScopeState) => ({
    scopes: Object.fromEntries(s.scopes.map(([scope, items]) => [scope, [...items].sort()])),
    asserted: [...s.asserted].sort(),
  });
  const both = <R>(call: (l: Ledger) => R): [R, R] => [call(ours), call(reference)];

  for (let step = 0; step < steps; step++) {
    const r = next();
    const where = `seed ${seed}, step ${step}`;
    if (r < 0.45) {
      const scope = pick(SCOPES);
      const key = item();
      const existed = next() < 0.5;
      both((l) => l.claim(scope, key, existed));
    } else if (r < 0.55) {
      const key = item();
      both((l) => l.assert(key));
    } else if (r < 0.7) {
      const scope = pick(SCOPES);
      const [a, b] = both((l) => l.complete(scope));
      expect(liveOnly(a), where).toEqual(liveOnly(b));
      // The writer drops what is retracted: an edge among it is dead from here on.
      for (const key of a) if (/^\d/.test(key)) dead.add(key);
      for (const key of b) if (/^\d/.test(key)) dead.add(key);
    } else if (r < 0.78) {
      // A parked edge lands: on a new edge mostly, now and then on one already in the graph.
      const from = pick(TRIPLES);
      const alive = live();
      const to = next() < 0.8 || !alive.length ? String(edges++) : pick(alive);
      both((l) => l.rename(from, to));
    } else if (r < 0.88) {
      const key = item();
      both((l) => l.forget(key));
      if (/^\d/.test(key)) dead.add(key);
    } else if (r < 0.95) {
      const [a, b] = both((l) => l.serialize(stored));
      expect(state(a), where).toEqual(state(b));
      expect(ours.scopeCount, where).toBe(reference.scopeCount);
    } else {
      // A restart: both restored from what they stored.
      const saved = JSON.parse(JSON.stringify(ours.serialize(stored))) as ScopeState;
      const savedReference = JSON.parse(JSON.stringify(reference.serialize(stored))) as ScopeState;
      const restored = new ScopeLedger({ pageBits });
      restored.restore(saved);
      const restoredReference = new ReferenceScopeLedger();
      restoredReference.restore(savedReference);
      ours = restored;
      reference = restoredReference;
    }
  }
}

describe('scope ledger with numbered edges', () => {
  it('retracts and stores what the string-keyed ledger does, over random operations', () => {
    for (let seed = 1; seed <= 1500; seed++) run(seed, 120);
  });

  it('keeps a claim made by two complete reports arriving at once', () => {
    const ledger = new ScopeLedger();
    // Both snapshots carry edge 7; the second's claim takes over the first's mark.
    ledger.claim('a', '7', false);
    ledger.claim('b', '7', false);
    ledger.claim('a', '7', false);
    expect(ledger.complete('a')).toEqual([]);
    expect(ledger.complete('b')).toEqual([]);
    // a drops it: b still holds it. Then b drops it too: retracted.
    ledger.claim('a', 'Service:x', false);
    expect(ledger.complete('a')).toEqual([]);
    ledger.claim('b', 'Service:x', false);
    expect(ledger.complete('b')).toEqual(['7']);
  });

  it('frees the counters of edges no scope claims any more, and counts anew on the same pages', () => {
    const ledger = new ScopeLedger({ pageBits: 2 });
    for (let n = 0; n < 12; n++) ledger.claim('a', String(n), false);
    ledger.complete('a');
    expect(ledger.edgePages).toBe(3);
    // The next report keeps edges 12 and 13 only: edges 0-11 are retracted, their pages freed.
    ledger.claim('a', '12', false);
    ledger.claim('a', '13', false);
    expect(ledger.complete('a').sort((x, y) => Number(x) - Number(y))).toEqual(
      Array.from({ length: 12 }, (_, n) => String(n)),
    );
    expect(ledger.edgePages).toBe(1);
    // Its negative twin: a page with one edge still claimed stays, and that edge is still swept in turn.
    ledger.claim('a', '14', false);
    expect(ledger.complete('a').sort()).toEqual(['12', '13']);
    expect(ledger.edgePages).toBe(1);
  });

  it('does not retract an edge a partial report asserted', () => {
    const ledger = new ScopeLedger();
    ledger.claim('a', '3', false);
    ledger.complete('a');
    ledger.assert('3');
    ledger.claim('a', 'Service:x', false);
    expect(ledger.complete('a')).toEqual([]);
    // Its negative twin: never asserted, so retracted.
    ledger.claim('a', '4', false);
    ledger.complete('a');
    ledger.claim('a', 'Service:x', false);
    expect(ledger.complete('a')).toEqual(['4']);
  });
});
