import { createBullBoard } from '@bull-board/api';
import { BullAdapter } from '@bull-board/api/bullAdapter';
import { ExpressAdapter } from '@bull-board/express';
import { Injectable } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import cookieParser from 'cookie-parser';
import type { NextFunction, Request, Response } from 'express';
import { urlencoded } from 'express';
import { sendError } from '../../http/errors/all-exceptions.filter';
import { serviceUnavailable } from '../../http/errors/outage';
import { QueueRegistry } from '../../infrastructure/metrics/queue-registry';
import { queueRedisAnswers } from '../../infrastructure/redis/bull-queue';
import { refusedPage } from './admin-pages';
import { AdminSessionService } from './admin-session.service';
import { QUEUES_PATH } from './admin.controller';

const MAX_FORM_BODY = '16kb';
const REDIS_CHECK_TIMEOUT_MS = 1_000;
/** Answered within this time or 503, never a hang (Redis gone mid-request). */
const ANSWER_DEADLINE_MS = 8_000;

/** Express-level Bull Board for operators; no session goes to sign-in, a non-operator gets 403. */
@Injectable()
export class QueueBoard {
  constructor(
    private readonly queues: QueueRegistry,
    private readonly admin: AdminSessionService,
  ) {}

  mount(app: NestExpressApplication): void {
    app.use('/admin', cookieParser(), urlencoded({ extended: false, limit: MAX_FORM_BODY }));
    const board = new ExpressAdapter();
    board.setBasePath(QUEUES_PATH);
    createBullBoard({
      queues: this.queues.queues().map((queue) => new BullAdapter(queue)),
      // @bull-board/express pins a patch release of @bull-board/api of its own: same interface.
      serverAdapter: board as unknown as Parameters<typeof createBullBoard>[0]['serverAdapter'],
      options: { uiConfig: { boardTitle: 'Herald queues' } },
    });
    app.use(
      QUEUES_PATH,
      (req: Request, res: Response, next: NextFunction) => void this.guard(req, res, next),
      (req: Request, res: Response, next: NextFunction) => void this.needsRedis(req, res, next),
      board.getRouter(),
    );
  }

  private async guard(req: Request, res: Response, next: NextFunction): Promise<void> {
    try {
      const caller = await this.admin.caller(req);
      if (caller.kind === 'operator') return next();
      const page = req.method === 'GET' && !req.path.startsWith('/api/');
      if (caller.kind === 'anonymous') {
        if (page) return res.redirect(303, '/admin/login');
        res.status(401).json({ error: { code: 'unauthorized', message: 'Sign in first' } });
        return;
      }
      const message = 'The queue dashboard is for operators only';
      if (page) res.status(403).type('html').send(refusedPage(message));
      else res.status(403).json({ error: { code: 'forbidden', message } });
    } catch (error) {
      next(error);
    }
  }

  /** Bull holds commands while Redis is away: answer 503 at once rather than hang. */
  private async needsRedis(req: Request, res: Response, next: NextFunction): Promise<void> {
    if (!req.path.startsWith('/api/')) return next();
    if (!(await this.redisAnswers())) return sendError(res, serviceUnavailable());
    const deadline = setTimeout(() => sendError(res, serviceUnavailable()), ANSWER_DEADLINE_MS);
    res.on('close', () => clearTimeout(deadline));
    next();
  }

  /** Every queue is on the one Redis of REDIS_URL, so one PING answers for all. */
  private async redisAnswers(): Promise<boolean> {
    const [first, ...others] = this.queues.queues();
    if (!first) return true;
    if (others.some((queue) => queue.client.status !== 'ready')) return false;
    return queueRedisAnswers(first, REDIS_CHECK_TIMEOUT_MS);
  }
}
