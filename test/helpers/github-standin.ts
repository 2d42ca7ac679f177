// GitHub's REST API as pathgate uses it, on loopback, recording every write and the repository it went to
// (the scale-out tests: who writes, and how often; the App tests: what a pull request shows; the tenancy
// tests: where), and serving fix pull requests (a default branch, files, a branch, a commit, a pull request). Answers in GitHub's real shapes: a
// comment names its author (`user`) and, when an App's installation token wrote it,
// `performed_via_github_app`; check runs take `output.annotations` at most 50 per request (422 beyond, as
// GitHub does) and are listed per commit; the manifest flow's code conversion answers the new App's
// credentials.
import Fastify, { type FastifyInstance } from 'fastify';

/** the App the stand-in's installation token belongs to */
export const STANDIN_APP = { id: 4242, slug: 'pathgate', name: 'pathgate' };
/** the installation token the stand-in hands out */
export const STANDIN_INSTALLATION_TOKEN = 'ghs_standin_installation_token';
/** the user a personal or fine-grained token (token mode) acts as */
export const STANDIN_TOKEN_USER = 'pathgate-bot-user';

/** GitHub's REST API as token mode uses it for comments, statuses and check runs, recording every write. */
export class GithubStandIn implements CommentStore, CheckStore {
  comments: StandInComment[] = [];
  checkRuns: StandInCheckRun[] = [];
  /** every write: method, URL, and the `owner/repo` it went to (empty for the App's token exchange) */
  writes: { method: string; url: string; slug: string; body?: unknown }[] = [];
  statuses: { sha: string; state: string; slug: string; description?: string; target_url?: string }[] = [];
  /**
   * The repositories' files (path → text, in every repository at every commit; or `owner/repo:path` → text,
   * in that repository alone), for the app's look-ups of where a resource is and for fix pull requests.
   */
  files = new Map<string, string>();
  /** the App created through the manifest flow, per one-time code */
  manifestCodes = new Map<string, Record<string, unknown>>();
  app: FastifyInstance = Fastify();
  url = '';
  nextId = 1;
  /** awaited before comments are listed (a slow GitHub) */
  beforeList?: () => Promise<void>;

  async start(): Promise<void> {
    const slugOf = (url: string) => /^\/repos\/([^/]+\/[^/?]+)/.exec(url)?.[1] ?? '';
    this.app.addHook('preHandler', async (request) => {
      if (request.method !== 'GET')
        this.writes.push({
          method: request.method,
          url: request.url,
          slug: slugOf(request.url),
          body: request.body,
        });
    });
    registerCommentRoutes(this.app, this);
    registerCheckRoutes(this.app, this);
    registerIdentityRoutes(this.app);
    registerFileRoutes(this.app, this.files);
    this.app.post('/app/installations/:id/access_tokens', async (_q, reply) =>
      reply.code(201).send({ token: STANDIN_INSTALLATION_TOKEN, expires_at: '2099-01-01T00:00:00Z' }),
    );
    this.app.get('/repos/:owner/:repo/installation', async () => ({ id: 957387 }));
    this.app.post<{ Params: { code: string } }>('/app-manifests/:code/conversions', async (q, reply) => {
      const created = this.manifestCodes.get(q.params.code);
      if (!created) return reply.code(404).send({ message: 'Not Found' });
      this.manifestCodes.delete(q.params.code); // a code converts once
      return reply.code(201).send(created);
    });
    this.app.post<{
      Params: { owner: string; repo: string; sha: string };
      Body: { state: string; description?: string; target_url?: string };
    }>('/repos/:owner/:repo/statuses/:sha', async (q, reply) => {
      if ((q.body.description?.length ?? 0) > 140)
        return reply.code(422).send({ message: 'description is too long (maximum is 140 characters)' });
      this.statuses.push({ sha: q.params.sha, slug: `${q.params.owner}/${q.params.repo}`, ...q.body });
      return reply.code(201).send({});
    });
    // Fix pull requests: the default branch, a branch, a commit and the pull request (files: registerFileRoutes).
    this.app.get('/repos/:owner/:repo', async () => ({ default_branch: 'main' }));
    this.app.get('/repos/:owner/:repo/git/ref/*', async () => ({ object: { sha: 'b'.repeat(40) } }));
    this.app.post('/repos/:owner/:repo/git/refs', async (_q, reply) => reply.code(201).send({}));
    this.app.put('/repos/:owner/:repo/contents/*', async (_q, reply) => reply.code(201).send({}));
    this.app.post<{ Params: { owner: string; repo: string } }>(
      '/repos/:owner/:repo/pulls',
      async (q, reply) =>
        reply.code(201).send({ html_url: `https://github.com/${q.params.owner}/${q.params.repo}/pull/9` }),
    );
    this.url = await this.app.listen({ host: '127.0.0.1', port: 0 });
  }

  /** The writes that went to one repository. */
  writesTo(slug: string) {
    return this.writes.filter((w) => w.slug.toLowerCase() === slug.toLowerCase());
  }
}

export interface StandInComment {
  id: number;
  body: string;
  issue: number;
  user?: { login: string; id: number; type: 'User' | 'Bot' };
  performed_via_github_app?: { id: number; slug: string; name: string } | null;
}

/** Who wrote a request, from its token: the App's bot for an installation token, else the token's user. */
export function authorOf(
  authorization: string | undefined,
): Pick<StandInComment, 'user' | 'performed_via_github_app'> {
  if (authorization?.includes(STANDIN_INSTALLATION_TOKEN))
    return {
      user: { login: `${STANDIN_APP.slug}[bot]`, id: 90001, type: 'Bot' },
      performed_via_github_app: STANDIN_APP,
    };
  return { user: { login: STANDIN_TOKEN_USER, id: 90002, type: 'User' }, performed_via_github_app: null };
}

/** Where the comment routes keep a stand-in's pull-request comments. */
export interface CommentStore {
  comments: StandInComment[];
  nextId: number;
  /** awaited before comments are listed (a slow GitHub) */
  beforeList?: () => Promise<void>;
}

/** GitHub's list, create and edit routes for issue comments, as token mode and the App use them. */
export function registerCommentRoutes(app: FastifyInstance, store: CommentStore): void {
  app.get<{ Params: { n: string }; Querystring: { per_page?: string; page?: string } }>(
    '/repos/:owner/:repo/issues/:n/comments',
    async (q) => {
      await store.beforeList?.();
      const perPage = Number(q.query.per_page ?? 30);
      const page = Number(q.query.page ?? 1);
      return store.comments
        .filter((c) => c.issue === Number(q.params.n))
        .slice((page - 1) * perPage, page * perPage)
        .map(({ id, body, user, performed_via_github_app }) => ({
          id,
          body,
          user: user ?? null,
          performed_via_github_app: performed_via_github_app ?? null,
        }));
    },
  );
  app.post<{ Params: { n: string }; Body: { body: string } }>(
    '/repos/:owner/:repo/issues/:n/comments',
    async (q, reply) => {
      const comment: StandInComment = {
        id: store.nextId++,
        body: q.body.body,
        issue: Number(q.params.n),
        ...authorOf(q.headers.authorization),
      };
      store.comments.push(comment);
      return reply.code(201).send(comment);
    },
  );
  app.patch<{ Params: { id: string }; Body: { body: string } }>(
    '/repos/:owner/:repo/issues/comments/:id',
    async (q, reply) => {
      const comment = store.comments.find((c) => c.id === Number(q.params.id));
      if (!comment) return reply.code(404).send({ message: 'Not Found' });
      // GitHub lets only the author (or a maintainer) edit; the app is neither for someone else's comment.
      const writer = authorOf(q.headers.authorization).user!.login;
      if (comment.user?.login !== writer) return reply.code(403).send({ message: 'Forbidden' });
      comment.body = q.body.body;
      return comment;
    },
  );
}

export interface StandInAnnotation {
  path: string;
  start_line: number;
  end_line: number;
  annotation_level: 'notice' | 'warning' | 'failure';
  message: string;
  title?: string;
  raw_details?: string;
}

export interface StandInCheckRun {
  id: number;
  name: string;
  head_sha: string;
  status: string;
  conclusion: string | null;
  details_url: string | null;
  external_id: string | null;
  output: { title: string | null; summary: string | null; text: string | null; annotations_count: number };
  annotations: StandInAnnotation[];
  app: typeof STANDIN_APP;
}

export interface CheckStore {
  checkRuns: StandInCheckRun[];
  nextId: number;
}

type CheckRunBody = Partial<{
  name: string;
  head_sha: string;
  status: string;
  conclusion: string;
  details_url: string;
  external_id: string;
  output: {
    title?: string;
    summary?: string;
    text?: string;
    annotations?: StandInAnnotation[];
  };
}>;

/** What GitHub refuses in a check run's body (422), or undefined. */
function checkRunProblem(body: CheckRunBody, creating: boolean): string | undefined {
  if (creating && (!body.name || !body.head_sha)) return 'name and head_sha are required';
  if (body.status && !['queued', 'in_progress', 'completed'].includes(body.status)) return 'bad status';
  if (body.status === 'completed' && !body.conclusion) return 'conclusion is required when completed';
  if (body.details_url !== undefined && !/^https?:\/\//.test(body.details_url)) return 'details_url';
  const output = body.output;
  if (!output) return undefined;
  if (!output.title || !output.summary) return 'output.title and output.summary are required';
  if (output.summary.length > 65535 || (output.text?.length ?? 0) > 65535) return 'output too long';
  const annotations = output.annotations ?? [];
  if (annotations.length > 50) return 'Only 50 annotations are allowed per request';
  for (const a of annotations)
    if (
      typeof a.path !== 'string' ||
      !a.path ||
      !Number.isInteger(a.start_line) ||
      !Number.isInteger(a.end_line) ||
      !['notice', 'warning', 'failure'].includes(a.annotation_level) ||
      typeof a.message !== 'string' ||
      a.message.length > 64 * 1024
    )
      return `bad annotation ${JSON.stringify(a)}`;
  return undefined;
}

/** GitHub's Checks API as the app uses it: create, update, list by commit, list annotations. */
export function registerCheckRoutes(app: FastifyInstance, store: CheckStore): void {
  const view = ({ annotations: _annotations, ...run }: StandInCheckRun) => run;
  const apply = (run: StandInCheckRun, body: CheckRunBody) => {
    if (body.status) run.status = body.status;
    if (body.conclusion) {
      run.conclusion = body.conclusion;
      run.status = 'completed';
    }
    if (body.details_url !== undefined) run.details_url = body.details_url;
    if (body.external_id !== undefined) run.external_id = body.external_id;
    if (body.output) {
      // Annotations add up over requests (that is how more than 50 are sent); the texts are replaced.
      run.annotations.push(...(body.output.annotations ?? []));
      run.output = {
        title: body.output.title ?? null,
        summary: body.output.summary ?? null,
        text: body.output.text ?? null,
        annotations_count: run.annotations.length,
      };
    }
  };
  app.post<{ Body: CheckRunBody }>('/repos/:owner/:repo/check-runs', async (q, reply) => {
    const problem = checkRunProblem(q.body, true);
    if (problem) return reply.code(422).send({ message: 'Validation Failed', errors: [problem] });
    const run: StandInCheckRun = {
      id: store.nextId++,
      name: q.body.name!,
      head_sha: q.body.head_sha!,
      status: 'queued',
      conclusion: null,
      details_url: null,
      external_id: null,
      output: { title: null, summary: null, text: null, annotations_count: 0 },
      annotations: [],
      app: STANDIN_APP,
    };
    apply(run, q.body);
    store.checkRuns.push(run);
    return reply.code(201).send(view(run));
  });
  app.patch<{ Params: { id: string }; Body: CheckRunBody }>(
    '/repos/:owner/:repo/check-runs/:id',
    async (q, reply) => {
      const run = store.checkRuns.find((r) => r.id === Number(q.params.id));
      if (!run) return reply.code(404).send({ message: 'Not Found' });
      const problem = checkRunProblem(q.body, false);
      if (problem) return reply.code(422).send({ message: 'Validation Failed', errors: [problem] });
      apply(run, q.body);
      return view(run);
    },
  );
  app.get<{ Params: { ref: string }; Querystring: { check_name?: string } }>(
    '/repos/:owner/:repo/commits/:ref/check-runs',
    async (q) => {
      const runs = store.checkRuns.filter(
        (r) =>
          r.head_sha === q.params.ref && (q.query.check_name === undefined || r.name === q.query.check_name),
      );
      return { total_count: runs.length, check_runs: runs.map(view) };
    },
  );
  app.get<{ Params: { id: string } }>('/repos/:owner/:repo/check-runs/:id/annotations', async (q, reply) => {
    const run = store.checkRuns.find((r) => r.id === Number(q.params.id));
    if (!run) return reply.code(404).send({ message: 'Not Found' });
    return run.annotations;
  });
}

/** `GET /user` (the token's user) and `GET /app` (the App, with its JWT). */
export function registerIdentityRoutes(app: FastifyInstance): void {
  app.get('/user', async (q) => ({ login: authorOf(q.headers.authorization).user!.login, type: 'User' }));
  app.get('/app', async () => STANDIN_APP);
}

/** A repository's tree and file contents (the same at every commit): what the app reads to locate resources. */
export function registerFileRoutes(app: FastifyInstance, files: Map<string, string>): void {
  // A key `owner/repo:path` is that repository's file; a bare `path` is in every repository.
  const pathsOf = (slug: string) =>
    [...files.keys()].flatMap((key) => {
      const colon = key.indexOf(':');
      if (colon < 0) return [key];
      return key.slice(0, colon).toLowerCase() === slug.toLowerCase() ? [key.slice(colon + 1)] : [];
    });
  app.get<{ Params: { owner: string; repo: string; sha: string } }>(
    '/repos/:owner/:repo/git/trees/:sha',
    async (q) => ({
      sha: q.params.sha,
      truncated: false,
      tree: pathsOf(`${q.params.owner}/${q.params.repo}`).map((path) => ({
        path,
        type: 'blob',
        mode: '100644',
        sha: 'f'.repeat(40),
      })),
    }),
  );
  app.get<{ Params: { owner: string; repo: string; '*': string } }>(
    '/repos/:owner/:repo/contents/*',
    async (q, reply) => {
      const path = decodeURIComponent(q.params['*']).split('?')[0];
      const file = files.get(`${q.params.owner}/${q.params.repo}:${path}`) ?? files.get(path);
      if (file === undefined) return reply.code(404).send({ message: 'Not Found' });
      return { type: 'file', sha: 'c'.repeat(40), content: Buffer.from(file).toString('base64') };
    },
  );
}
