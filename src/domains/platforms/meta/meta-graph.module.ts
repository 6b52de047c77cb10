import { Module } from '@nestjs/common';
import { MediaReach } from './media-reach';

@Module({ providers: [MediaReach], exports: [MediaReach] })
export class MetaGraphModule {}
