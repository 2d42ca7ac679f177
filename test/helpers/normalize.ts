// Runs one ingest source's normalizer on a report and indexes what it yields, for assertions by name.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ProblemError } from '../../src/http/problems.js';
import type { FieldError } from '../../src/ingest/envelope.js';
import type { EnvelopeNode } from '../../src/ingest/envelope.js';
import type { IngestSource, NormalizeOutput } from '../../src/ingest/sources/source.js';

export const REAL = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../shared/fixtures/real',
);

export const readReal = (relative: string): Record<string, unknown> =>
  JSON.parse(readFileSync(path.join(REAL, relative), 'utf8'));

export interface Normalized extends NormalizeOutput {
  nodes: EnvelopeNode[];
  /** the node of this label and name; throws when absent */
  node(label: string, name: string): EnvelopeNode;
  names(label: string): string[];
  /** edges as `TYPE from-name -> to-name` */
  edges: string[];
  edgeProps(type: string, from: string, to: string): Record<string, unknown> | undefined;
}

export function normalize(
  source: IngestSource,
  body: unknown,
  query: Record<string, string> = {},
): Normalized {
  const output = source.normalize({ body, query, receivedAt: '2026-11-22T10:00:00.000Z' });
  const nodes = output.envelopes.flatMap((e) => e.nodes);
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const allEdges = output.envelopes.flatMap((e) => e.edges);
  const name = (id: string) => byId.get(id)?.name ?? id;
  return {
    ...output,
    nodes,
    node(label, nodeName) {
      const found = nodes.find((n) => n.label === label && n.name === nodeName);
      if (!found)
        throw new Error(`no ${label} ${nodeName} in ${nodes.map((n) => `${n.label} ${n.name}`).join(', ')}`);
      return found;
    },
    names: (label) =>
      nodes
        .filter((n) => n.label === label)
        .map((n) => n.name)
        .sort(),
    edges: allEdges.map((e) => `${e.type} ${name(e.from)} -> ${name(e.to)}`).sort(),
    edgeProps: (type, from, to) =>
      allEdges.find((e) => e.type === type && name(e.from) === from && name(e.to) === to)?.properties,
  };
}

/** The field errors of the 400 a normalizer throws; fails when it does not throw one. */
export function rejection(
  source: IngestSource,
  body: unknown,
  query: Record<string, string> = {},
): FieldError[] {
  try {
    source.normalize({ body, query, receivedAt: '2026-11-22T10:00:00.000Z' });
  } catch (error) {
    if (!(error instanceof ProblemError)) throw error;
    expectStatus(error.problem.status);
    return (error.problem.errors as FieldError[] | undefined) ?? [];
  }
  throw new Error('the report was accepted');
}

function expectStatus(status: number): void {
  if (status !== 400) throw new Error(`expected a 400 problem, got ${status}`);
}
