// Builds the dashboard (dashboard/src) into build/dashboard with esbuild: the entry script (app.js) and
// the chunks of the pages it loads lazily (chunks/), one stylesheet, the page. Run by `npm run build:dashboard`, which `prepare` runs at install; never on start.
import { build } from 'esbuild';
import { copyFile, mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const out = path.join(here, '..', 'build', 'dashboard');
await rm(out, { recursive: true, force: true });
await mkdir(out, { recursive: true });
await build({
  entryPoints: [path.join(here, 'src', 'main.tsx')],
  outdir: out,
  entryNames: 'app',
  chunkNames: 'chunks/[name]-[hash]',
  splitting: true,
  bundle: true,
  minify: true,
  sourcemap: true,
  format: 'esm',
  target: ['chrome110', 'firefox110', 'safari16'],
  define: { 'process.env.NODE_ENV': '"production"' },
  logLevel: 'warning',
});
await copyFile(path.join(here, 'index.html'), path.join(out, 'index.html'));
await copyFile(path.join(here, 'src', 'styles.css'), path.join(out, 'styles.css'));
