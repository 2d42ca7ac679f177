// The words of a question worth looking up in the estate: names (`ledger`, `checkout-api`, `jump-1`), CVE
// and CWE ids, package names; without the words every question has (`which`, `routes`, `reach`).

/** Words that name no asset: question words, and the product's own vocabulary. */
const STOPWORDS: ReadonlySet<string> = new Set(
  (
    'the and for are was were has have had does did can could should would will with from into onto ' +
    'that this these those there their them they what which who whom whose when where why how any all ' +
    'some our your you its not but about over under than then also only just more most less least ' +
    'very much many each every other such same own out off one two get got make made show tell list ' +
    'give explain describe please me my mine we us is be been being do of to in on at by it an a or if ' +
    'path paths route routes attack attacks attacker node nodes hop hops reach reaches reached reaching ' +
    'risk risky riskiest critical close closes closed fix fixes fixed open exposed exposure estate ' +
    'find found finding findings evidence why way ways lead leads leading via through access'
  ).split(/\s+/),
);

const FINDING_ID = /\b(?:cve-\d{4}-\d{4,}|cwe-\d+|ghsa(?:-[0-9a-z]{4}){3})\b/gi;

/** At most this many terms are looked up: a pasted essay is not a longer search. */
export const MAX_TERMS = 16;

/** The distinct lookup terms of a question, lowercased, finding ids first. */
export function questionTerms(question: string): string[] {
  const text = question.toLowerCase();
  const out: string[] = [];
  const add = (term: string) => {
    if (!out.includes(term) && out.length < MAX_TERMS) out.push(term);
  };
  for (const match of text.matchAll(FINDING_ID)) add(match[0]);
  const rest = text.replace(FINDING_ID, ' ');
  for (const raw of rest.split(/[^a-z0-9._/:@-]+/)) {
    // Trailing punctuation of a sentence (`ledger?`, `jump-1.`) is not part of the name.
    const word = raw.replace(/^[._/:@-]+|[._/:@-]+$/g, '');
    if (word.length < 3 || STOPWORDS.has(word) || /^\d+$/.test(word)) continue;
    add(word);
  }
  return out;
}
