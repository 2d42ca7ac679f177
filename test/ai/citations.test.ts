// Citation checking on a small literal graph: what resolves (a path of the tenant the caller may see, a node
// of its graph, a finding node), what does not (an unknown id, a finding cited as an asset that is not one, a
// path of an application the caller is not bound to), and how claims are cut and judged.
import { describe, expect, it } from 'vitest';
import type { Principal } from '../../src/auth/principal.js';
import { checkAnswer } from '../../src/ai/citations.js';
import { emptyGrounding } from '../../src/ai/grounding.js';
import { questionTerms } from '../../src/ai/question-terms.js';
import { createTenantGraph } from '../../src/graph/model.js';
import { nodeId } from '../../src/graph/ids.js';
import { PathStore, type FrozenRoute, type PathRecord } from '../../src/paths/path-store.js';

const viewer: Principal = { subject: 'token:v', role: 'viewer', anonymous: false };

function estate() {
  const graph = createTenantGraph();
  const lb = nodeId('LoadBalancer', 'edge');
  const db = nodeId('Database', 'ledger');
  const cve = nodeId('CVE', 'CVE-2021-44228');
  graph.addNode(lb, { label: 'LoadBalancer', name: 'edge', props: { app: 'shop' }, lastSeen: 0 });
  graph.addNode(db, { label: 'Database', name: 'ledger', props: {}, lastSeen: 0 });
  graph.addNode(cve, { label: 'CVE', name: 'CVE-2021-44228', props: {}, lastSeen: 0 });
  const paths = new PathStore({ p1: 0.5, p2: 0.1 });
  const record: PathRecord & { route: FrozenRoute } = {
    id: 'ap-00000000000000aa',
    startId: lb,
    targetId: db,
    state: 'open',
    score: 0.8,
    logScore: Math.log(0.8),
    priority: 'P1',
    directAccess: false,
    firstSeen: 0,
    openedAt: 0,
    resolvedAt: null,
    reopens: 0,
    route: {
      nodes: [
        { id: lb, name: 'edge', label: 'LoadBalancer' },
        { id: db, name: 'ledger', label: 'Database' },
      ],
      steps: [{ from: lb, to: db, type: 'CONNECTS_TO', probability: 0.8, weightBasis: 'heuristic' }],
    },
  };
  paths.restore(record);
  return { graph, paths, lb, db, cve, record };
}

describe('checkAnswer', () => {
  it('keeps citations that resolve, once each, in order; several may share brackets', () => {
    const { graph, paths, lb, cve, record } = estate();
    const checked = checkAnswer(
      `The edge reaches the ledger [path:${record.id}, node:${lb}]. It runs log4j [finding:${cve}]. Again [path:${record.id}].`,
      { principal: viewer, graph, paths, grounding: emptyGrounding() },
    );
    expect(checked.citations).toEqual([
      { kind: 'path', id: record.id },
      { kind: 'node', id: lb },
      { kind: 'finding', id: cve },
    ]);
    expect(checked.unresolved).toEqual([]);
    expect(checked.unverified).toBe(false);
    // "Again [path]" is one word: no claim.
    expect(checked.claims).toHaveLength(2);
  });

  it('takes out unknown ids and a non-finding cited as a finding, marking each marker', () => {
    const { graph, paths, lb, record } = estate();
    const checked = checkAnswer(
      `Real [path:${record.id}] and fake [path:ap-ffffffffffffffff]. The edge is a finding [finding:${lb}].`,
      { principal: viewer, graph, paths, grounding: emptyGrounding() },
    );
    expect(checked.citations).toEqual([{ kind: 'path', id: record.id }]);
    expect(checked.unresolved).toEqual([
      { kind: 'path', id: 'ap-ffffffffffffffff' },
      { kind: 'finding', id: lb },
    ]);
    expect(checked.answer).toBe(
      `Real [path:${record.id}] and fake [unresolved citation]. The edge is a finding [unresolved citation].`,
    );
    expect(checked.claims.map((c) => c.verified)).toEqual([true, false]);
  });

  it('lets an apps-bound caller cite only paths of its applications, and nodes it was sent', () => {
    const { graph, paths, lb, record } = estate();
    const other: Principal = { ...viewer, apps: ['payroll'] };
    const checked = checkAnswer(`Route [path:${record.id}]. Node [node:${lb}].`, {
      principal: other,
      graph,
      paths,
      grounding: emptyGrounding(),
    });
    expect(checked.citations).toEqual([]);
    expect(checked.unresolved).toHaveLength(2);
    const own: Principal = { ...viewer, apps: ['shop'] };
    const grounding = { ...emptyGrounding(), nodes: [{ id: lb, label: 'LoadBalancer', name: 'edge' }] };
    expect(
      checkAnswer(`Route [path:${record.id}]. Node [node:${lb}].`, {
        principal: own,
        graph,
        paths,
        grounding,
      }).citations,
    ).toHaveLength(2);
  });

  it('counts no lead-in or fragment as a claim, and joins a trailing marker to its sentence', () => {
    const { graph, paths, record } = estate();
    const checked = checkAnswer(
      `## Summary\nOne route matters:\n- The edge reaches the ledger. [path:${record.id}]\n---`,
      {
        principal: viewer,
        graph,
        paths,
        grounding: emptyGrounding(),
      },
    );
    expect(checked.claims).toEqual([
      {
        text: `The edge reaches the ledger. [path:${record.id}]`,
        citations: [{ kind: 'path', id: record.id }],
        verified: true,
      },
    ]);
    expect(checked.unverified).toBe(false);
  });

  it('leaves text in brackets that is no citation alone', () => {
    const { graph, paths } = estate();
    const checked = checkAnswer('See [the docs] and [path: not an id here].', {
      principal: viewer,
      graph,
      paths,
      grounding: emptyGrounding(),
    });
    expect(checked.answer).toBe('See [the docs] and [path: not an id here].');
    expect(checked.citations).toEqual([]);
    expect(checked.unresolved).toEqual([]);
    expect(checked.unverified).toBe(true);
  });
});

describe('questionTerms', () => {
  it('keeps names, CVE ids and path ids, and drops the words every question has', () => {
    expect(questionTerms('Which routes reach the ledger, and what closes them?')).toEqual(['ledger']);
    expect(questionTerms('Is CVE-2021-44228 on any path to orders-postgres?')).toEqual([
      'cve-2021-44228',
      'orders-postgres',
    ]);
    expect(questionTerms('Explain ap-e98dbf710d9ec5b1.')).toEqual(['ap-e98dbf710d9ec5b1']);
    expect(questionTerms('what is the riskiest path?')).toEqual([]);
  });
});
