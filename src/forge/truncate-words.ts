// Text GitHub caps (a status description at 140 characters, a check run title, an annotation's title):
// cut at a word boundary with `…`, never inside a word or a commit SHA.

/** At most `max` characters; a single word longer than the room is dropped whole rather than halved. */
export function truncateWords(text: string, max: number): string {
  if (text.length <= max) return text;
  const room = text.slice(0, max - 1);
  const cut = room.search(/\s+\S*$/);
  return `${(cut > 0 ? room.slice(0, cut) : '').replace(/[\s,;:—-]+$/, '')}…`;
}
