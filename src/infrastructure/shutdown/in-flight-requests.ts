import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { Express, NextFunction, Request, Response } from 'express';
import type { Server } from 'node:http';
import { Server as NetServer } from 'node:net';
import { sendError } from '../../http/errors/all-exceptions.filter';
import { AppError } from '../../http/errors/error-codes';

/** Another instance (or this one, restarted) takes the client. */
export const STOPPING_RETRY_AFTER_S = 1;

/** For a request that arrives once stopping has begun: it was not run at all. */
export function stoppingRefusal(): AppError {
  return new AppError(
    'service_unavailable',
    'Herald is stopping and did not run this request; retry it',
    undefined,
    { 'Retry-After': String(STOPPING_RETRY_AFTER_S), Connection: 'close' },
  );
}

/** Counts requests until their handler is done (client gone or not); stopping waits for them. */
@Injectable()
export class InFlightRequests implements OnModuleDestroy {
  private readonly logger = new Logger('Shutdown');
  private readonly running = new Set<Response>();
  private stopping = false;
  private idle?: () => void;

  constructor(private readonly adapterHost: HttpAdapterHost) {}

  get count(): number {
    return this.running.size;
  }

  /** Mounted before any other middleware that does work (app.setup.ts). */
  middleware() {
    this.watchAnswersEnding();
    return (_req: Request, res: Response, next: NextFunction): void => {
      if (this.stopping) {
        sendError(res, stoppingRefusal());
        return;
      }
      this.running.add(res);
      // A stream cut off mid-answer never ends; once the answer started, no work is left.
      res.once('close', () => {
        if (res.headersSent) this.done(res);
      });
      next();
    };
  }

  private done(res: Response): void {
    if (this.running.delete(res) && this.running.size === 0) this.idle?.();
  }

  /** Each answer ends with end(): hooked once (docs/performance.md#express-prototypes). */
  private watchAnswersEnding(): void {
    const responses = this.adapterHost.httpAdapter.getInstance<Express>().response;
    const end = responses.end as (this: Response, ...args: unknown[]) => Response;
    const done = (res: Response) => this.done(res);
    responses.end = function (this: Response, ...args: unknown[]) {
      const result = end.apply(this, args);
      done(this);
      return result;
    } as Response['end'];
  }

  async onModuleDestroy(): Promise<void> {
    await this.stop();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    const server = this.adapterHost.httpAdapter?.getHttpServer() as Server | undefined;
    // Open connections close after their next answer (`Connection: close`), idle ones at the end.
    if (server?.listening) NetServer.prototype.close.call(server);
    for (const res of this.running) if (!res.headersSent) res.setHeader('Connection', 'close');
    if (!server) return;
    this.logger.log(`Refusing new requests; ${this.running.size} request(s) in flight`);
    if (this.running.size === 0) return;
    await new Promise<void>((resolve) => (this.idle = resolve));
  }
}
