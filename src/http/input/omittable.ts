import { ValidateIf } from 'class-validator';

/**
 * A body or query field that may be left out. class-validator's `IsOptional` also lets `null`
 * through unvalidated, and a null that reached a NOT NULL column was a 500; here `null` is a value
 * like any other and is refused unless the field's own rules take it. A field where null
 * means something (`scheduled_at: null` unschedules) says so with its own `ValidateIf`.
 */
export function Omittable(): PropertyDecorator {
  return ValidateIf((_object: object, value: unknown) => value !== undefined);
}
