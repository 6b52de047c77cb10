/**
 * The framework's floor: a minimal NestJS 11 + Express 5 app answering
 * `GET /api/public/v1/projects` and `GET /api/public/v1/usage` with the very work of the bare
 * baseline (bench/floor-work.ts), in a controller, and nothing else: no guards, interceptors,
 * pipes, logging or rate limits. Herald's own cost per request is what it spends above this.
 * Started by bench/read-api.ts; configured by PORT, DATABASE_URL and APP_SECRET.
 * BENCH_FRAMEWORK_PROTOTYPES=1 gives it Herald's HTTP server (src/http/express-adapter.ts), which
 * builds requests on Express's prototypes: the floor then no longer pays for Express changing them.
 */
import 'reflect-metadata';
import { Controller, Get, Headers, HttpException, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import { HeraldExpressAdapter } from '../src/http/express-adapter';
import { authenticate, projects, usage } from './floor-work';

const UNAUTHORIZED = { error: { code: 'unauthorized', message: 'Invalid API key' } };

@Controller()
class FloorController {
  @Get('health/live')
  live() {
    return { status: 'ok' };
  }

  @Get('api/public/v1/projects')
  async projects(@Headers('authorization') authorization?: string) {
    const key = await authenticate(authorization);
    if (!key) throw new HttpException(UNAUTHORIZED, 401);
    return projects(key.user_id);
  }

  @Get('api/public/v1/usage')
  async usage(@Headers('authorization') authorization?: string) {
    const key = await authenticate(authorization);
    if (!key) throw new HttpException(UNAUTHORIZED, 401);
    return usage(key.user_id);
  }
}

@Module({ controllers: [FloorController] })
class FloorModule {}

async function main(): Promise<void> {
  // Nest's default is a plain ExpressAdapter.
  const adapter =
    process.env.BENCH_FRAMEWORK_PROTOTYPES === '1'
      ? new HeraldExpressAdapter()
      : new ExpressAdapter();
  const app = await NestFactory.create(FloorModule, adapter, { logger: false });
  await app.listen(Number(process.env.PORT ?? 3002), '127.0.0.1');
}

void main();
