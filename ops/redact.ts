// What an operator's error line may echo of the command line: never a value that is, or may be, a secret. A token
// pasted into --dataset, a key given as an extra word, an app secret in --org: the line names the option, and the
// value is replaced by its length, so a terminal's scroll-back or a CI log never holds it.

/** Options whose value is a secret whatever it looks like. */
const SECRET_OPTION = /token|secret|password/;

/** Prefixes of the secrets operators handle: the platform's access tokens, our API keys and signing secrets. */
const SECRET_PREFIX = /^(EAA|csk_|whsec_)/;

/** A long run of letters and digits, both present: a token, a key or a hex app secret, not a word, a number or a UUID. */
const SECRET_RUN = /[A-Za-z0-9]{20,}/g;
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

/** The parts of a word that may be a secret (empty when none does). */
export function secretParts(word: string): string[] {
  if (SECRET_PREFIX.test(word) && word.length >= 12) return [word];
  return [...word.replace(UUID, ' ').matchAll(SECRET_RUN)].map((m) => m[0]).filter((run) => /\d/.test(run) && /[A-Za-z]/.test(run));
}

/** Every string of the command line that an error must not echo: secret options' values, and secret-shaped parts of any word. */
export function secretsOf(argv: string[]): string[] {
  const found = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const [name, inline] = argv[i].startsWith('--') ? argv[i].slice(2).split(/=(.*)/s, 2) : [null, undefined];
    const value = inline ?? (name !== null && i + 1 < argv.length && !argv[i + 1].startsWith('--') ? argv[i + 1] : undefined);
    // A short value cannot be cut out of a message without cutting words (tests' tokens are 'P').
    if (name !== null && SECRET_OPTION.test(name) && value !== undefined && value.trim().length >= 6) found.add(value).add(value.trim());
    for (const part of secretParts(argv[i])) found.add(part);
  }
  // Longest first: a secret that holds another is cut out whole.
  return [...found].sort((a, b) => b.length - a.length);
}

/** The text with every one of the secrets replaced by a mention of its length (in its JSON spelling too, for details). */
export function redact(text: string, secrets: string[]): string {
  let out = text;
  for (const secret of secrets) {
    const shown = `[${[...secret].length} characters, not shown: it may be a secret]`;
    for (const spelling of new Set([secret, JSON.stringify(secret).slice(1, -1)])) out = out.split(spelling).join(shown);
  }
  return out;
}
