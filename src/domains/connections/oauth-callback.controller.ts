import { Controller, Get, Param, Query, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { OpenRoute } from '../../access/decorators';
import { AppError } from '../../http/errors/error-codes';
import { SignInLimiter } from '../../infrastructure/rate-limit/sign-in-limiter';
import { callbackPage, PAGE_CSP } from './callback-pages';
import {
  type CallbackOutcome,
  type CallbackQuery,
  ConnectionsService,
} from './connections.service';

/**
 * Where a platform sends the browser back after its consent page. No key or session: the state
 * is the credential, so unknown states are counted per client address like failed sign-ins.
 * Answers are for a browser (a redirect, or a small page), never cached.
 */
@Controller('api/oauth')
@ApiExcludeController()
export class OAuthCallbackController {
  constructor(
    private readonly connections: ConnectionsService,
    private readonly limits: SignInLimiter,
  ) {}

  @Get(':platform/callback')
  @OpenRoute()
  async callback(
    @Param('platform') platform: string,
    @Query() query: CallbackQuery,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Referrer-Policy', 'no-referrer');
    let state: Awaited<ReturnType<ConnectionsService['takeState']>>;
    try {
      state = await this.limits.stateGuess(req, () => this.connections.takeState(platform, query));
    } catch (error) {
      if (!(error instanceof AppError) || error.status !== 429) throw error;
      for (const [name, value] of Object.entries(error.headers ?? {})) res.setHeader(name, value);
      return page(res, 429, 'Too many attempts', error.message);
    }
    if (!state)
      return page(
        res,
        400,
        'This link does not connect anything',
        'It was used already, has expired (a link works once, for 10 minutes), or was never given. Start the connection again.',
      );
    const outcome = await this.connections.complete(state, query);
    if (outcome.redirectUrl) return res.redirect(302, redirectTo(outcome));
    if (outcome.status === 'connected')
      return page(
        res,
        200,
        'Account connected',
        `${outcome.title} is connected. You can close this page.`,
      );
    return page(
      res,
      200,
      'The account was not connected',
      `${outcome.message} (${outcome.error}).`,
    );
  }
}

function page(res: Response, status: number, title: string, message: string): void {
  res
    .status(status)
    .setHeader('Content-Security-Policy', PAGE_CSP)
    .type('html')
    .send(callbackPage(title, message));
}

function redirectTo(outcome: CallbackOutcome): string {
  const url = new URL(outcome.redirectUrl!);
  url.searchParams.set('status', outcome.status);
  if (outcome.status === 'connected') url.searchParams.set('account_id', String(outcome.accountId));
  else url.searchParams.set('error', outcome.error);
  return url.toString();
}
