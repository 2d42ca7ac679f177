// The graphology oracle (test/helpers/graphology-oracle/) is the writer of commit 8f355e3, frozen: the
// differential test of the graph store means something only while the oracle keeps that behaviour. Its
// files' code, imports aside, is pinned here by digest: a change to it fails this test. Only an import may
// move (a shared module renamed); then check that nothing else changed and record the new digest.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';

const FROZEN: Record<string, string> = {
  'model.ts': 'c672af9e6f093fbab7f44ae61cee4bdc7d62fe14f17dfacc5398d70e52db435c',
  'writer.ts': '8738e29bfa568a6cafc1d77f1ee9b2eacac24361039781f57b2057e5933c48ea',
  'image-identity.ts': '17210296e39cb70a78d55345fc9f409e48e7f36812e75372bbe5b1121f079020',
  'truth-expiry.ts': '1c09065998c86b387e79857d1eae60ccded7d5cbc2bb60a9c2fd1358716d18ae',
  'state-lines.ts': '89b2720335d71a584c00c3fcefd0095cf7bb7fa9fdc8a8b41f9d1ef989b57860',
};

/** A file without its import statements: what behaves. */
function code(file: string): string {
  const text = readFileSync(new URL(`../helpers/graphology-oracle/${file}`, import.meta.url), 'utf8');
  return text.replace(/^import[\s\S]*?from '[^']+';\n/gm, '');
}

it('the graphology oracle is unchanged since it was frozen (imports aside)', () => {
  const digests = Object.fromEntries(
    Object.keys(FROZEN).map((file) => [file, createHash('sha256').update(code(file)).digest('hex')]),
  );
  expect(digests).toEqual(FROZEN);
});
