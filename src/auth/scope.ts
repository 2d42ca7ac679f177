// What a scoped principal may see. A credential bound to applications (`apps`) sees only attack paths that
// touch a node of one of them; a node names its application in its `app` property (a string, or a list
// in `apps`). A path that touches no labelled node belongs to no application and is hidden from scoped
// principals: scoping fails closed.
import type { TenantGraph } from '../graph/model.js';
import { routeNodes, type PathRecord } from '../paths/path-store.js';
import type { Principal } from './principal.js';

export function appsOfNode(graph: TenantGraph, id: string): string[] {
  if (!graph.hasNode(id)) return [];
  const props = graph.getNodeAttribute(id, 'props');
  const out: string[] = [];
  if (typeof props.app === 'string') out.push(props.app);
  if (Array.isArray(props.apps)) for (const a of props.apps) if (typeof a === 'string') out.push(a);
  return out;
}

/** A filter over one tenant's paths for this principal (identity when it is not app-scoped). */
export function pathFilter(principal: Principal, graph: TenantGraph | undefined): (r: PathRecord) => boolean {
  const apps = principal.apps;
  if (!apps) return () => true;
  if (!graph) return () => false;
  const wanted = new Set(apps);
  const cache = new Map<string, boolean>();
  const nodeIn = (id: string) => {
    let hit = cache.get(id);
    if (hit === undefined) cache.set(id, (hit = appsOfNode(graph, id).some((a) => wanted.has(a))));
    return hit;
  };
  return (record) => routeNodes(record).some((n) => nodeIn(n.id));
}

/**
 * The applications a path belongs to: every application named by a node of its route, the same reading
 * `pathFilter` applies (a principal bound to `apps` sees the path exactly when this list meets `apps`).
 * Sorted; empty for a path that touches no labelled node. `nodeApps` may memoise `appsOfNode` over a request.
 */
export function appsOfPath(
  graph: TenantGraph | undefined,
  record: PathRecord,
  nodeApps: (id: string) => string[] = (id) => (graph ? appsOfNode(graph, id) : []),
): string[] {
  if (!graph) return [];
  const out = new Set<string>();
  for (const n of routeNodes(record)) for (const a of nodeApps(n.id)) out.add(a);
  return [...out].sort();
}

/** `appsOfNode` memoised for one request over one graph (a listing reads the same nodes many times). */
export function nodeAppsCache(graph: TenantGraph | undefined): (id: string) => string[] {
  const cache = new Map<string, string[]>();
  return (id) => {
    let apps = cache.get(id);
    if (!apps) cache.set(id, (apps = graph ? appsOfNode(graph, id) : []));
    return apps;
  };
}
