import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { MediaAsset } from '../media/media-asset.entity';
import { Post } from './post.entity';

/** The post's `media_files`: media assets in album order. */
@Entity('post_media')
@Index(['postId', 'position'], { unique: true })
export class PostMedia {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column({ type: 'int' })
  postId!: number;

  @ManyToOne(() => Post, (post) => post.mediaFiles, { onDelete: 'CASCADE' })
  @JoinColumn()
  post?: Post;

  @Index()
  @Column({ type: 'int' })
  mediaAssetId!: number;

  @ManyToOne(() => MediaAsset, { onDelete: 'CASCADE' })
  @JoinColumn()
  mediaAsset?: MediaAsset;

  @Column({ type: 'int' })
  position!: number;
}
