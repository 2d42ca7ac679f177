// Validation verdicts on the API listener: POST /validations (admin; one verdict), POST
// /validations/import (admin; a red-team or breach-and-attack-simulation report, matched to paths by
// start and target names and checked hop by hop), GET /validations (the verdicts this caller may see, and
// `metrics`: precision and recall over the tested subset, deliberately not scoped: spec, API auth item 8).
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { pathFilter } from '../../src/auth/scope.js';
import type { Engine } from '../../src/engine/engine.js';
import {
  OUTCOMES,
  validationMetrics,
  type Outcome,
  type Prediction,
  type Verdict,
  type VerdictLedger,
} from '../../src/governance/validations.js';
import { ProblemError } from '../../src/http/problems.js';
import { reportSchema } from '../../src/ingest/sources/report-schema.js';
import { routeNodes, routeSteps, type PathRecord } from '../../src/paths/path-store.js';
import { governed, PATH_ID_PATTERN, unknownPath, visiblePath } from './visible-path.js';

interface NewVerdict {
  pathId?: string;
  outcome: Outcome;
  source: string;
  evidence?: string;
  route?: string[] | string;
  /** whether the defenders detected the attempt (the calibration's detection axis) */
  detected?: boolean;
}

/** A red-team / BAS report (docs/governance.md): who ran it, and one result per route tried. */
export interface ValidationImport {
  source: string;
  tool?: string;
  executedAt?: string;
  results: {
    pathId?: string;
    start?: string;
    target?: string;
    outcome: Outcome;
    evidence?: string;
    detected?: boolean;
    /** node names along the route the tester took, start first */
    hops?: string[];
  }[];
}

const NAME = { type: 'string', minLength: 1, maxLength: 500 } as const;

export function predictionOf(record: PathRecord): Prediction {
  const steps = routeSteps(record);
  return {
    score: record.score,
    priority: record.priority,
    directAccess: record.directAccess,
    hops: steps.length,
    weightBases: [...new Set(steps.map((s) => s.weightBasis))].sort(),
  };
}

/** A route given as a list of node names, or as text `a -> b -> c` (also `→`). */
function routeOf(route: string[] | string | undefined): string[] | null {
  if (route === undefined) return null;
  const names = typeof route === 'string' ? route.split(/\s*(?:->|→|>)\s*/) : route;
  const clean = names.map((n) => n.trim()).filter(Boolean);
  return clean.length ? clean : null;
}

export function registerValidationRoutes(
  app: FastifyInstance,
  deps: { engine: Engine; verdicts: VerdictLedger; now: () => number },
): void {
  const { engine, verdicts } = deps;
  const checkOne = reportSchema<NewVerdict>('validation', {
    type: 'object',
    required: ['outcome', 'source'],
    additionalProperties: false,
    properties: {
      pathId: { type: 'string', pattern: PATH_ID_PATTERN },
      outcome: { enum: [...OUTCOMES] },
      source: { type: 'string', minLength: 1, maxLength: 200, pattern: '\\S' },
      evidence: { type: 'string', maxLength: 10_000 },
      detected: { type: 'boolean' },
      route: {
        anyOf: [
          { type: 'string', minLength: 1, maxLength: 5_000 },
          { type: 'array', minItems: 1, maxItems: 100, items: NAME },
        ],
      },
    },
  });
  const checkImport = reportSchema<ValidationImport>('validation import', {
    type: 'object',
    required: ['source', 'results'],
    additionalProperties: true,
    properties: {
      source: { type: 'string', minLength: 1, maxLength: 200, pattern: '\\S' },
      tool: { type: 'string', maxLength: 200 },
      executedAt: { type: 'string', maxLength: 64 },
      results: {
        type: 'array',
        minItems: 1,
        maxItems: 10_000,
        items: {
          type: 'object',
          required: ['outcome'],
          additionalProperties: true,
          anyOf: [{ required: ['pathId'] }, { required: ['start', 'target'] }, { required: ['hops'] }],
          properties: {
            pathId: { type: 'string', pattern: PATH_ID_PATTERN },
            start: NAME,
            target: NAME,
            outcome: { enum: [...OUTCOMES] },
            evidence: { type: 'string', maxLength: 10_000 },
            detected: { type: 'boolean' },
            hops: { type: 'array', minItems: 1, maxItems: 100, items: NAME },
          },
        },
      },
    },
  });

  const stamp = (request: FastifyRequest) => ({
    recordedAt: new Date(deps.now()).toISOString(),
    recordedBy: request.principal.subject,
  });

  app.post('/validations', { config: { access: 'write' } }, async (request, reply) => {
    const body = checkOne(request.body);
    const route = routeOf(body.route);
    if (body.outcome === 'missed') {
      if (body.pathId)
        throw new ProblemError(
          'invalid-payload',
          'a missed route is one the service did not report: give route, not pathId',
          {
            errors: [{ pointer: '/pathId', value: body.pathId, detail: 'not allowed with outcome missed' }],
          },
        );
      if (!route)
        throw new ProblemError(
          'invalid-payload',
          'outcome missed needs route: the node names of the route that worked',
          {
            errors: [{ pointer: '/route', detail: 'missing required field "route" for outcome missed' }],
          },
        );
      if (request.principal.apps)
        throw new ProblemError(
          'forbidden',
          'a missed route names no path within your applications; an unscoped admin records it',
        );
      const [made] = await governed(
        verdicts.add(request.tenant, [
          {
            pathId: null,
            outcome: 'missed',
            source: body.source.trim(),
            evidence: body.evidence ?? null,
            route,
            predicted: null,
            ...stamp(request),
          },
        ]),
      );
      return reply.code(201).send(made);
    }
    if (!body.pathId)
      throw new ProblemError('invalid-payload', `outcome ${body.outcome} is about a path: give pathId`, {
        errors: [
          { pointer: '/pathId', detail: `missing required field "pathId" for outcome ${body.outcome}` },
        ],
      });
    const record = visiblePath(engine, request, body.pathId);
    if (!record) throw unknownPath(body.pathId);
    const [made] = await governed(
      verdicts.add(request.tenant, [
        {
          pathId: record.id,
          outcome: body.outcome,
          source: body.source.trim(),
          evidence: body.evidence ?? null,
          route,
          predicted: predictionOf(record),
          ...(body.detected !== undefined && { detected: body.detected }),
          ...stamp(request),
        },
      ]),
    );
    return reply.code(201).send(made);
  });

  app.post('/validations/import', { config: { access: 'write' } }, async (request, reply) => {
    const report = checkImport(request.body);
    const tenant = engine.tenant(request.tenant);
    const visible = pathFilter(request.principal, tenant?.graph);
    const scoped = request.principal.apps !== undefined;
    // Paths by (start name, target name), lower-cased: a tester names assets, not path ids.
    const byEnds = new Map<string, PathRecord>();
    for (const record of tenant?.paths.all() ?? []) {
      if (!visible(record)) continue;
      const nodes = routeNodes(record);
      const key = `${nodes[0].name.toLowerCase()}>${nodes.at(-1)!.name.toLowerCase()}`;
      const held = byEnds.get(key);
      // An open path wins over a resolved one of the same ends.
      if (!held || (held.state !== 'open' && record.state === 'open')) byEnds.set(key, record);
    }
    const importId = `vi-${randomBytes(8).toString('hex')}`;
    const when = stamp(request);
    const source = report.source.trim();
    const made: Omit<Verdict, 'id'>[] = [];
    const unmatched: { index: number; pointer: string; detail: string }[] = [];
    report.results.forEach((result, index) => {
      const hops = result.hops?.map((h) => h.trim()).filter(Boolean);
      const start = result.start ?? hops?.[0];
      const target = result.target ?? hops?.at(-1);
      const record = result.pathId
        ? (() => {
            const r = tenant?.paths.get(result.pathId);
            return r && visible(r) ? r : undefined;
          })()
        : start && target
          ? byEnds.get(`${start.toLowerCase()}>${target.toLowerCase()}`)
          : undefined;
      const route = hops ?? (start && target ? [start, target] : null);
      const base = {
        source,
        evidence: result.evidence ?? null,
        importId,
        ...(result.detected !== undefined && { detected: result.detected }),
        ...when,
      };
      if (record && result.outcome !== 'missed') {
        const names = routeNodes(record).map((n) => n.name.toLowerCase());
        made.push({
          ...base,
          pathId: record.id,
          outcome: result.outcome,
          route,
          predicted: predictionOf(record),
          ...(hops && {
            hopsMatched: hops.length === names.length && hops.every((h, i) => h.toLowerCase() === names[i]),
          }),
        });
        return;
      }
      if (result.pathId && !record) {
        unmatched.push({
          index,
          pointer: `/results/${index}/pathId`,
          detail: `no attack path ${result.pathId} in this tenant`,
        });
        return;
      }
      // The route worked (or the tester says it was missed) and the service reports no path for it: a miss.
      if (result.outcome === 'refuted') {
        unmatched.push({
          index,
          pointer: `/results/${index}`,
          detail: `refuted, but the service reports no path ${start} → ${target}: nothing to refute`,
        });
        return;
      }
      if (scoped) {
        unmatched.push({
          index,
          pointer: `/results/${index}`,
          detail: `no path ${start} → ${target} within your applications`,
        });
        return;
      }
      made.push({ ...base, pathId: null, outcome: 'missed', route, predicted: null });
    });
    const stored = made.length ? await governed(verdicts.add(request.tenant, made)) : [];
    return reply.code(stored.length ? 201 : 200).send({
      importId,
      source,
      recorded: stored.length,
      verdicts: stored,
      unmatched,
      metrics: validationMetrics(verdicts.list(request.tenant)),
    });
  });

  app.get('/validations', async (request) => {
    await governed(verdicts.refresh(request.tenant));
    const all = verdicts.list(request.tenant);
    const scoped = request.principal.apps !== undefined;
    const shown = scoped
      ? all.filter((v) => v.pathId !== null && visiblePath(engine, request, v.pathId) !== undefined)
      : all;
    return { verdicts: shown, metrics: validationMetrics(all) };
  });
}
