// GitHub's REST API as token mode uses it for pull-request comments and commit statuses, on loopback,
// recording every write (the scale-out tests: who writes, and how often).
import Fastify, { type FastifyInstance } from 'fastify';

/** GitHub's REST API as token mode uses it for comments and statuses, recording every write. */
export class GithubStandIn {
  comments: { id: number; body: string; issue: number }[] = [];
  writes: { method: string; url: string }[] = [];
  statuses: { sha: string; state: string }[] = [];
  app: FastifyInstance = Fastify();
  url = '';
  nextId = 1;

  async start(): Promise<void> {
    this.app.addHook('preHandler', async (request) => {
      if (request.method !== 'GET') this.writes.push({ method: request.method, url: request.url });
    });
    registerCommentRoutes(this.app, this);
    this.app.post<{ Params: { sha: string }; Body: { state: string } }>(
      '/repos/:owner/:repo/statuses/:sha',
      async (q, reply) => {
        this.statuses.push({ sha: q.params.sha, state: q.body.state });
        return reply.code(201).send({});
      },
    );
    this.url = await this.app.listen({ host: '127.0.0.1', port: 0 });
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
