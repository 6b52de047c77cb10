import { File } from 'node:buffer';
import { Readable } from 'node:stream';
import {
  StorageUnavailableError,
  type StorageDriver,
} from '../../infrastructure/storage/storage-driver';
import { DeliveryError, type OutgoingMedia } from './platform';

class StoredFile extends File {
  constructor(
    private readonly source: Readable,
    byteLength: number,
    name: string,
    type: string,
  ) {
    super([], name, { type });
    // undici sizes the multipart body from `size` and then reads `stream()`.
    Object.defineProperty(this, 'size', { value: byteLength });
  }

  override stream(): ReturnType<File['stream']> {
    return Readable.toWeb(this.source) as ReturnType<File['stream']>;
  }
}

/** Added to `opened` for the caller to destroy; unreachable storage is a transient failure. */
export async function openStoredStream(
  storage: StorageDriver | undefined,
  medium: OutgoingMedia,
  opened: Readable[],
): Promise<Readable> {
  if (!storage) throw new DeliveryError('media_unavailable', 'No media storage is configured');
  let stream: Readable;
  try {
    stream = await storage.openRead(medium.storagePath);
  } catch (error) {
    if (error instanceof StorageUnavailableError)
      throw new DeliveryError('transient', error.message);
    throw new DeliveryError('media_unavailable', `Media file ${medium.filename} is not in storage`);
  }
  opened.push(stream);
  return stream;
}

export async function openStoredFile(
  storage: StorageDriver | undefined,
  medium: OutgoingMedia,
  opened: Readable[],
): Promise<File> {
  const stream = await openStoredStream(storage, medium, opened);
  return new StoredFile(stream, medium.sizeBytes, medium.filename, medium.mimeType);
}
