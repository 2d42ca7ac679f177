// The event envelope every collector emits, its JSON Schema and its validation.
import { Ajv, type ErrorObject } from 'ajv';
import { EDGE_TYPES, EVENT_KINDS, NODE_LABELS, WEIGHT_BASES } from '../graph/vocabulary.js';
import type { EdgeType, EventKind, NodeLabel, WeightBasis } from '../graph/vocabulary.js';
import { hasKnownLabel, idLabel, nodeId } from '../graph/ids.js';
import { isNodeLabel } from '../graph/vocabulary.js';

export interface EnvelopeNode {
  /** `<Label>:<16 hex>`; derived from label and name when omitted, and must equal that derivation. */
  id: string;
  label: NodeLabel;
  name: string;
  properties?: Record<string, unknown>;
}

export interface EnvelopeEdge {
  type: EdgeType;
  from: string;
  to: string;
  exploit_probability?: number;
  /** The basis of an explicit probability; `heuristic` when omitted. */
  weight_basis?: WeightBasis;
  resource_scoped?: boolean;
  properties?: Record<string, unknown>;
}

export interface EventEnvelope {
  source: string;
  kind: EventKind;
  observed_at: string;
  nodes: EnvelopeNode[];
  edges: EnvelopeEdge[];
}

/** JSON Schema of the envelope as accepted on `POST /ingest/events`. */
export const ENVELOPE_SCHEMA = {
  $id: 'urn:pathgate:schema:event-envelope',
  type: 'object',
  required: ['source', 'kind', 'observed_at', 'nodes', 'edges'],
  additionalProperties: false,
  properties: {
    source: { type: 'string', minLength: 1, maxLength: 128 },
    kind: { enum: [...EVENT_KINDS] },
    observed_at: { type: 'string', format: 'date-time' },
    nodes: {
      type: 'array',
      items: {
        type: 'object',
        required: ['label', 'name'],
        additionalProperties: false,
        properties: {
          id: { type: 'string', pattern: '^[A-Za-z_]+:[0-9a-f]{16}$' },
          label: { enum: [...NODE_LABELS] },
          name: { type: 'string', minLength: 1, maxLength: 2048 },
          properties: { type: 'object' },
        },
      },
    },
    edges: {
      type: 'array',
      items: {
        type: 'object',
        required: ['type', 'from', 'to'],
        additionalProperties: false,
        properties: {
          type: { enum: [...EDGE_TYPES] },
          // Their shape and label are checked after the schema, with a message naming the label.
          from: { type: 'string' },
          to: { type: 'string' },
          exploit_probability: { type: 'number', minimum: 0, maximum: 1 },
          weight_basis: { enum: [...WEIGHT_BASES] },
          resource_scoped: { type: 'boolean' },
          properties: { type: 'object' },
        },
      },
    },
  },
} as const;

/** One offending value: a JSON pointer into the request body and what is wrong with it. */
export interface FieldError {
  pointer: string;
  detail: string;
  value?: unknown;
}

/** Reported errors are capped so that a huge bad report yields a readable answer. */
export const MAX_REPORTED_ERRORS = 50;

/** One ajv error as a FieldError naming its JSON pointer (and the value there). */
export function describeSchemaError(error: ErrorObject, body: unknown): FieldError {
  const pointer = error.instancePath || '/';
  const value = valueAt(body, error.instancePath);
  if (error.keyword === 'enum') {
    const what = pointer.endsWith('/label')
      ? 'node label'
      : pointer.endsWith('/type')
        ? 'edge type'
        : pointer.endsWith('/kind')
          ? 'event kind'
          : 'value';
    return {
      pointer,
      value,
      detail: `unknown ${what} ${JSON.stringify(value)}; allowed: ${(error.params.allowedValues as unknown[]).join(', ')}`,
    };
  }
  if (error.keyword === 'required') {
    return {
      pointer: `${error.instancePath}/${error.params.missingProperty as string}`,
      detail: `missing required field "${error.params.missingProperty as string}"`,
    };
  }
  if (error.keyword === 'additionalProperties') {
    const extra = error.params.additionalProperty as string;
    return { pointer: `${error.instancePath}/${extra}`, detail: `unknown field "${extra}"` };
  }
  return { pointer, value, detail: `${error.message ?? 'invalid'}` };
}

/** Reads the value a JSON pointer names, for error messages. */
export function valueAt(body: unknown, pointer: string): unknown {
  let current: unknown = body;
  for (const raw of pointer.split('/').slice(1)) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

export type EnvelopeCheck =
  /** `derived`: indices of the nodes whose ids the check derived (they had none) */
  { ok: true; envelope: EventEnvelope; derived: number[] } | { ok: false; errors: FieldError[] };

/**
 * Node properties that price a hop (docs/model.md) and their ranges. A score out of range would price the
 * hop wrongly or not at all, so it is refused with the report rather than dropped: a collector that sends
 * one is broken, and a 400 naming the pointer says so while the 202 of a dropped score would not.
 */
export const SCORE_RANGES: Readonly<Record<string, { min: number; max: number; what: string }>> = {
  cvss_score: { min: 0, max: 10, what: 'a CVSS score' },
  epss: { min: 0, max: 1, what: 'an EPSS probability' },
};

const SCORE_ENTRIES = Object.entries(SCORE_RANGES);

/** Checks node `index`'s scores; called for every node, so the pointer is only built for an error. */
function checkScores(properties: unknown, index: number, errors: FieldError[]): void {
  if (properties === null || typeof properties !== 'object') return;
  for (const [key, range] of SCORE_ENTRIES) {
    if (!Object.hasOwn(properties, key)) continue;
    const value = (properties as Record<string, unknown>)[key];
    if (value === null || (typeof value === 'number' && value >= range.min && value <= range.max)) continue;
    errors.push({
      pointer: `/nodes/${index}/properties/${key}`,
      value,
      detail: `${key} must be ${range.what}, a number from ${range.min} to ${range.max}; got ${JSON.stringify(value)}`,
    });
  }
}

/** The Ajv every envelope check compiles with: all errors, strict, and date-time as the spec says it. */
function envelopeAjv(): Ajv {
  const ajv = new Ajv({ allErrors: true, strict: true });
  // date-time without pulling ajv-formats' full set: ISO 8601 with a zone, as the spec requires.
  ajv.addFormat('date-time', {
    type: 'string',
    validate: (s: string) =>
      /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(s) &&
      !Number.isNaN(Date.parse(s)),
  });
  return ajv;
}

/**
 * The checks after the schema on node `index`: its scores, and its id, which is derived when absent (the
 * node gets it; answers true) and must equal the derivation when given. Errors are pushed onto `errors`.
 */
export function checkEnvelopeNode(node: EnvelopeNode, index: number, errors: FieldError[]): boolean {
  checkScores(node.properties, index, errors);
  const derived = nodeId(node.label, node.name);
  if (node.id === undefined) {
    node.id = derived;
    return true;
  }
  if (node.id !== derived) {
    errors.push({
      pointer: `/nodes/${index}/id`,
      value: node.id,
      detail: `id ${JSON.stringify(node.id)} does not match label ${node.label} and name ${JSON.stringify(node.name)}; expected ${derived}`,
    });
  }
  return false;
}

/** The checks after the schema on edge `index`: both ends node ids of known labels, and not a loop. */
export function checkEnvelopeEdge(edge: EnvelopeEdge, index: number, errors: FieldError[]): void {
  // The common case first, without cutting labels out of ids; the errors below say what is wrong.
  if (hasKnownLabel(edge.from) && hasKnownLabel(edge.to) && edge.from !== edge.to) return;
  for (const end of ['from', 'to'] as const) {
    const id = edge[end];
    const label = idLabel(id);
    if (label === undefined) {
      errors.push({
        pointer: `/edges/${index}/${end}`,
        value: id,
        detail: `${JSON.stringify(id)} is not a node id (<Label>:<16 hex>)`,
      });
    } else if (!isNodeLabel(label)) {
      errors.push({
        pointer: `/edges/${index}/${end}`,
        value: id,
        detail: `unknown node label ${JSON.stringify(label)} in node id ${JSON.stringify(id)}`,
      });
    }
  }
  if (edge.from === edge.to) {
    errors.push({
      pointer: `/edges/${index}/to`,
      value: edge.to,
      detail: 'an edge may not loop back to its own node',
    });
  }
}

/**
 * The envelope schema's item schemas on their own, for a body checked item by item (events-by-item.ts):
 * whether one node or one edge passes. The schema puts no condition on the arrays themselves, so a body
 * passes as a whole exactly when its frame and each of its items pass.
 */
export function createEnvelopeItemChecks(): {
  node: (item: unknown) => boolean;
  edge: (item: unknown) => boolean;
} {
  const ajv = envelopeAjv();
  return {
    node: ajv.compile(ENVELOPE_SCHEMA.properties.nodes.items),
    edge: ajv.compile(ENVELOPE_SCHEMA.properties.edges.items),
  };
}

export function createEnvelopeValidator(): (body: unknown) => EnvelopeCheck {
  const validate = envelopeAjv().compile(ENVELOPE_SCHEMA);
  return (body: unknown): EnvelopeCheck => {
    if (!validate(body)) {
      const errors = (validate.errors ?? [])
        .slice(0, MAX_REPORTED_ERRORS)
        .map((e) => describeSchemaError(e, body));
      return { ok: false, errors };
    }
    const envelope = body as unknown as EventEnvelope;
    const errors: FieldError[] = [];
    const derivedAt: number[] = [];
    const nodes = envelope.nodes;
    for (let i = 0; i < nodes.length && errors.length < MAX_REPORTED_ERRORS; i++)
      if (checkEnvelopeNode(nodes[i], i, errors)) derivedAt.push(i);
    const edges = envelope.edges;
    for (let i = 0; i < edges.length && errors.length < MAX_REPORTED_ERRORS; i++)
      checkEnvelopeEdge(edges[i], i, errors);
    return errors.length ? { ok: false, errors } : { ok: true, envelope, derived: derivedAt };
  };
}
