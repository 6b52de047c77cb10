/** Mastodon's own value, for an instance that does not say. */
export const MASTODON_URL_LENGTH = 23;

/** Links as Mastodon's counter finds them: a host with a dot; path characters of any script. */
const LINK =
  /(^|[^A-Za-z0-9@＠$#＃\u202A-\u202E])(https?:\/\/[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)+(?:[:/?#][\p{L}\p{M}\p{N}!*'();:=+,.$/%#[\]\-\u2013_~&|@?]*)?)/giu;

const TRAILING = /[.,;:!?'"’”»)\]}>]+$/u;

/** A remote mention counts as its local part, `@user`. */
const REMOTE_MENTION = /(^|[^/\w])@(([a-z0-9_]+)@[a-z0-9.-]+[a-z0-9]+)/giu;

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** As an instance counts it: graphemes, each link `urlLength`, whitespace-only text nothing. */
export function mastodonTextLength(text: string, urlLength = MASTODON_URL_LENGTH): number {
  if (text.trim() === '') return 0;
  const placeholder = 'z'.repeat(urlLength);
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

/** Closing brackets stay while the link opened as many (a Wikipedia link ending in `)`). */
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
