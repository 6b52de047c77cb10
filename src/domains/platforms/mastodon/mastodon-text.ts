/** What every http(s) link counts for on an instance that does not say (Mastodon's own value). */
export const MASTODON_URL_LENGTH = 23;

/**
 * A link as Mastodon's counter finds one: `http://` or `https://` at the start or after anything
 * but an ASCII letter, digit or handle sign, then a host with a dot in it, then the characters a
 * link's path and query may hold (letters of any script, digits, URL punctuation; not emoji).
 */
const LINK =
  /(^|[^A-Za-z0-9@＠$#＃\u202A-\u202E])(https?:\/\/[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)+(?:[:/?#][\p{L}\p{M}\p{N}!*'();:=+,.$/%#[\]\-\u2013_~&|@?]*)?)/giu;

/** Trailing characters that end a sentence rather than the link (Mastodon leaves them out too). */
const TRAILING = /[.,;:!?'"’”»)\]}>]+$/u;

/** `@user@example.social`: a remote mention counts as its local part, `@user`. */
const REMOTE_MENTION = /(^|[^/\w])@(([a-z0-9_]+)@[a-z0-9.-]+[a-z0-9]+)/giu;

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/**
 * A status's length as a Mastodon instance counts it before accepting it: user-perceived
 * characters (grapheme clusters), each http(s) link counting `urlLength` whatever its real length,
 * each remote mention only its local part, and text of whitespace alone nothing.
 */
export function mastodonTextLength(text: string, urlLength = MASTODON_URL_LENGTH): number {
  if (text.trim() === '') return 0;
  const placeholder = 'x'.repeat(urlLength);
  const countable = text
    .replace(LINK, (_match, before: string, link: string) => {
      const kept = trimTrailing(link);
      return `${before}${placeholder}${link.slice(kept.length)}`;
    })
    .replace(REMOTE_MENTION, '$1@$3');
  let count = 0;
  for (const _segment of graphemes.segment(countable)) count++;
  return count;
}

/**
 * The link without the punctuation that follows it in a sentence: closing brackets are kept
 * while the link opened as many (a Wikipedia link ending in `)`).
 */
function trimTrailing(link: string): string {
  let kept = link;
  for (;;) {
    const tail = TRAILING.exec(kept)?.[0];
    if (!tail) return kept;
    const last = kept[kept.length - 1];
    if (last === ')' && balanced(kept)) return kept;
    kept = kept.slice(0, -1);
  }
}

function balanced(link: string): boolean {
  const opened = link.split('(').length - 1;
  const closed = link.split(')').length - 1;
  return opened >= closed;
}
