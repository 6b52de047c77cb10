import { Inject, Injectable, Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { EntityManager } from 'typeorm';
import { AppError } from '../../http/errors/error-codes';
import { formatTimestamp } from '../../infrastructure/database/timestamps';
import { STORAGE_DRIVER, type StorageDriver } from '../../infrastructure/storage/storage-driver';
import type { MediaAssetDto, MediaAssetListDto } from './media-asset.dto';
import { fallbackFilename, filenameForDownload, sanitizeFilename } from './filenames';
import { MediaAsset } from './media-asset.entity';
import { MediaRepository } from './media.repository';
import type { MediaKind } from './media-kinds';
import { sniffMedia } from './media-sniffer';
import { UrlFetcher } from './url-fetcher';

export const MEDIA_NOT_FOUND = { code: 'media_not_found', message: 'Media not found' } as const;

/** Its MediaAsset row does not exist yet. */
export interface StoredMediaFile {
  storagePath: string;
  kind: MediaKind;
  sizeBytes: number;
}

export type MediaUploadInput =
  | { kind: 'file'; file: StoredMediaFile; filename: string | undefined; altText: string | null }
  | { kind: 'url'; url: string; filename: string | undefined; altText: string | null };

/** A project's media library (docs/api-rules.md#media). */
@Injectable()
export class MediaService {
  private readonly logger = new Logger(MediaService.name);

  constructor(
    private readonly assets: MediaRepository,
    @Inject(STORAGE_DRIVER) private readonly storage: StorageDriver,
    private readonly fetcher: UrlFetcher,
  ) {}

  async upload(
    projectId: number,
    userId: number,
    input: MediaUploadInput,
  ): Promise<MediaAssetListDto> {
    const asset =
      input.kind === 'file'
        ? await this.createAsset(
            projectId,
            userId,
            input.file,
            sanitizeFilename(input.filename) ?? fallbackFilename(input.file.kind.ext),
            input.altText,
          )
        : await this.storeFromUrl(projectId, userId, input.url, input.filename, input.altText);
    return { items: [this.toDto(asset)], count: 1 };
  }

  /** As an upload: type from the bytes (415), at most 50 MB (413); a failure keeps nothing. */
  async storeStream(
    projectId: number,
    uploadedById: number | null,
    stream: Readable,
    filenameHint?: string | null,
  ): Promise<MediaAsset> {
    const file = await this.storeFile(projectId, stream);
    const filename = sanitizeFilename(filenameHint) ?? fallbackFilename(file.kind.ext);
    return this.createAsset(projectId, uploadedById, file, filename);
  }

  async storeFromUrl(
    projectId: number,
    uploadedById: number | null,
    url: string,
    filename?: string,
    altText: string | null = null,
  ): Promise<MediaAsset> {
    const { body, finalUrl } = await this.fetcher.fetch(url);
    const file = await this.storeFile(projectId, body);
    return this.createAsset(
      projectId,
      uploadedById,
      file,
      filenameForDownload(filename, finalUrl, file.kind.ext),
      altText,
    );
  }

  /** In the order of `ids`; ids of other projects are left out. */
  async findForProject(
    projectId: number,
    ids: readonly number[],
    m?: EntityManager,
  ): Promise<MediaAsset[]> {
    if (ids.length === 0) return [];
    const found = await this.assets.findByIds(projectId, ids, m);
    const byId = new Map(found.map((asset) => [asset.id, asset]));
    return ids.flatMap((id) => byId.get(id) ?? []);
  }

  /** Changes the alt text of one of the project's assets; 404 `media_not_found` for any other id. */
  async setAltText(projectId: number, id: number, altText: string | null): Promise<MediaAssetDto> {
    const asset = await this.assets.setAltText(projectId, id, altText);
    if (!asset) throw AppError.pathResourceNotFound(MEDIA_NOT_FOUND.code, MEDIA_NOT_FOUND.message);
    return this.toDto(asset);
  }

  /** Null when no asset is stored there. */
  findServable(
    storagePath: string,
  ): Promise<Pick<MediaAsset, 'storagePath' | 'mimeType' | 'sizeBytes'> | null> {
    return this.assets.findServable(storagePath);
  }

  openRead(asset: Pick<MediaAsset, 'storagePath'>): Promise<Readable> {
    return this.storage.openRead(asset.storagePath);
  }

  toDto(asset: MediaAsset): MediaAssetDto {
    return {
      id: asset.id,
      type: asset.type,
      filename: asset.filename,
      alt_text: asset.altText,
      mime_type: asset.mimeType,
      size_bytes: asset.sizeBytes,
      url: this.storage.publicUrl(asset.storagePath),
      storage_path: asset.storagePath,
      created_at: formatTimestamp(asset.createdAt),
    };
  }

  /** No row yet: the multipart route's storage engine makes it. */
  async storeFile(projectId: number, stream: Readable): Promise<StoredMediaFile> {
    const { kind, body } = await sniffMedia(stream);
    const storagePath = newStoragePath(projectId, kind.ext);
    const { size } = await this.storage.put(storagePath, body, kind.mimeType);
    return { storagePath, kind, sizeBytes: size };
  }

  async discardFile(storagePath: string): Promise<void> {
    await this.storage.delete(storagePath);
  }

  /** If the insert fails, the file goes too. */
  async createAsset(
    projectId: number,
    uploadedById: number | null,
    file: StoredMediaFile,
    filename: string,
    altText: string | null = null,
  ): Promise<MediaAsset> {
    try {
      return await this.assets.insert({
        projectId,
        uploadedById,
        type: file.kind.type,
        filename,
        altText,
        mimeType: file.kind.mimeType,
        sizeBytes: file.sizeBytes,
        storagePath: file.storagePath,
      });
    } catch (error) {
      await this.discardFile(file.storagePath).catch((cleanup: unknown) =>
        this.logger.error(`Could not remove ${file.storagePath}: ${String(cleanup)}`),
      );
      throw error;
    }
  }
}

/** `projects/<project_id>/<yyyy>/<mm>/<random>.<ext>`, never built from the client's name. */
export function newStoragePath(projectId: number, ext: string, now = new Date()): string {
  const yyyy = String(now.getUTCFullYear());
  const mm = String(now.getUTCMonth() + 1).padStart(2, '0');
  return `projects/${projectId}/${yyyy}/${mm}/${randomBytes(16).toString('hex')}.${ext}`;
}
