import type { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import type { StorageDriver } from '../../infrastructure/storage/storage-driver';
import { DeliveryError, type DeliveryStep, type OutgoingMedia, type SendTarget } from './platform';
import { openStoredStream } from './stored-file';

/** One post, whatever it holds (the limits keep it within one). */
export function onePost(text: string, media: OutgoingMedia[]): DeliveryStep[] {
  const kind = media.length === 0 ? 'text' : media.length === 1 ? 'single' : 'album';
  return [{ kind, text, media, cost: 1 }];
}

/** A stored medium's bytes, for a platform that takes them whole (base64, or a PUT). */
export async function storedBytes(
  storage: StorageDriver | undefined,
  medium: OutgoingMedia,
): Promise<Buffer> {
  const opened: Readable[] = [];
  try {
    return await buffer(await openStoredStream(storage, medium, opened));
  } finally {
    for (const stream of opened) stream.destroy();
  }
}

/**
 * On a platform that finds an earlier try's post by its text, a retry of a post with images and
 * no text could not tell it apart: it fails rather than risk a second post.
 */
export function refuseUntellableRetry(
  platform: string,
  target: SendTarget,
  step: DeliveryStep,
): void {
  if (target.retry && (step.text ?? '').trim() === '' && step.media.length > 0)
    throw new DeliveryError(
      'rejected',
      `An earlier try of this post may have reached ${platform}, and a post with images only cannot be told apart from it; publish again to retry`,
      null,
      'delivery_unconfirmed',
    );
}

/** The request never left (refused, unresolved): nothing was sent. */
const NOT_SENT_CODES = ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT'];

/** A call's failure without an answer: its words (never a URL or token) and whether it was sent. */
export function noAnswer(platform: string, call: string, error: unknown) {
  const failure = error as { code?: unknown; name?: unknown; cause?: { code?: unknown } };
  const code = [failure?.code, failure?.cause?.code].find((c) => typeof c === 'string') as
    string | undefined;
  const reason = code ?? (typeof failure?.name === 'string' ? failure.name : 'Error');
  return {
    message: `${platform} ${call} failed: ${reason}`,
    sent: !NOT_SENT_CODES.includes(code ?? ''),
  };
}
