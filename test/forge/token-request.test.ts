// Token mode's REST calls against a loopback stand-in: path parameters substituted and encoded (a file
// path keeps its slashes), the rest as the query or the JSON body, the token as a bearer; a secondary rate
// limit waited out once as GitHub asks (retry-after); an error carries the status, never the token.
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokenRequest } from '../../src/forge/token-request.js';

const TOKEN = 'github_pat_standin_0123456789abcdefghij';
const app = Fastify();
const seen: { method: string; url: string; body: unknown; auth?: string }[] = [];
let limited = 0;
let url = '';
beforeAll(async () => {
  app.addHook('preHandler', async (q) => {
    seen.push({ method: q.method, url: q.url, body: q.body ?? null, auth: q.headers.authorization });
  });
  app.get('/api/v3/repos/:owner/:repo/contents/*', async () => ({ type: 'file', sha: 'c1', content: '' }));
  app.post('/api/v3/repos/:owner/:repo/issues/:n/comments', async (_q, reply) => {
    if (limited-- > 0)
      return reply.code(403).header('retry-after', '0').send({ message: 'secondary rate limit' });
    return reply.code(201).send({ id: 1 });
  });
  app.get('/api/v3/repos/:owner/:repo', async (_q, reply) => reply.code(404).send({ message: 'Not Found' }));
  url = await app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(() => app.close());

describe('tokenRequest', () => {
  const request = () => tokenRequest({ token: TOKEN, apiUrl: `${url}/api/v3/` });

  it('substitutes and encodes path parameters, sends the rest as the query or the body', async () => {
    await request()('GET /repos/{owner}/{repo}/contents/{path}', {
      owner: 'acme',
      repo: 'shop',
      path: 'deploy/my app.yaml',
      ref: 'main',
    });
    expect(seen.at(-1)).toMatchObject({
      method: 'GET',
      url: '/api/v3/repos/acme/shop/contents/deploy/my%20app.yaml?ref=main',
      auth: `Bearer ${TOKEN}`,
    });
    await request()('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', {
      owner: 'acme',
      repo: 'shop',
      issue_number: 7,
      body: 'hello',
    });
    expect(seen.at(-1)).toMatchObject({
      method: 'POST',
      url: '/api/v3/repos/acme/shop/issues/7/comments',
      body: { body: 'hello' },
    });
  });

  it('waits out a secondary rate limit once', async () => {
    limited = 1;
    const before = seen.length;
    const { data } = await request()('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', {
      owner: 'acme',
      repo: 'shop',
      issue_number: 7,
      body: 'again',
    });
    expect(data).toEqual({ id: 1 });
    expect(seen.length - before).toBe(2);
  });

  it('throws with the status and GitHub’s message, never the token', async () => {
    const error = await request()('GET /repos/{owner}/{repo}', { owner: 'acme', repo: 'gone' }).catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ status: 404, message: 'GET /repos/acme/gone: 404 Not Found' });
    expect(String((error as Error).message)).not.toContain(TOKEN);
  });
});
