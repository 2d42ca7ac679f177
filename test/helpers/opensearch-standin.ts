// OpenSearch's REST API as pathgate's search uses it (src/search/opensearch-index.ts), on loopback, for the
// official client to talk to: index create (settings with a pattern tokenizer, a strict mapping), exists,
// delete; `_bulk` (NDJSON index and delete actions, per-item results, `errors` only for items that carry an
// error); `_search` with the query DSL subset used (bool must/should/filter/must_not, minimum_should_match,
// multi_match best_fields with boosts and fuzziness, multi_match phrase_prefix, terms, match_all), from,
// size, sort by _score and keyword fields, and the result window limit. Text is matched as OpenSearch
// matches it (the mapping's analyzer, Damerau edit distance, AUTO fuzziness); scores are simpler than
// BM25 (a field's boost per matched word, less for a fuzzy match), ordered as relevance orders them.
// Every request is recorded; `failNext` answers the next requests 503, as a node that is away.
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';

type Doc = Record<string, unknown>;

interface FieldMapping {
  type: string;
  analyzer?: string;
}

interface StandInIndex {
  mapping: Record<string, FieldMapping> | null;
  strict: boolean;
  analyzers: Map<string, RegExp>;
  docs: Map<string, Doc>;
  seq: number;
}

/** The standard analyzer, near enough for a dynamically mapped field (pathgate never relies on it). */
const STANDARD = /[^\p{L}\p{N}_]+/u;
const MAX_RESULT_WINDOW = 10_000;

export class OpenSearchStandIn {
  readonly indices = new Map<string, StandInIndex>();
  /** every request: method, path (without the query string), query string, body as parsed */
  readonly requests: {
    method: string;
    path: string;
    query: Record<string, string>;
    authorization?: string;
    body?: unknown;
  }[] = [];
  /** the next this many requests are answered 503 */
  failNext = 0;
  app: FastifyInstance = Fastify();
  url = '';

  async start(): Promise<string> {
    const app = this.app;
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));
    app.addHook('onRequest', async (request, reply) => {
      const [path] = request.url.split('?');
      this.requests.push({
        method: request.method,
        path,
        query: request.query as Record<string, string>,
        authorization: request.headers.authorization,
      });
      if (this.failNext > 0) {
        this.failNext--;
        return reply.code(503).send(problem(503, 'cluster_block_exception', 'stand-in: unavailable'));
      }
    });
    app.addHook('preHandler', async (request) => {
      this.requests[this.requests.length - 1].body = request.body;
    });
    app.get('/', async () => ({
      name: 'standin',
      cluster_name: 'standin',
      version: { distribution: 'opensearch', number: '2.19.0' },
      tagline: 'The OpenSearch Project: https://opensearch.org/',
    }));
    app.head<{ Params: { index: string } }>('/:index', async (request, reply) =>
      reply.code(this.indices.has(request.params.index) ? 200 : 404).send(),
    );
    app.put<{ Params: { index: string } }>('/:index', async (request, reply) =>
      this.createIndex(request.params.index, parseJson(request.body), reply),
    );
    app.delete<{ Params: { index: string } }>('/:index', async (request, reply) => {
      if (!this.indices.delete(request.params.index))
        return reply.code(404).send(notFound(request.params.index));
      return { acknowledged: true };
    });
    const bulk = async (request: FastifyRequest<{ Params: { index?: string } }>, reply: FastifyReply) =>
      reply.send(this.bulk(request.params.index, String(request.body ?? '')));
    app.post('/_bulk', bulk);
    app.put('/_bulk', bulk);
    app.post('/:index/_bulk', bulk);
    app.put('/:index/_bulk', bulk);
    const search = async (request: FastifyRequest<{ Params: { index: string } }>, reply: FastifyReply) => {
      const index = this.indices.get(request.params.index);
      if (!index) return reply.code(404).send(notFound(request.params.index));
      try {
        return reply.send(this.search(request.params.index, index, parseJson(request.body) ?? {}));
      } catch (error) {
        if (error instanceof QueryError) return reply.code(400).send(problem(400, error.type, error.message));
        throw error;
      }
    };
    app.post('/:index/_search', search);
    app.get('/:index/_search', search);
    this.url = await app.listen({ host: '127.0.0.1', port: 0 });
    return this.url;
  }

  async stop(): Promise<void> {
    await this.app.close();
  }

  /** The documents an index holds, by id. */
  docs(index: string): Map<string, Doc> {
    return this.indices.get(index)?.docs ?? new Map();
  }

  private createIndex(name: string, body: Doc | undefined, reply: FastifyReply) {
    if (this.indices.has(name))
      return reply
        .code(400)
        .send(
          problem(400, 'resource_already_exists_exception', `index [${name}/standin] already exists`, name),
        );
    const settings = (body?.settings ?? {}) as { analysis?: Record<string, Record<string, Doc>> };
    const tokenizers = new Map<string, RegExp>();
    for (const [tokenizerName, spec] of Object.entries(settings.analysis?.tokenizer ?? {})) {
      if (spec.type !== 'pattern' || typeof spec.pattern !== 'string')
        return reply
          .code(400)
          .send(problem(400, 'illegal_argument_exception', `stand-in: tokenizer type ${String(spec.type)}`));
      tokenizers.set(tokenizerName, new RegExp(spec.pattern, 'u'));
    }
    const analyzers = new Map<string, RegExp>([['standard', STANDARD]]);
    for (const [analyzerName, spec] of Object.entries(settings.analysis?.analyzer ?? {})) {
      const pattern = tokenizers.get(String(spec.tokenizer));
      const filters = (spec.filter as string[] | undefined) ?? [];
      if (spec.type !== 'custom' || !pattern || filters.some((f) => f !== 'lowercase'))
        return reply
          .code(400)
          .send(
            problem(400, 'illegal_argument_exception', `stand-in: analyzer [${analyzerName}] not supported`),
          );
      analyzers.set(analyzerName, pattern);
    }
    const mappings = body?.mappings as
      { dynamic?: string; properties?: Record<string, FieldMapping> } | undefined;
    for (const spec of Object.values(mappings?.properties ?? {}))
      if (spec.analyzer && !analyzers.has(spec.analyzer))
        return reply
          .code(400)
          .send(
            problem(
              400,
              'mapper_parsing_exception',
              `analyzer [${spec.analyzer}] has not been configured in mappings`,
            ),
          );
    this.indices.set(name, {
      mapping: mappings?.properties ?? null,
      strict: mappings?.dynamic === 'strict',
      analyzers,
      docs: new Map(),
      seq: 0,
    });
    return reply.send({ acknowledged: true, shards_acknowledged: true, index: name });
  }

  private bulk(pathIndex: string | undefined, text: string) {
    const lines = text.split('\n').filter((l) => l.trim() !== '');
    const items: Record<string, Doc>[] = [];
    let errors = false;
    for (let i = 0; i < lines.length; i++) {
      const action = JSON.parse(lines[i]) as Record<string, { _index?: string; _id?: string }>;
      const [op, meta] = Object.entries(action)[0];
      const name = meta._index ?? pathIndex ?? '';
      const id = meta._id ?? `auto-${i}`;
      if (op === 'index' || op === 'create') {
        const source = JSON.parse(lines[++i]) as Doc;
        const index = this.indices.get(name) ?? this.autoCreate(name);
        const unknown =
          index.strict && index.mapping && Object.keys(source).find((k) => !(k in index.mapping!));
        if (unknown) {
          errors = true;
          items.push({
            [op]: {
              _index: name,
              _id: id,
              status: 400,
              error: {
                type: 'strict_dynamic_mapping_exception',
                reason: `mapping set to strict, dynamic introduction of [${unknown}] within [_doc] is not allowed`,
              },
            },
          });
          continue;
        }
        const existed = index.docs.has(id);
        index.docs.set(id, source);
        items.push({
          [op]: {
            _index: name,
            _id: id,
            _version: 1,
            result: existed ? 'updated' : 'created',
            status: existed ? 200 : 201,
            _shards: { total: 1, successful: 1, failed: 0 },
            _seq_no: index.seq++,
            _primary_term: 1,
          },
        });
      } else if (op === 'delete') {
        const index = this.indices.get(name);
        const existed = index?.docs.delete(id) ?? false;
        items.push({
          delete: {
            _index: name,
            _id: id,
            result: existed ? 'deleted' : 'not_found',
            status: existed ? 200 : 404,
            _shards: { total: 1, successful: 1, failed: 0 },
          },
        });
      } else {
        errors = true;
        items.push({
          [op]: {
            _index: name,
            _id: id,
            status: 400,
            error: { type: 'illegal_argument_exception', reason: `stand-in: bulk action [${op}]` },
          },
        });
      }
    }
    return { took: 1, errors, items };
  }

  private autoCreate(name: string): StandInIndex {
    const index: StandInIndex = {
      mapping: null,
      strict: false,
      analyzers: new Map([['standard', STANDARD]]),
      docs: new Map(),
      seq: 0,
    };
    this.indices.set(name, index);
    return index;
  }

  private search(name: string, index: StandInIndex, body: Doc) {
    const from = typeof body.from === 'number' ? body.from : 0;
    const size = typeof body.size === 'number' ? body.size : 10;
    if (from + size > MAX_RESULT_WINDOW)
      throw new QueryError(
        'illegal_argument_exception',
        `Result window is too large, from + size must be less than or equal to: [${MAX_RESULT_WINDOW}] but was [${from + size}].`,
      );
    const query = (body.query as Doc | undefined) ?? { match_all: {} };
    const matched: { id: string; doc: Doc; score: number }[] = [];
    for (const [id, doc] of index.docs) {
      const score = evaluate(query, doc, index);
      if (score !== null) matched.push({ id, doc, score });
    }
    const sort = (body.sort as Record<string, { order?: string }>[] | undefined) ?? [
      { _score: { order: 'desc' } },
    ];
    const value = (hit: (typeof matched)[number], field: string): number | string =>
      field === '_score' ? hit.score : String((hit.doc[field] as string | undefined) ?? '');
    matched.sort((a, b) => {
      for (const spec of sort) {
        const [field, { order }] = Object.entries(spec)[0];
        const x = value(a, field);
        const y = value(b, field);
        if (x === y) continue;
        const ascending = x < y ? -1 : 1;
        return (order ?? (field === '_score' ? 'desc' : 'asc')) === 'desc' ? -ascending : ascending;
      }
      return 0;
    });
    const page = matched.slice(from, from + size);
    return {
      took: 1,
      timed_out: false,
      _shards: { total: 1, successful: 1, skipped: 0, failed: 0 },
      hits: {
        total: { value: matched.length, relation: 'eq' },
        max_score: matched.length ? Math.max(...matched.map((m) => m.score)) : null,
        hits: page.map((m) => ({
          _index: name,
          _id: m.id,
          _score: m.score,
          _source: m.doc,
          sort: sort.map((spec) => value(m, Object.keys(spec)[0])),
        })),
      },
    };
  }
}

class QueryError extends Error {
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

/** A document's score under a query, or null when it does not match. */
function evaluate(query: Doc, doc: Doc, index: StandInIndex): number | null {
  const [type, spec] = Object.entries(query)[0] as [string, Doc];
  switch (type) {
    case 'match_all':
      return 1;
    case 'bool':
      return evaluateBool(spec, doc, index);
    case 'terms': {
      const [field, wanted] = Object.entries(spec)[0] as [string, unknown[]];
      const values = ([] as unknown[]).concat(doc[field] ?? []);
      return values.some((v) => wanted.includes(v)) ? 1 : null;
    }
    case 'multi_match':
      return evaluateMultiMatch(spec, doc, index);
    default:
      throw new QueryError('parsing_exception', `unknown query [${type}] (stand-in subset)`);
  }
}

function evaluateBool(spec: Doc, doc: Doc, index: StandInIndex): number | null {
  const list = (v: unknown) => ([] as Doc[]).concat((v as Doc | Doc[] | undefined) ?? []);
  let score = 0;
  for (const clause of list(spec.must)) {
    const s = evaluate(clause, doc, index);
    if (s === null) return null;
    score += s;
  }
  for (const clause of list(spec.filter)) if (evaluate(clause, doc, index) === null) return null;
  for (const clause of list(spec.must_not)) if (evaluate(clause, doc, index) !== null) return null;
  const should = list(spec.should);
  const hasRequired = list(spec.must).length + list(spec.filter).length > 0;
  const minimum =
    typeof spec.minimum_should_match === 'number' ? spec.minimum_should_match : hasRequired ? 0 : 1;
  let matchedShould = 0;
  for (const clause of should) {
    const s = evaluate(clause, doc, index);
    if (s === null) continue;
    matchedShould++;
    score += s;
  }
  if (matchedShould < Math.min(minimum, should.length || minimum)) return null;
  return score;
}

function evaluateMultiMatch(spec: Doc, doc: Doc, index: StandInIndex): number | null {
  const fields = (spec.fields as string[]).map((f) => {
    const [field, boost] = f.split('^');
    return { field, boost: boost ? Number(boost) : 1 };
  });
  const type = (spec.type as string | undefined) ?? 'best_fields';
  if (type !== 'best_fields' && type !== 'phrase_prefix')
    throw new QueryError('parsing_exception', `multi_match type [${type}] (stand-in subset)`);
  let best: number | null = null;
  for (const { field, boost } of fields) {
    const mapping = index.mapping?.[field];
    const pattern = index.analyzers.get(mapping?.analyzer ?? 'standard') ?? STANDARD;
    const words = analyze(String(doc[field] ?? ''), pattern);
    const terms = analyze(String(spec.query), pattern);
    if (!terms.length) continue;
    let score: number | null = null;
    if (type === 'phrase_prefix') {
      if (phrasePrefix(words, terms)) score = boost;
    } else {
      let sum = 0;
      let matched = 0;
      for (const term of terms) {
        const budget = fuzziness(spec.fuzziness, term);
        let termScore = 0;
        for (const word of words) {
          const distance = word === term ? 0 : budget ? damerau(word, term, budget) : budget + 1;
          if (distance <= budget) termScore = Math.max(termScore, 1 / (1 + distance));
        }
        if (termScore > 0) {
          matched++;
          sum += termScore;
        }
      }
      const operatorAnd = String(spec.operator ?? 'or').toLowerCase() === 'and';
      if (operatorAnd ? matched === terms.length : matched > 0) score = boost * sum;
    }
    if (score !== null && (best === null || score > best)) best = score;
  }
  return best;
}

function analyze(text: string, pattern: RegExp): string[] {
  return text
    .toLowerCase()
    .split(pattern)
    .filter((w) => w !== '');
}

function phrasePrefix(words: string[], terms: string[]): boolean {
  for (let i = 0; i + terms.length <= words.length; i++) {
    let ok = true;
    for (let j = 0; ok && j < terms.length; j++)
      ok = j === terms.length - 1 ? words[i + j].startsWith(terms[j]) : words[i + j] === terms[j];
    if (ok) return true;
  }
  return false;
}

/** OpenSearch's fuzziness: a number of edits, or AUTO (0 up to 2 characters, 1 up to 5, then 2). */
function fuzziness(value: unknown, term: string): number {
  if (value === undefined || value === null) return 0;
  if (typeof value === 'number') return Math.min(2, value);
  if (String(value).toUpperCase() === 'AUTO') return term.length <= 2 ? 0 : term.length <= 5 ? 1 : 2;
  return Math.min(2, Number(value) || 0);
}

/** Damerau–Levenshtein (optimal string alignment), as Lucene's fuzzy query counts a transposition. */
function damerau(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [
    i,
    ...Array<number>(b.length).fill(0),
  ]);
  for (let j = 0; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.length][b.length];
}

function parseJson(body: unknown): Doc | undefined {
  if (body === undefined || body === null || body === '') return undefined;
  return (typeof body === 'string' ? JSON.parse(body) : body) as Doc;
}

function notFound(index: string) {
  return problem(404, 'index_not_found_exception', `no such index [${index}]`, index);
}

function problem(status: number, type: string, reason: string, index?: string) {
  const cause = { type, reason, ...(index && { index }) };
  return { error: { root_cause: [cause], ...cause }, status };
}
