/**
 * A date-time in an answer (docs/api-rules.md#date-times), UTC with exactly six fractional digits
 * and no offset.
 */
export const MICROS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}$/;

/** One sample's value from the exposition text; undefined when the series is absent. */
export function metricSample(
  text: string,
  name: string,
  labels: Record<string, string>,
): number | undefined {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const inside = /\{(.*)\}/.exec(line)?.[1] ?? '';
    const parts = inside === '' ? [] : inside.split(/,(?=\w+=")/);
    if (wanted.every((w) => parts.includes(w))) return Number(line.split(' ').pop());
  }
  return undefined;
}

/** What a Telegram channel's list item shows as its limits: 4096 UTF-16 code units, albums of 10, 50 MB files. */
export const TELEGRAM_CHANNEL_LIMITS = {
  text_max: 4096,
  text_unit: 'utf16',
  media_max: 10,
  media_kinds: ['image', 'video'],
  media_max_bytes: { image: 52_428_800, video: 52_428_800 },
};
