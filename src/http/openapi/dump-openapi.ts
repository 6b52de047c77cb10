import 'reflect-metadata';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { AppModule } from '../../app.module';
import { loadConfig } from '../../infrastructure/config/config';
import { buildOpenApiDocuments } from './openapi';

/** For the linter; the app is built in preview mode, connected to nothing. */
async function main(outDir: string): Promise<void> {
  const config = loadConfig({
    DATABASE_URL: 'postgres://lint@127.0.0.1:1/lint',
    REDIS_URL: 'redis://127.0.0.1:1',
    APP_SECRET: 'openapi-dump-secret-that-is-long-enough',
    LOG_LEVEL: 'silent',
    ...process.env,
    PUBLIC_BASE_URL: 'https://herald.invalid',
  });
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config), {
    preview: true,
    logger: false,
    abortOnError: false,
  });
  const { full, publicOnly } = buildOpenApiDocuments(app, config);
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, 'app.json'), JSON.stringify(full, null, 2));
  writeFileSync(join(outDir, 'public.json'), JSON.stringify(publicOnly, null, 2));
  await app.close();
}

void main(process.argv[2] ?? 'dist/openapi');
