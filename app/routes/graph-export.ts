// GET /export/graph: the neighbourhood of a node (`node`), or of an attack path's route (`path`), within
// `depth` hops and `limit` nodes, in graphology's serialisation format (src/export/graphology.ts), so users
// load it into graphology's ecosystem. The walk is the GraphQL `neighbourhood` field's
// (src/neighbourhood/walk.ts), with its bounds and its scoping: a credential bound to applications walks
// only their nodes, and a node or path it may not see is answered exactly as an unknown one (404). Signed,
// spooled and sent as the other exports are (exports.ts); written to the audit log as `export.graph`.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Engine } from '../../src/engine/engine.js';
import { graphologyChunks } from '../../src/export/graphology.js';
import { scopeOf, type ExportContext } from '../../src/export/statement.js';
import { idLabel } from '../../src/graph/ids.js';
import type { FieldError } from '../../src/ingest/envelope.js';
import { ProblemError } from '../../src/http/problems.js';
import {
  DEFAULT_NEIGHBOURHOOD_NODES,
  MAX_NEIGHBOURHOOD_DEPTH,
  MAX_NEIGHBOURHOOD_NODES,
  nodeVisibility,
  walkNeighbourhood,
} from '../../src/neighbourhood/walk.js';
import { routeNodes } from '../../src/paths/path-store.js';
import { floatRange, presentFloat } from '../graphql/numbers.js';
import type { Auditor } from '../plugins/audit.js';
import { PATH_ID_PATTERN, unknownPath, visiblePath } from './visible-path.js';

export type SendExport = (
  request: FastifyRequest,
  reply: FastifyReply,
  chunks: string[],
  kind: ExportContext['kind'],
  state: ExportContext['state'],
  filename: string,
) => Promise<FastifyReply>;

interface GraphQuery {
  node?: unknown;
  path?: unknown;
  depth?: unknown;
  limit?: unknown;
}

const PATH_ID = new RegExp(PATH_ID_PATTERN);

/** The query, checked: every bad value is one error naming its parameter and value. */
function readGraphQuery(query: GraphQuery): {
  node?: string;
  path?: string;
  depth: number;
  limit: number;
} {
  const errors: FieldError[] = [];
  const text = (name: keyof GraphQuery): string | undefined => {
    const value = query[name];
    if (value === undefined) return undefined;
    if (typeof value === 'string') return value;
    errors.push({ pointer: `/query/${name}`, value: String(value), detail: 'given once' });
    return undefined;
  };
  const whole = (name: 'depth' | 'limit', fallback: number, max: number): number => {
    const value = text(name);
    if (value === undefined) return fallback;
    if (!/^[0-9]{1,6}$/.test(value) || Number(value) < 1 || Number(value) > max) {
      errors.push({ pointer: `/query/${name}`, value, detail: `a whole number from 1 to ${max}` });
      return fallback;
    }
    return Number(value);
  };
  const node = text('node');
  const path = text('path');
  const depth = whole('depth', 1, MAX_NEIGHBOURHOOD_DEPTH);
  const limit = whole('limit', DEFAULT_NEIGHBOURHOOD_NODES, MAX_NEIGHBOURHOOD_NODES);
  if (node !== undefined && idLabel(node) === undefined)
    errors.push({ pointer: '/query/node', value: node, detail: 'a node id, <Label>:<16 hex>' });
  if (path !== undefined && !PATH_ID.test(path))
    errors.push({ pointer: '/query/path', value: path, detail: 'an attack path id, ap-<16 hex>' });
  if (node !== undefined && path !== undefined)
    errors.push({ pointer: '/query/path', value: path, detail: 'node or path, not both' });
  if (node === undefined && path === undefined && !errors.length)
    errors.push({ pointer: '/query/node', value: '', detail: 'required (or path=<attack path id>)' });
  if (errors.length) {
    const [first] = errors;
    throw new ProblemError(
      'invalid-query',
      `${first.pointer.slice('/query/'.length)} ${JSON.stringify(first.value)}: ${first.detail}`,
      { errors },
    );
  }
  return { node, path, depth, limit };
}

function unknownNode(id: string): ProblemError {
  return new ProblemError('not-found', `no node ${id} in this tenant`, {
    errors: [{ pointer: '/query/node', value: id, detail: 'unknown node' }],
  });
}

export function registerGraphExport(
  app: FastifyInstance,
  deps: { engine: Engine; audit?: Auditor; now: () => number; export: SendExport },
): void {
  app.get<{ Querystring: GraphQuery }>('/export/graph', async (request, reply) => {
    const asked = readGraphQuery(request.query);
    const graph = deps.engine.tenant(request.tenant)?.graph;
    const apps = request.principal.apps;
    let seeds: string[];
    let route: string[] | undefined;
    let root: string;
    if (asked.path !== undefined) {
      root = asked.path;
      const record = visiblePath(deps.engine, request, asked.path);
      if (!record || !graph) throw unknownPath(asked.path, '/query/path');
      // The route is shown whole, as attackPath shows it to this caller; the hops around it stay within
      // the caller's applications. Nodes retracted since the path was found are left out.
      route = routeNodes(record)
        .map((n) => n.id)
        .filter((id) => graph.hasNode(id));
      seeds = route;
    } else {
      root = asked.node!;
      if (!graph || !graph.hasNode(root) || !nodeVisibility(graph, apps)(root)) throw unknownNode(root);
      seeds = [root];
    }
    const visible = nodeVisibility(graph, apps);
    const walked = walkNeighbourhood(graph, seeds, { depth: asked.depth, limit: asked.limit, visible });
    const chunks = graphologyChunks(
      graph,
      walked,
      {
        tenant: request.tenant,
        root,
        rootKind: asked.path !== undefined ? 'path' : 'node',
        ...(route && { route }),
        depth: asked.depth,
        limit: asked.limit,
        scope: scopeOf(apps),
        generatedAt: new Date(deps.now()).toISOString(),
      },
      (p) => presentFloat(p, floatRange('PathStep', 'probability')) as number,
    );
    deps.audit?.export(request, 'graph', asked.path !== undefined ? [asked.path] : [], {
      root,
      depth: asked.depth,
      nodes: walked.distance.size,
      edges: walked.edges.length,
      truncated: walked.truncated,
    });
    return deps.export(
      request,
      reply,
      chunks,
      'graph',
      'current',
      `pathgate-${request.tenant}-graph-${root.replace(':', '-')}.json`,
    );
  });
}
