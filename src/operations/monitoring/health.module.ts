import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { PublicationModule } from '../../domains/publication/publication.module';
import { HealthController } from './health.controller';

@Module({
  imports: [TerminusModule.forRoot({ logger: false }), PublicationModule],
  controllers: [HealthController],
})
export class HealthModule {}
