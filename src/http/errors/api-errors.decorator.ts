import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiResponse } from '@nestjs/swagger';
import { errorStatus, type ErrorCode } from './error-codes';

class ErrorDetailDto {
  @ApiProperty() field!: string;
  @ApiProperty() message!: string;
  @ApiProperty({
    required: false,
    description: 'The problem’s own code, where the answer lists every problem of a post',
  })
  code?: string;
  @ApiProperty({
    type: String,
    nullable: true,
    required: false,
    description: 'The target the problem is about; null when it is about the whole post',
  })
  channel_ref?: string | null;
}

class ErrorObjectDto {
  @ApiProperty({ example: 'validation_failed' }) code!: string;
  @ApiProperty() message!: string;
  @ApiProperty({ type: [ErrorDetailDto], required: false }) details?: ErrorDetailDto[];
}

export class ErrorResponseDto {
  @ApiProperty({ type: ErrorObjectDto }) error!: ErrorObjectDto;
}

/** Documents the error answers of a route, grouped by status, with their codes. */
export function ApiErrors(...codes: ErrorCode[]): MethodDecorator & ClassDecorator {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes)
    byStatus.set(errorStatus(code), [...(byStatus.get(errorStatus(code)) ?? []), code]);
  return applyDecorators(
    ...[...byStatus].map(([status, list]) =>
      ApiResponse({
        status,
        type: ErrorResponseDto,
        description: `error.code: ${list.join(', ')}`,
      }),
    ),
  );
}
