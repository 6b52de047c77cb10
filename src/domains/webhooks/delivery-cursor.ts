/** Signed and bound to its endpoint; the log is newest first, so a page continues below the id. */
const CURSOR_TAG = 'deliveries:1';

export function encodeDeliveryCursor(
  sign: (data: string) => string,
  webhookId: number,
  lastId: number,
): string {
  return sign(JSON.stringify([CURSOR_TAG, webhookId, lastId]));
}

/** The last id of a cursor made for this endpoint; null for anything else (`data` is verified). */
export function decodeDeliveryCursor(data: string | null, webhookId: number): number | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(data ?? 'null');
  } catch {
    return null;
  }
  if (!Array.isArray(parsed) || parsed.length !== 3) return null;
  const [tag, endpoint, lastId] = parsed as unknown[];
  return tag === CURSOR_TAG && endpoint === webhookId && Number.isInteger(lastId)
    ? (lastId as number)
    : null;
}
