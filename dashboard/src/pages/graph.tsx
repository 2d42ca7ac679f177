// Graph: the neighbourhood of a node in the caller's tenant graph (Query.neighbourhood), drawn with sigma.js
// (WebGL) on graphology; a path's route highlighted; a click on a node expands it (its own neighbours join
// the view), "Centre here" re-centres. Rings by distance keep 2,000 nodes legible.
import { MultiDirectedGraph } from 'graphology';
import { useEffect, useMemo, useRef, useState } from 'react';
import Sigma from 'sigma';
import { gql } from '../api';
import { loadNeighbourhood, merge, type Hood } from '../neighbourhood';
import { Link, navigate, useLocation } from '../router';
import { useLoad } from '../session';

const COLOURS: Record<string, string> = {
  Internet: '#b91c1c',
  LoadBalancer: '#c2410c',
  Service: '#1d4ed8',
  Image: '#6d28d9',
  Secret: '#a16207',
  Database: '#a16207',
  Bucket: '#a16207',
  IAM_Role: '#047857',
  ServiceAccount: '#047857',
  VirtualMachine: '#0e7490',
};

interface Route {
  id: string;
  nodes: { id: string }[];
  steps: { from: string; to: string; type: string }[];
}

/** Where to start without a node in the address: the path's target, or the top open path's. */
async function startingPoint(pathId: string | null): Promise<{ center: string | null; route: Route | null }> {
  if (pathId) {
    const { attackPath } = await gql<{ attackPath: (Route & { target: { id: string } }) | null }>(
      `query P($id: ID!) { attackPath(id: $id) { id target { id } nodes { id } steps { from to type } } }`,
      { id: pathId },
    );
    return { center: attackPath?.target.id ?? null, route: attackPath };
  }
  const { attackPaths } = await gql<{ attackPaths: { target: { id: string } }[] }>(
    '{ attackPaths(first: 1) { target { id } } }',
  );
  return { center: attackPaths[0]?.target.id ?? null, route: null };
}

export function GraphPage() {
  const { search } = useLocation();
  const q = new URLSearchParams(search);
  const pathId = q.get('path');
  const depth = Number(q.get('depth') ?? 2);
  const asked = q.get('node');
  const start = useLoad(
    () => (asked && !pathId ? Promise.resolve({ center: null, route: null }) : startingPoint(pathId)),
    [pathId, !asked],
  );
  const center = asked ?? start.data?.center ?? '';
  const hood = useLoad(
    () => (center ? loadNeighbourhood(center, depth) : Promise.resolve(null)),
    [center, depth],
  );
  const [expansions, setExpansions] = useState<Hood[]>([]);
  const [expanding, setExpanding] = useState<string | null>(null);
  const [expandError, setExpandError] = useState<string | null>(null);
  useEffect(() => setExpansions([]), [center, depth]);
  const [pick, setPick] = useState('');
  const go = (node: string, d = depth) =>
    navigate(`/graph?node=${encodeURIComponent(node)}&depth=${d}${pathId ? `&path=${pathId}` : ''}`);
  const expand = (node: string) => {
    if (expansions.some((h) => h.center.id === node)) return;
    setExpanding(node);
    setExpandError(null);
    loadNeighbourhood(node, 1).then(
      (found) => {
        if (found) setExpansions((list) => [...list, found]);
        setExpanding(null);
      },
      (error: unknown) => {
        setExpandError(error instanceof Error ? error.message : String(error));
        setExpanding(null);
      },
    );
  };

  const view = useMemo(
    () => (hood.data ? merge(hood.data, expansions) : { nodes: [], edges: [] }),
    [hood.data, expansions],
  );
  const route = start.data?.route ?? null;
  const container = useRef<HTMLDivElement>(null);
  const expandRef = useRef(expand);
  expandRef.current = expand;
  useEffect(() => {
    if (!container.current || !view.nodes.length) return;
    const began = performance.now();
    const onRoute = new Set(route?.nodes.map((n) => n.id) ?? []);
    const routeEdges = new Set(route?.steps.map((s) => `${s.type}|${s.from}|${s.to}`) ?? []);
    const graph = new MultiDirectedGraph();
    const rings = new Map<number, typeof view.nodes>();
    for (const node of view.nodes) rings.set(node.distance, [...(rings.get(node.distance) ?? []), node]);
    for (const [d, nodes] of rings)
      nodes.forEach((node, i) => {
        const angle = (2 * Math.PI * i) / nodes.length + d * 0.4;
        graph.addNode(node.id, {
          x: d * Math.cos(angle),
          y: d * Math.sin(angle),
          size: node.id === center ? 10 : onRoute.has(node.id) ? 8 : 4,
          label: node.name,
          color: onRoute.has(node.id) ? '#dc2626' : (COLOURS[node.label] ?? '#475569'),
        });
      });
    for (const e of view.edges) {
      const key = `${e.type}|${e.from}|${e.to}`;
      const hot = routeEdges.has(key);
      graph.addEdgeWithKey(key, e.from, e.to, {
        size: hot ? 3 : 1,
        color: hot ? '#dc2626' : '#94a3b8',
        label: e.type,
      });
    }
    const renderer = new Sigma(graph, container.current, {
      renderEdgeLabels: false,
      // every label on a small neighbourhood; only the larger nodes' on a crowded one
      labelRenderedSizeThreshold: graph.order > 300 ? 6 : 0,
    });
    renderer.on('clickNode', ({ node }) => expandRef.current(node));
    renderer.refresh();
    // what bench/dashboard.ts reads: how many nodes were drawn, and how long building and drawing them took
    container.current.dataset.drawn = String(graph.order);
    container.current.dataset.drawMs = (performance.now() - began).toFixed(1);
    return () => renderer.kill();
  }, [view, route]);

  const centerNode = view.nodes.find((n) => n.id === center);
  return (
    <section>
      <h1>Graph</h1>
      {(start.loading || hood.loading) && <p className="loading">Loading the neighbourhood…</p>}
      {(start.error || hood.error || expandError) && (
        <p role="alert" className="error">
          {start.error ?? hood.error ?? expandError}
        </p>
      )}
      <form
        className="filters"
        aria-label="Choose a node"
        onSubmit={(e) => {
          e.preventDefault();
          const found = view.nodes.find((n) => n.name === pick || n.id === pick);
          if (found) go(found.id);
          else if (pick) go(pick.trim());
        }}
      >
        <label>
          Node
          <input
            list="node-names"
            value={pick}
            onChange={(e) => setPick(e.target.value)}
            placeholder="a node's name or id"
          />
        </label>
        <datalist id="node-names">
          {view.nodes.slice(0, 2000).map((n) => (
            <option key={n.id} value={n.name} />
          ))}
        </datalist>
        <button type="submit">Show</button>
        <button type="button" onClick={() => go(center, depth + 1)} disabled={!center || depth >= 6}>
          Expand one hop
        </button>
        {depth > 1 && (
          <button type="button" onClick={() => go(center, depth - 1)}>
            One hop less
          </button>
        )}
      </form>
      <p data-testid="graph-summary">
        {centerNode
          ? `${view.nodes.length} nodes within ${depth} hops of ${centerNode.name}${
              expansions.length ? ` and ${expansions.length} expanded` : ''
            }${hood.data?.truncated ? ` (the first ${hood.data.nodes.length}: more lie within ${depth} hops)` : ''}`
          : !start.loading && !hood.loading && !hood.data
            ? center
              ? 'No such node here.'
              : 'No attack path yet: nothing to centre on.'
            : ''}
        {expanding && ' · expanding…'}
        {route && (
          <>
            {' '}
            · route of <Link href={`/paths/${route.id}`}>{route.id}</Link> in red
          </>
        )}
      </p>
      <p className="note">Click a node to expand it; the list below centres on one.</p>
      <div
        ref={container}
        className="sigma"
        data-testid="graph"
        role="img"
        aria-label="Graph of the neighbourhood"
      />
      <details>
        <summary>The nodes shown, as a list</summary>
        <ul className="node-list">
          {view.nodes.slice(0, 500).map((n) => (
            <li key={n.id}>
              {n.name} ({n.label}, {n.distance} hops, {n.degree} edges){' '}
              <button type="button" className="link" onClick={() => go(n.id)}>
                Centre here
              </button>{' '}
              {!expansions.some((h) => h.center.id === n.id) && (
                <button type="button" className="link" onClick={() => expand(n.id)}>
                  Expand {n.name}
                </button>
              )}
            </li>
          ))}
        </ul>
      </details>
    </section>
  );
}
