// Every value the app writes into GitHub Markdown (pull-request comments, the summary, Check Run text and
// annotations, Mermaid labels) goes through this module: node names, fixes and reasons come from ingested
// reports, so a name could otherwise close a code span, open an HTML comment that hides the rest of the
// text, forge the app's hidden marker, @mention a team or draw a link. One module, so no writer forgets.
import { truncateWords } from '../../src/forge/truncate-words.js';

export { truncateWords };

/** Newlines and control characters become spaces: a value never starts a new Markdown block. */
export function oneLine(value: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is replaced
  return value.replace(/[\u0000-\u001f\u007f\u0085\u2028\u2029]/g, ' ');
}

/**
 * Plain text in Markdown: every ASCII punctuation mark is backslash-escaped (CommonMark renders each
 * literally, so no emphasis, link, image, HTML, comment, table cell or heading), and an `@` is followed by
 * a zero-width joiner so GitHub links no user or team (its mention filter runs on the rendered text).
 */
export function mdText(value: string): string {
  return oneLine(value)
    .replace(/[\\!"#$%&'()*+,\-./:;<=>?@[\]^_`{|}~]/g, '\\$&')
    .replace(/@/g, '@\u200d');
}

/**
 * A code span: fenced by more backticks than the longest run inside it, so nothing in the value ends it;
 * padded when the value starts or ends with a backtick. Inside, Markdown, HTML and mentions are inert. In a
 * table cell (`inTable`), pipes are escaped as GFM asks even inside code.
 */
export function mdCode(value: string, options: { inTable?: boolean } = {}): string {
  let text = oneLine(value);
  if (options.inTable) text = text.replace(/\|/g, '\\|');
  if (text.trim() === '') return mdText(value) || '(empty)';
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  const pad = text.startsWith('`') || text.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${text}${pad}${fence}`;
}

/**
 * Text inside a Mermaid label (`"…"`): everything but letters, digits and a few plain marks as Mermaid's
 * numeric entities (`#35;`), so a label can close neither its quotes, its node, nor the ```mermaid fence.
 */
export function mermaidLabel(value: string): string {
  return oneLine(value).replace(/[^\p{L}\p{N} ._:/,+=()_-]/gu, (c) => `#${c.codePointAt(0)};`);
}

/** Plain text for GitHub's Check Run annotations and titles (rendered as text, not Markdown): one line. */
export function plainLine(value: string, max = 255): string {
  return truncateWords(oneLine(value).replace(/\s+/g, ' ').trim(), max);
}
