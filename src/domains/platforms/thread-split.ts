const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** How good a place to cut is: a paragraph break, a sentence end, any other space. */
const PARAGRAPH = 2;
const SENTENCE = 1;
const SPACE = 0;

const SENTENCE_END = /[.!?…。！？]["'’”»)\]]{0,3}$/u;
const SENTENCE_END_MAX = 4;

interface Cut {
  end: number;
  next: number;
  rank: number;
}

/**
 * Cuts at the last paragraph break, else sentence end, else space whose part fits, never inside a
 * word, a link or a grapheme; null for a word too long alone or more than `maxParts` parts.
 */
export function splitText(
  text: string,
  fits: (part: string, index: number) => boolean,
  maxParts: number,
): string[] | null {
  const parts: string[] = [];
  let cuts: Cut[] | null = null;
  let start = 0;
  while (!fits(text.slice(start), parts.length)) {
    if (parts.length + 1 >= maxParts) return null;
    const index = parts.length;
    cuts ??= cutsOf(text);
    const cut = lastFittingCut(text, start, cuts, (part) => fits(part, index));
    if (!cut) return null;
    parts.push(text.slice(start, cut.end));
    start = cut.next;
  }
  parts.push(text.slice(start));
  return parts;
}

function lastFittingCut(
  text: string,
  start: number,
  all: readonly Cut[],
  fits: (part: string) => boolean,
): Cut | null {
  const cuts = all.filter((cut) => cut.end > start);
  // A longer prefix never measures less: the last cut that fits is found by galloping, then halving,
  // so a long text is measured only near the part's end.
  let fitting = -1;
  let probe = 0;
  for (let step = 1; probe < cuts.length && fits(text.slice(start, cuts[probe].end)); step *= 2) {
    fitting = probe;
    probe += step;
  }
  let low = fitting + 1;
  let high = Math.min(probe, cuts.length) - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if (fits(text.slice(start, cuts[middle].end))) {
      fitting = middle;
      low = middle + 1;
    } else high = middle - 1;
  }
  if (fitting < 0) return null;
  for (const rank of [PARAGRAPH, SENTENCE, SPACE])
    for (let i = fitting; i >= 0; i--) if (cuts[i].rank >= rank) return cuts[i];
  return null;
}

/** Every run of whitespace between graphemes, with text before and after it. */
function cutsOf(text: string): Cut[] {
  const bounds = new Set<number>();
  for (const { index } of graphemes.segment(text)) bounds.add(index);
  bounds.add(text.length);
  const cuts: Cut[] = [];
  for (const run of text.matchAll(/\s+/gu)) {
    const end = run.index;
    const next = end + run[0].length;
    if (end === 0 || next >= text.length || !bounds.has(end) || !bounds.has(next)) continue;
    const rank = /\n[^\S\n]*\n/u.test(run[0])
      ? PARAGRAPH
      : SENTENCE_END.test(text.slice(Math.max(0, end - SENTENCE_END_MAX), end))
        ? SENTENCE
        : SPACE;
    cuts.push({ end, next, rank });
  }
  return cuts;
}
