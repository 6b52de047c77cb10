import { Injectable, PipeTransform } from '@nestjs/common';
import { AppError, PATH_RESOURCE_STATUS, type ErrorCode } from './error-codes';

const POSITIVE_INT = /^[1-9]\d{0,9}$/;
/** The largest id a PostgreSQL `integer` column holds. */
export const MAX_DB_ID = 2_147_483_647;

/** A database id from a path, query or body value; null for anything that is not one. */
export function parseId(value: unknown): number | null {
  const text = typeof value === 'number' ? String(value) : value;
  if (typeof text !== 'string' || !POSITIVE_INT.test(text)) return null;
  const id = Number(text);
  return id <= MAX_DB_ID ? id : null;
}

/** A path id that is not an integer names nothing: 404 with the resource's own code. */
@Injectable()
export class ParseIdPipe implements PipeTransform<unknown, number> {
  constructor(
    private readonly code: ErrorCode,
    private readonly message: string,
  ) {}

  transform(value: unknown): number {
    const id = parseId(value);
    if (id === null)
      throw this.code in PATH_RESOURCE_STATUS
        ? AppError.pathResourceNotFound(
            this.code as keyof typeof PATH_RESOURCE_STATUS,
            this.message,
          )
        : new AppError(this.code, this.message);
    return id;
  }
}
