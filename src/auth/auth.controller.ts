import { Body, Controller, Get, HttpCode, Post } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { AppError } from '../errors/error-codes';
import { toUserView, UsersService } from '../users/users.service';
import { AnySignedInUser, APP_API_TAG, Public, SessionAuth } from './decorators';
import { LoginDto, RegisterDto, SessionDto, UserDto } from './dto/auth.dto';
import { Principal } from './principal';
import { SessionsService } from './sessions.service';
import { ApiErrors } from '../errors/api-errors.decorator';

@Controller('api/auth')
@ApiTags(APP_API_TAG)
export class AuthController {
  constructor(
    private readonly users: UsersService,
    private readonly sessions: SessionsService,
  ) {}

  @Post('register')
  @Public()
  @ApiOperation({ summary: 'Create a user and sign in' })
  @ApiCreatedResponse({ type: SessionDto })
  @ApiErrors('email_taken')
  async register(@Body() dto: RegisterDto): Promise<SessionDto> {
    const user = await this.users.register(dto.email, dto.password, dto.name);
    return { token: await this.sessions.open(user.id), user: toUserView(user) };
  }

  @Post('login')
  @Public()
  @HttpCode(200)
  @ApiOperation({ summary: 'Sign in with email and password' })
  @ApiOkResponse({ type: SessionDto })
  @ApiErrors('unauthorized')
  async login(@Body() dto: LoginDto): Promise<SessionDto> {
    const user = await this.users.verifyCredentials(dto.email, dto.password);
    if (!user) throw new AppError('unauthorized', 'Wrong email or password');
    return { token: await this.sessions.open(user.id), user: toUserView(user) };
  }

  @Post('logout')
  @SessionAuth()
  @AnySignedInUser()
  @HttpCode(204)
  @ApiOperation({ summary: 'End this session; its token stops working' })
  @ApiNoContentResponse()
  async logout(@Principal() who: Principal): Promise<void> {
    if (who.sessionId !== undefined) await this.sessions.close(who.sessionId);
  }

  @Get('me')
  @SessionAuth()
  @AnySignedInUser()
  @ApiOperation({ summary: 'The signed-in user' })
  @ApiOkResponse({ type: UserDto })
  me(@Principal() who: Principal): UserDto {
    return toUserView(who.user);
  }
}
