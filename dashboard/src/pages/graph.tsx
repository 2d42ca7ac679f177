// Graph: the neighbourhood of a node in the union of the attack-path routes, drawn with sigma.js (WebGL) on
// graphology; a path's route highlighted; expandable hop by hop. Rings by distance keep 2,000 nodes legible.
import { MultiDirectedGraph } from 'graphology';
import { useEffect, useMemo, useRef, useState } from 'react';
import Sigma from 'sigma';
import { gql } from '../api';
import { neighbourhood, routeGraph, type RouteRow } from '../neighbourhood';
import { Link, navigate, useLocation } from '../router';
import { useLoad } from '../session';

const PAGE = 5000;
const LIMIT = 5000;
/** Routes loaded at most: the union of 100,000 routes is a few thousand nodes. */
const MAX_ROUTES = 100_000;
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

async function loadRoutes(): Promise<RouteRow[]> {
  const out: RouteRow[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await gql<{ attackPaths: RouteRow[] }>(
      `query R($first: Int, $after: ID) { attackPaths(first: $first, after: $after) {
        id nodes { id name label } steps { from to type probability } } }`,
      { first: PAGE, after },
    );
    out.push(...page.attackPaths);
    if (page.attackPaths.length < PAGE || out.length >= MAX_ROUTES) return out;
    after = page.attackPaths.at(-1)!.id;
  }
}

export function GraphPage() {
  const { search } = useLocation();
  const q = new URLSearchParams(search);
  const routes = useLoad(loadRoutes, []);
  const graph = useMemo(() => routeGraph(routes.data ?? []), [routes.data]);
  const pathId = q.get('path');
  const highlighted = routes.data?.find((r) => r.id === pathId);
  const firstTarget = routes.data?.[0]?.nodes.at(-1)?.id;
  const center = q.get('node') ?? highlighted?.nodes.at(-1)?.id ?? firstTarget ?? '';
  const depth = Number(q.get('depth') ?? 2);
  const [pick, setPick] = useState('');
  const go = (node: string, d = depth) =>
    navigate(`/graph?node=${encodeURIComponent(node)}&depth=${d}${pathId ? `&path=${pathId}` : ''}`);

  const near = useMemo(
    () =>
      center && graph.hasNode(center)
        ? neighbourhood(graph, center, depth, LIMIT)
        : new Map<string, number>(),
    [graph, center, depth],
  );
  const container = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!container.current || !near.size) return;
    const began = performance.now();
    const onRoute = new Set(highlighted?.nodes.map((n) => n.id) ?? []);
    const routeEdges = new Set(highlighted?.steps.map((s) => `${s.type}|${s.from}|${s.to}`) ?? []);
    const view = new MultiDirectedGraph();
    const rings = new Map<number, string[]>();
    for (const [node, d] of near) rings.set(d, [...(rings.get(d) ?? []), node]);
    for (const [d, nodes] of rings)
      nodes.forEach((node, i) => {
        const angle = (2 * Math.PI * i) / nodes.length + d * 0.4;
        const a = graph.getNodeAttributes(node);
        view.addNode(node, {
          x: d * Math.cos(angle),
          y: d * Math.sin(angle),
          size: node === center ? 10 : onRoute.has(node) ? 8 : 4,
          label: a.name,
          color: onRoute.has(node) ? '#dc2626' : (COLOURS[a.label] ?? '#475569'),
        });
      });
    graph.forEachEdge((key, attrs, from, to) => {
      if (!view.hasNode(from) || !view.hasNode(to)) return;
      const hot = routeEdges.has(key);
      view.addEdgeWithKey(key, from, to, {
        size: hot ? 3 : 1,
        color: hot ? '#dc2626' : '#94a3b8',
        label: attrs.type,
      });
    });
    const renderer = new Sigma(view, container.current, {
      renderEdgeLabels: false,
      // every label on a small neighbourhood; only the larger nodes' on a crowded one
      labelRenderedSizeThreshold: view.order > 300 ? 6 : 0,
    });
    renderer.on('clickNode', ({ node }) => go(node));
    renderer.refresh();
    // what bench/dashboard.ts reads: how many nodes were drawn, and how long building and drawing them took
    container.current.dataset.drawn = String(view.order);
    container.current.dataset.drawMs = (performance.now() - began).toFixed(1);
    return () => renderer.kill();
  }, [near, highlighted]);

  const names = useMemo(() => {
    const list: { id: string; name: string }[] = [];
    graph.forEachNode((id, a) => list.push({ id, name: a.name }));
    return list;
  }, [graph]);

  return (
    <section>
      <h1>Graph</h1>
      {routes.loading && <p className="loading">Loading the routes…</p>}
      {routes.error && (
        <p role="alert" className="error">
          {routes.error}
        </p>
      )}
      <form
        className="filters"
        aria-label="Choose a node"
        onSubmit={(e) => {
          e.preventDefault();
          const found = names.find((n) => n.name === pick || n.id === pick);
          if (found) go(found.id);
        }}
      >
        <label>
          Node
          <input
            list="node-names"
            value={pick}
            onChange={(e) => setPick(e.target.value)}
            placeholder="a node's name"
          />
        </label>
        <datalist id="node-names">
          {names.slice(0, 2000).map((n) => (
            <option key={n.id} value={n.name} />
          ))}
        </datalist>
        <button type="submit">Show</button>
        <button type="button" onClick={() => go(center, depth + 1)} disabled={!center}>
          Expand one hop
        </button>
        {depth > 1 && (
          <button type="button" onClick={() => go(center, depth - 1)}>
            One hop less
          </button>
        )}
      </form>
      <p data-testid="graph-summary">
        {center && graph.hasNode(center)
          ? `${near.size} nodes within ${depth} hops of ${graph.getNodeAttributes(center).name}`
          : routes.data
            ? 'No route passes through this node.'
            : ''}
        {highlighted && (
          <>
            {' '}
            · route of <Link href={`/paths/${highlighted.id}`}>{highlighted.id}</Link> in red
          </>
        )}
      </p>
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
          {[...near.keys()].slice(0, 500).map((id) => (
            <li key={id}>
              <button type="button" className="link" onClick={() => go(id)}>
                {graph.getNodeAttributes(id).name}
              </button>{' '}
              ({graph.getNodeAttributes(id).label}, {near.get(id)} hops)
            </li>
          ))}
        </ul>
      </details>
    </section>
  );
}
