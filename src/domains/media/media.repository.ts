import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, In, Repository } from 'typeorm';
import { MediaAsset } from './media-asset.entity';

export type NewMediaAsset = Pick<
  MediaAsset,
  | 'projectId'
  | 'uploadedById'
  | 'type'
  | 'filename'
  | 'altText'
  | 'mimeType'
  | 'sizeBytes'
  | 'storagePath'
>;

/** Scoped by project but for the file route, which finds them by path. */
@Injectable()
export class MediaRepository {
  constructor(@InjectRepository(MediaAsset) private readonly assets: Repository<MediaAsset>) {}

  /** In no particular order; in the transaction `m` when given. */
  findByIds(projectId: number, ids: readonly number[], m?: EntityManager): Promise<MediaAsset[]> {
    const assets = m?.getRepository(MediaAsset) ?? this.assets;
    return assets.findBy({ projectId, id: In([...ids]) });
  }

  /** Not scoped by project: the file's public address is all a reader has. */
  findServable(
    storagePath: string,
  ): Promise<Pick<MediaAsset, 'storagePath' | 'mimeType' | 'sizeBytes'> | null> {
    return this.assets.findOne({
      where: { storagePath },
      select: { storagePath: true, mimeType: true, sizeBytes: true },
    });
  }

  /** Sets the alt text of the project's asset `id`; null when the project has no such asset. */
  async setAltText(
    projectId: number,
    id: number,
    altText: string | null,
  ): Promise<MediaAsset | null> {
    const { affected } = await this.assets.update({ projectId, id }, { altText });
    return affected ? this.assets.findOneBy({ projectId, id }) : null;
  }

  async insert(asset: NewMediaAsset): Promise<MediaAsset> {
    const inserted = await this.assets.insert(asset);
    const id = (inserted.identifiers[0] as { id: number }).id;
    return this.assets.findOneByOrFail({ id, projectId: asset.projectId });
  }
}
