import { Body, Controller, Get, HttpCode, Post, Req } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { Request } from 'express';
import { AppError } from '../../http/errors/error-codes';
import { ApiErrors } from '../../http/errors/api-errors.decorator';
import { SignInLimiter } from '../../infrastructure/rate-limit/sign-in-limiter';
import { toUserView, UsersService } from './users.service';
import { APP_API_TAG, AppApi, OpenRoute } from '../../access/decorators';
import { ChangePasswordDto, LoginDto, RegisterDto, SessionDto, UserDto } from './auth.dto';
import { Principal } from '../../access/principal';
import { SessionsService } from './sessions.service';

@Controller('api/auth')
@ApiTags(APP_API_TAG)
export class AuthController {
  constructor(
    private readonly users: UsersService,
    private readonly sessions: SessionsService,
    private readonly limits: SignInLimiter,
  ) {}

  @Post('register')
  @OpenRoute()
  @ApiOperation({
    summary: 'Create a user and sign in',
    description: 'At most REGISTRATIONS_PER_ADDRESS_PER_HOUR (10) per client address and hour.',
  })
  @ApiCreatedResponse({ type: SessionDto })
  @ApiErrors('email_taken', 'rate_limit_exceeded')
  async register(@Body() dto: RegisterDto, @Req() req: Request): Promise<SessionDto> {
    await this.limits.registration(req);
    const user = await this.users.register(dto.email, dto.password, dto.name);
    return { token: await this.sessions.open(user.id), user: toUserView(user) };
  }

  @Post('login')
  @OpenRoute()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Sign in with email and password',
    description:
      'After SIGNIN_FAILURES_PER_ACCOUNT (10) failed attempts for one account, or ' +
      'SIGNIN_FAILURES_PER_ADDRESS (30) from one client address, in 15 minutes, every sign-in ' +
      'there is refused with 429, the right password too, until the window ends.',
  })
  @ApiOkResponse({ type: SessionDto })
  @ApiErrors('unauthorized', 'rate_limit_exceeded')
  async login(@Body() dto: LoginDto, @Req() req: Request): Promise<SessionDto> {
    const user = await this.limits.attempt(req, dto.email, () =>
      this.users.verifyCredentials(dto.email, dto.password),
    );
    if (!user) throw new AppError('unauthorized', 'Wrong email or password');
    return { token: await this.sessions.open(user.id), user: toUserView(user) };
  }

  @Post('password')
  @AppApi({ anySignedInUser: true })
  @HttpCode(204)
  @ApiOperation({
    summary: 'Change the password; every other session of the user ends',
    description: 'A wrong current password counts as a failed sign-in of the account.',
  })
  @ApiNoContentResponse()
  @ApiErrors('forbidden', 'rate_limit_exceeded')
  async changePassword(
    @Principal() who: Principal,
    @Body() dto: ChangePasswordDto,
    @Req() req: Request,
  ): Promise<void> {
    const changed = await this.limits.attempt(req, who.user.email, async () =>
      (await this.users.changePassword(who.user.id, dto.current_password, dto.new_password))
        ? true
        : null,
    );
    if (!changed) throw new AppError('forbidden', 'The current password is wrong');
    await this.sessions.closeAllOf(who.user.id, who.sessionId);
  }

  @Post('logout')
  @AppApi({ anySignedInUser: true })
  @HttpCode(204)
  @ApiOperation({ summary: 'End this session; its token stops working' })
  @ApiNoContentResponse()
  async logout(@Principal() who: Principal): Promise<void> {
    if (who.sessionId !== undefined) await this.sessions.close(who.sessionId);
  }

  @Post('logout-all')
  @AppApi({ anySignedInUser: true })
  @HttpCode(204)
  @ApiOperation({ summary: 'End every session of the user, this one included' })
  @ApiNoContentResponse()
  async logoutAll(@Principal() who: Principal): Promise<void> {
    await this.sessions.closeAllOf(who.user.id);
  }

  @Get('me')
  @AppApi({ anySignedInUser: true })
  @ApiOperation({ summary: 'The signed-in user' })
  @ApiOkResponse({ type: UserDto })
  me(@Principal() who: Principal): UserDto {
    return toUserView(who.user);
  }
}
