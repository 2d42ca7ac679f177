// The package's root folder, found from this file whether it runs from source (app/) or compiled (build/app/).
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export function packageRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`pathgate: no package.json above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
  return dir;
}
