// GraphiQL at GET /graphiql, from the packages in node_modules (graphiql, react, react-dom): no CDN, so it
// works offline and behind egress filters. The page is static and public; it holds no data. Every query it
// runs goes to POST /graphql with the headers typed into GraphiQL's headers editor, so with API auth on a
// caller pastes `{"Authorization": "Bearer <token>"}` there (pre-filled) and is judged like any client.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';

const require = createRequire(import.meta.url);

/** The files the page loads, by the name it asks for: nothing else under /graphiql/assets is served. */
const ASSETS: Readonly<Record<string, { pkg: string; file: string; type: string }>> = {
  'react.js': { pkg: 'react', file: 'umd/react.production.min.js', type: 'text/javascript' },
  'react-dom.js': { pkg: 'react-dom', file: 'umd/react-dom.production.min.js', type: 'text/javascript' },
  'graphiql.js': { pkg: 'graphiql', file: 'graphiql.min.js', type: 'text/javascript' },
  'graphiql.css': { pkg: 'graphiql', file: 'graphiql.min.css', type: 'text/css' },
};

/** A file of a package, found from its package.json (the packages' `exports` do not list their UMD builds). */
const packageFile = (pkg: string, file: string) =>
  path.join(path.dirname(require.resolve(`${pkg}/package.json`)), file);

/** Starts GraphiQL on the page's element, with the options the server put in `data-config`. */
const START_SCRIPT = `'use strict';
(function () {
  var element = document.getElementById('graphiql');
  var config = JSON.parse(element.getAttribute('data-config'));
  var fetcher = GraphiQL.createFetcher({ url: new URL(config.endpoint, location.href).href });
  ReactDOM.createRoot(element).render(
    React.createElement(GraphiQL, {
      fetcher: fetcher,
      defaultHeaders: config.defaultHeaders,
      shouldPersistHeaders: true,
      isHeadersEditorEnabled: true,
      defaultEditorToolsVisibility: config.authRequired ? 'headers' : false,
    }),
  );
})();
`;

const escapeAttribute = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function page(authRequired: boolean): string {
  const config = {
    endpoint: '/graphql',
    authRequired,
    // With auth on, the headers editor opens with the header every query needs; the token is the caller's.
    defaultHeaders: authRequired ? '{\n  "Authorization": "Bearer <paste your API token>"\n}' : '',
  };
  return `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>pathgate GraphiQL</title>
  <link rel="stylesheet" href="/graphiql/assets/graphiql.css">
  <style>html, body, #graphiql { height: 100%; margin: 0; }</style>
</head>
<body>
  <div id="graphiql" data-config="${escapeAttribute(JSON.stringify(config))}">Loading GraphiQL…</div>
  <script src="/graphiql/assets/react.js"></script>
  <script src="/graphiql/assets/react-dom.js"></script>
  <script src="/graphiql/assets/graphiql.js"></script>
  <script src="/graphiql/assets/start.js"></script>
</body>
</html>
`;
}

/** GET /graphiql and its assets, public (the page carries no data; /graphql judges every query). */
export function registerGraphiql(app: FastifyInstance, options: { authRequired: boolean }): void {
  const html = page(options.authRequired);
  const cache = new Map<string, Buffer>();
  app.get('/graphiql', { config: { access: 'public' } }, async (_request, reply) =>
    reply.type('text/html; charset=utf-8').header('cache-control', 'no-cache').send(html),
  );
  app.get<{ Params: { name: string } }>(
    '/graphiql/assets/:name',
    { config: { access: 'public' } },
    async (request, reply) => {
      const { name } = request.params;
      if (name === 'start.js')
        return reply
          .type('text/javascript; charset=utf-8')
          .header('cache-control', 'no-cache')
          .send(START_SCRIPT);
      const asset = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
      if (!asset) return reply.callNotFound();
      let bytes = cache.get(name);
      if (!bytes) cache.set(name, (bytes = await readFile(packageFile(asset.pkg, asset.file))));
      return reply
        .type(`${asset.type}; charset=utf-8`)
        .header('cache-control', 'public, max-age=86400')
        .send(bytes);
    },
  );
}
