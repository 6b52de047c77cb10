import { ValidateIf } from 'class-validator';

/** May be left out, but unlike `IsOptional` a `null` is validated like any other value. */
export function Omittable(): PropertyDecorator {
  return ValidateIf((_object: object, value: unknown) => value !== undefined);
}
