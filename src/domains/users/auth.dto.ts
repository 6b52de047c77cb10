import { ApiProperty } from '@nestjs/swagger';
import { IsEmail, IsString, MaxLength, MinLength } from 'class-validator';

export class RegisterDto {
  @ApiProperty({ example: 'ada@example.com' })
  @IsEmail()
  @MaxLength(254)
  email!: string;

  @ApiProperty({ minLength: 8, maxLength: 200, example: 'a long password' })
  @IsString()
  @MinLength(8)
  @MaxLength(200)
  password!: string;

  @ApiProperty({ example: 'Ada Lovelace' })
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name!: string;
}

export class LoginDto {
  @ApiProperty({ example: 'ada@example.com' })
  @IsString()
  @MaxLength(254)
  email!: string;

  @ApiProperty({ example: 'a long password' })
  @IsString()
  @MaxLength(200)
  password!: string;
}

export class ChangePasswordDto {
  @ApiProperty({ example: 'a long password' })
  @IsString()
  @MaxLength(200)
  current_password!: string;

  @ApiProperty({ minLength: 8, maxLength: 200, example: 'a longer password' })
  @IsString()
  @MinLength(8)
  @MaxLength(200)
  new_password!: string;
}

export class UserDto {
  @ApiProperty() id!: number;
  @ApiProperty() email!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ description: 'May create API keys' }) is_admin!: boolean;
  @ApiProperty({ description: 'Runs the queue dashboard over every project' })
  is_operator!: boolean;
}

export class SessionDto {
  @ApiProperty({ description: 'Session token for `Authorization: Bearer …`' }) token!: string;
  @ApiProperty({ type: UserDto }) user!: UserDto;
}
