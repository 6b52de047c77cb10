import { Controller, Get, Param, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { OpenRoute } from '../../access/decorators';
import { AppError } from '../../http/errors/error-codes';
import { isValidStorageKey } from '../../infrastructure/storage/local-disk.storage';
import { StorageUnavailableError } from '../../infrastructure/storage/storage-driver';
import { MediaService } from './media.service';

/** Stored names are random and never rewritten, so a served file never changes. */
const CACHE_FOREVER = 'public, max-age=31536000, immutable';

/** Only a MediaAsset's path, with its sniffed type and `nosniff`; anything else is 404. */
@Controller('media')
@OpenRoute()
@ApiExcludeController()
export class MediaFilesController {
  constructor(private readonly media: MediaService) {}

  @Get('*path')
  async serve(@Param('path') segments: string[] | string, @Res() res: Response): Promise<void> {
    const path = Array.isArray(segments) ? segments.join('/') : segments;
    if (!isValidStorageKey(path)) throw notFound();
    const asset = await this.media.findServable(path);
    if (!asset) throw notFound();
    let body: Readable;
    try {
      body = await this.media.openRead(asset);
    } catch (error) {
      if (error instanceof StorageUnavailableError) throw error;
      throw notFound();
    }
    res.status(200);
    res.setHeader('Content-Type', asset.mimeType);
    res.setHeader('Content-Length', String(asset.sizeBytes));
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Cache-Control', CACHE_FOREVER);
    await pipeline(body, res).catch(() => undefined);
  }
}

function notFound(): AppError {
  return new AppError('not_found', 'File not found');
}
