// GitHub's REST API as token mode and the App use it for pull-request comments, commit statuses and fix
// pull requests (the App's installation token, a repository's default branch and files, a branch, a commit
// and a pull request), on loopback, recording every write and the repository it went to (the scale-out
// tests: who writes, and how often; the tenancy tests: where).
import Fastify, { type FastifyInstance } from 'fastify';

/** GitHub's REST API as token mode and the App use it, recording every write. */
export class GithubStandIn {
  comments: { id: number; body: string; issue: number }[] = [];
  /** every write: method, URL, and the `owner/repo` it went to (empty for the App's token exchange) */
  writes: { method: string; url: string; slug: string; body?: unknown }[] = [];
  statuses: { sha: string; state: string; slug: string }[] = [];
  /** the files `GET /repos/{owner}/{repo}/contents/{path}` answers with, by `owner/repo:path` */
  files = new Map<string, string>();
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
    this.app.post<{ Params: { owner: string; repo: string; sha: string }; Body: { state: string } }>(
      '/repos/:owner/:repo/statuses/:sha',
      async (q, reply) => {
        this.statuses.push({
          sha: q.params.sha,
          state: q.body.state,
          slug: `${q.params.owner}/${q.params.repo}`,
        });
        return reply.code(201).send({});
      },
    );
    // The App: an installation per repository, and its tokens.
    this.app.get('/repos/:owner/:repo/installation', async () => ({ id: 4711 }));
    this.app.post('/app/installations/:id/access_tokens', async (_q, reply) =>
      reply.code(201).send({ token: 'ghs_standin_installation_token', expires_at: '2099-01-01T00:00:00Z' }),
    );
    // Fix pull requests: the default branch, files, a branch, a commit and the pull request.
    this.app.get('/repos/:owner/:repo', async () => ({ default_branch: 'main' }));
    this.app.get('/repos/:owner/:repo/git/ref/*', async () => ({ object: { sha: 'b'.repeat(40) } }));
    this.app.get<{ Params: { owner: string; repo: string; '*': string } }>(
      '/repos/:owner/:repo/contents/*',
      async (q, reply) => {
        const path = decodeURIComponent(q.params['*']).split('?')[0];
        const file = this.files.get(`${q.params.owner}/${q.params.repo}:${path}`);
        if (file === undefined) return reply.code(404).send({ message: 'Not Found' });
        return { type: 'file', sha: 'c'.repeat(40), content: Buffer.from(file).toString('base64') };
      },
    );
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

/** Where the comment routes keep a stand-in's pull-request comments. */
export interface CommentStore {
  comments: { id: number; body: string; issue: number }[];
  nextId: number;
  /** awaited before comments are listed (a slow GitHub) */
  beforeList?: () => Promise<void>;
}

/** GitHub's list, create and edit routes for issue comments, as token mode and the App use them. */
export function registerCommentRoutes(app: FastifyInstance, store: CommentStore): void {
  app.get<{ Params: { n: string } }>('/repos/:owner/:repo/issues/:n/comments', async (q) => {
    await store.beforeList?.();
    return store.comments.filter((c) => c.issue === Number(q.params.n)).map(({ id, body }) => ({ id, body }));
  });
  app.post<{ Params: { n: string }; Body: { body: string } }>(
    '/repos/:owner/:repo/issues/:n/comments',
    async (q, reply) => {
      const comment = { id: store.nextId++, body: q.body.body, issue: Number(q.params.n) };
      store.comments.push(comment);
      return reply.code(201).send(comment);
    },
  );
  app.patch<{ Params: { id: string }; Body: { body: string } }>(
    '/repos/:owner/:repo/issues/comments/:id',
    async (q) => {
      const comment = store.comments.find((c) => c.id === Number(q.params.id))!;
      comment.body = q.body.body;
      return comment;
    },
  );
}
