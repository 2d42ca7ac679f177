// Rewrites the settings table in docs/configuration.md from SETTINGS_DOC (src/config/settings.ts), the one
// source `test/config/settings.test.ts` checks it against: `npx tsx scripts/settings-table.ts`, then
// `npx prettier --write docs/configuration.md`.
import { readFileSync, writeFileSync } from 'node:fs';
import { renderSettingsTable } from '../src/config/settings.js';

const file = new URL('../docs/configuration.md', import.meta.url);
const lines = readFileSync(file, 'utf8').split('\n');
const isRow = (line: string) => line.startsWith('|');
const header = lines.findIndex((line) => /^\|\s*variable\s*\|\s*default\s*\|\s*meaning\s*\|/.test(line));
if (header < 0)
  throw new Error('docs/configuration.md: the settings table (| variable | default | meaning |) is missing');
let end = header;
while (end < lines.length && isRow(lines[end])) end++;
lines.splice(header, end - header, ...renderSettingsTable().split('\n'));
writeFileSync(file, lines.join('\n'));
