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
  private nextId = 1;

  async start(): Promise<void> {
    this.app.addHook('preHandler', async (request) => {
      if (request.method !== 'GET') this.writes.push({ method: request.method, url: request.url });
    });
    this.app.get<{ Params: { n: string } }>('/repos/:owner/:repo/issues/:n/comments', async (q) =>
      this.comments.filter((c) => c.issue === Number(q.params.n)).map(({ id, body }) => ({ id, body })),
    );
    this.app.post<{ Params: { n: string }; Body: { body: string } }>(
      '/repos/:owner/:repo/issues/:n/comments',
      async (q, reply) => {
        const comment = { id: this.nextId++, body: q.body.body, issue: Number(q.params.n) };
        this.comments.push(comment);
        return reply.code(201).send(comment);
      },
    );
    this.app.patch<{ Params: { id: string }; Body: { body: string } }>(
      '/repos/:owner/:repo/issues/comments/:id',
      async (q) => {
        const comment = this.comments.find((c) => c.id === Number(q.params.id))!;
        comment.body = q.body.body;
        return comment;
      },
    );
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
