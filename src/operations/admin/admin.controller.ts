import { Controller, Get, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { OpenRoute } from '../../access/decorators';
import { AppError } from '../../http/errors/error-codes';
import { loginPage, logoutPage, refusedPage } from './admin-pages';
import { AdminSessionService } from './admin-session.service';

export const QUEUES_PATH = '/admin/queues';
const NOT_OPERATOR = 'The queue dashboard is for operators only';
const REFUSED_FORM = 'This form has expired or did not come from this site; reload the page';

/** Public HTML pages for people, left out of the OpenAPI document. */
@Controller('admin')
@OpenRoute()
@ApiExcludeController()
export class AdminController {
  constructor(private readonly admin: AdminSessionService) {}

  @Get('login')
  async loginForm(@Req() req: Request, @Res() res: Response): Promise<void> {
    const caller = await this.admin.caller(req);
    if (caller.kind === 'operator') return res.redirect(303, QUEUES_PATH);
    html(res, 200, loginPage(this.admin.csrfToken(req, res)));
  }

  @Post('login')
  async login(@Req() req: Request, @Res() res: Response): Promise<void> {
    if (!this.admin.isGenuineForm(req))
      return html(res, 403, loginPage(this.admin.csrfToken(req, res), REFUSED_FORM));
    const { email, password } = (req.body ?? {}) as Record<string, unknown>;
    let outcome: Awaited<ReturnType<AdminSessionService['signIn']>>;
    try {
      outcome =
        typeof email === 'string' && typeof password === 'string'
          ? await this.admin.signIn(email, password, res, req)
          : 'wrong';
    } catch (error) {
      // Too many failed sign-ins: the form again, with the wait, as the API answers it.
      if (!(error instanceof AppError) || error.code !== 'rate_limit_exceeded') throw error;
      res.setHeader('Retry-After', error.headers?.['Retry-After'] ?? '60');
      return html(res, 429, loginPage(this.admin.csrfToken(req, res), error.message));
    }
    if (outcome === 'signed_in') return res.redirect(303, QUEUES_PATH);
    if (outcome === 'not_operator') return html(res, 403, refusedPage(NOT_OPERATOR));
    html(res, 401, loginPage(this.admin.csrfToken(req, res), 'Wrong email or password'));
  }

  @Get('logout')
  async logoutForm(@Req() req: Request, @Res() res: Response): Promise<void> {
    const caller = await this.admin.caller(req);
    if (caller.kind === 'anonymous') return res.redirect(303, '/admin/login');
    html(res, 200, logoutPage(this.admin.csrfToken(req, res), caller.principal.user.email));
  }

  @Post('logout')
  async logout(@Req() req: Request, @Res() res: Response): Promise<void> {
    if (!this.admin.isGenuineForm(req)) return html(res, 403, refusedPage(REFUSED_FORM));
    await this.admin.signOut(await this.admin.caller(req), req, res);
    res.redirect(303, '/admin/login');
  }
}

function html(res: Response, status: number, body: string): void {
  res.status(status).setHeader('Content-Type', 'text/html; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  res.send(body);
}
