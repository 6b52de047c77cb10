import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiResponse } from '@nestjs/swagger';
import {
  errorStatus,
  PATH_RESOURCE_STATUS,
  type ErrorCode,
  type PathResourceCode,
} from './error-codes';

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

/** A code answered for the path's own resource (`AppError.pathResourceNotFound`). */
export interface PathResource {
  pathResource: PathResourceCode;
}

/** Documents the error answers of a route, grouped by status, with their codes. */
export function ApiErrors(
  ...codes: (ErrorCode | PathResource)[]
): MethodDecorator & ClassDecorator {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const entry of codes) {
    const [code, status] =
      typeof entry === 'string'
        ? [entry, errorStatus(entry)]
        : [entry.pathResource, PATH_RESOURCE_STATUS[entry.pathResource]];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
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
