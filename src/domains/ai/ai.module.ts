import { Module } from '@nestjs/common';
import type { AppConfig } from '../../infrastructure/config/config';
import { APP_CONFIG } from '../../infrastructure/config/config.module';
import { MediaModule } from '../media/media.module';
import { AI_PROVIDER, type AiProvider } from './ai-provider';
import { AiController } from './ai.controller';
import { AiService } from './ai.service';
import { OpenAiCompatibleProvider } from './openai-compatible.provider';
import { UnconfiguredAiProvider } from './unconfigured.provider';

@Module({
  imports: [MediaModule],
  controllers: [AiController],
  providers: [
    {
      provide: AI_PROVIDER,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig): AiProvider =>
        config.aiApiBaseUrl
          ? new OpenAiCompatibleProvider({ ...config, aiApiBaseUrl: config.aiApiBaseUrl })
          : new UnconfiguredAiProvider(),
    },
    AiService,
  ],
  exports: [AiService],
})
export class AiModule {}
