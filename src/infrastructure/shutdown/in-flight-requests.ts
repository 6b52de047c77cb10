import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { Express, NextFunction, Request, Response } from 'express';
import type { Server } from 'node:http';
import { Server as NetServer } from 'node:net';
import { sendError } from '../../http/errors/all-exceptions.filter';
import { AppError } from '../../http/errors/error-codes';

/** A refused client may come back at once: another instance (or this one, restarted) takes it. */
export const STOPPING_RETRY_AFTER_S = 1;

/** The answer to a request that arrives once stopping has begun: it was not run at all. */
export function stoppingRefusal(): AppError {
  return new AppError(
    'service_unavailable',
    'Herald is stopping and did not run this request; retry it',
    undefined,
    { 'Retry-After': String(STOPPING_RETRY_AFTER_S), Connection: 'close' },
  );
}

/**
 * Stopping finishes the requests in flight before connections close. Counts every request
 * from the first middleware until its handler is done with it, whether or not the client is still
 * there: a client that hangs up frees its connection, not its handler, which goes on querying
 * the database. Stopping (the first of Nest's shutdown hooks, so before any queue, timer or pool
 * closes) stops listening, refuses with a 503 what arrives on connections already open, and waits
 * until no request is in flight. The process's stop bounds the wait (SHUTDOWN_TIMEOUT_MS).
 */
@Injectable()
export class InFlightRequests implements OnModuleDestroy {
  private readonly logger = new Logger('Shutdown');
  private readonly running = new Set<Response>();
  private stopping = false;
  private idle?: () => void;

  constructor(private readonly adapterHost: HttpAdapterHost) {}

  /** Requests whose handler has not finished yet. */
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

  /**
   * Every answer ends with end(), the one of a client that left too: its handler is done. Watched
   * once, on the application's response prototype, not by giving each answer an `end` of its own:
   * that own property kept answers alive through garbage collections, which then took longer
   * (docs/performance.md#express-prototypes).
   */
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

  /** Stops taking requests and resolves when every request in flight is done. */
  async stop(): Promise<void> {
    this.stopping = true;
    const server = this.adapterHost.httpAdapter?.getHttpServer() as Server | undefined;
    // No new connections. The open ones close after their next answer, which carries
    // `Connection: close`: a request in flight gets its normal answer, one that arrives the 503
    // refusal. http's close() would also close idle keep-alive connections at once, and a client
    // sending on one at that moment had its request cut; they close with the server at the end.
    if (server?.listening) NetServer.prototype.close.call(server);
    for (const res of this.running) if (!res.headersSent) res.setHeader('Connection', 'close');
    if (!server) return;
    this.logger.log(`Refusing new requests; ${this.running.size} request(s) in flight`);
    if (this.running.size === 0) return;
    await new Promise<void>((resolve) => (this.idle = resolve));
  }
}
