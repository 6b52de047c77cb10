import { applyDecorators } from '@nestjs/common';
import { ClassConstructor, plainToInstance, Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  IsBoolean,
  IsIn,
  IsInt,
  Matches,
  Max,
  Min,
  ValidateBy,
  validateSync,
  ValidationArguments,
  ValidationOptions,
} from 'class-validator';
import { isIP } from 'node:net';

/** One line naming the variable; never its value (secrets). */
export function problem(rule: string): ValidationOptions {
  return { message: ({ property }: ValidationArguments) => `${property} ${rule}` };
}

/** Digits only: a sign, a fraction, an exponent or hex is refused, not read as a number. */
function toWholeNumber(value: unknown): unknown {
  return typeof value === 'string' ? (/^\d+$/.test(value) ? Number(value) : NaN) : value;
}

function commaSeparated(value: unknown): string[] {
  return String(value)
    .split(',')
    .map((item) => item.trim());
}

export function WholeNumber(min: number, max: number): PropertyDecorator {
  const rule = problem(`must be a whole number from ${min} to ${max}`);
  return applyDecorators(
    Transform(({ value }) => toWholeNumber(value)),
    IsInt(rule),
    Min(min, rule),
    Max(max, rule),
  );
}

export function WholeNumberList(maxItems: number, max: number): PropertyDecorator {
  const rule = problem(
    `must be a comma-separated list of at most ${maxItems} whole numbers from 0 to ${max}`,
  );
  return applyDecorators(
    Transform(({ value }) => commaSeparated(value).map(toWholeNumber)),
    ArrayMaxSize(maxItems, rule),
    IsInt({ each: true, ...rule }),
    Min(0, { each: true, ...rule }),
    Max(max, { each: true, ...rule }),
  );
}

export function OneOf(allowed: readonly string[]): PropertyDecorator {
  return IsIn(allowed, problem(`must be one of: ${allowed.join(', ')}`));
}

export function TrueOrFalse(): PropertyDecorator {
  return applyDecorators(
    Transform(({ value }) => (value === 'true' ? true : value === 'false' ? false : value)),
    IsBoolean(problem('must be one of: true, false')),
  );
}

export function Pattern(pattern: RegExp): PropertyDecorator {
  return Matches(pattern, problem(`must match ${pattern}`));
}

/** Parsed as the WHATWG URL that the HTTP and Redis clients will parse. */
export function UrlOf(protocols: string[]): PropertyDecorator {
  return ValidateBy(
    {
      name: 'urlOf',
      validator: {
        validate(value: unknown): boolean {
          try {
            return protocols.includes(new URL(String(value)).protocol);
          } catch {
            return false;
          }
        },
      },
    },
    problem(`must be a URL starting with ${protocols.map((p) => `${p}//`).join(' or ')}`),
  );
}

/** Counted like String.length; class-validator's MinLength counts some character pairs as one. */
export function AtLeastCharacters(min: number): PropertyDecorator {
  return ValidateBy(
    {
      name: 'atLeastCharacters',
      validator: { validate: (value: unknown) => typeof value === 'string' && value.length >= min },
    },
    problem(`must be at least ${min} characters long`),
  );
}

/** A prefix length within its family: `127.0.0.2/32`, `fd00::/8`. */
function IsCidr(options: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isCidr',
      validator: {
        validate(value: unknown): boolean {
          const [address, bits, ...rest] = String(value).split('/');
          const family = isIP(address ?? '');
          return (
            family !== 0 &&
            rest.length === 0 &&
            bits !== undefined &&
            /^\d+$/.test(bits) &&
            Number(bits) <= (family === 6 ? 128 : 32)
          );
        },
      },
    },
    options,
  );
}

export function CidrList(): PropertyDecorator {
  return applyDecorators(
    Transform(({ value }) => commaSeparated(value).filter(Boolean)),
    IsCidr({
      each: true,
      ...problem('must be a comma-separated list of CIDR ranges such as 127.0.0.2/32'),
    }),
  );
}

export function SetTogetherWith(other: string): PropertyDecorator {
  return ValidateBy(
    {
      name: 'setTogetherWith',
      validator: {
        validate: (value: unknown, args?: ValidationArguments) =>
          (value === undefined) ===
          ((args?.object as Record<string, unknown>)[other] === undefined),
      },
    },
    problem(`and ${other} must be set together`),
  );
}

export type Env = Record<string, string | undefined>;

/** One problem line per variable; blanks count as unset, undeclared variables are ignored. */
export function readVariables<T extends object>(
  schema: ClassConstructor<T>,
  env: Env,
): { variables: T; problems: Partial<Record<keyof T, string>> } {
  const given = Object.fromEntries(
    Object.entries(env).flatMap(([name, value]) => {
      const trimmed = value?.trim();
      return trimmed ? [[name, trimmed]] : [];
    }),
  );
  const variables = plainToInstance(schema, given);
  const errors = validateSync(variables, {
    whitelist: true,
    stopAtFirstError: true,
    validationError: { target: false, value: false },
  });
  const problems: Partial<Record<keyof T, string>> = {};
  for (const error of errors) {
    problems[error.property as keyof T] = Object.values(error.constraints ?? {})[0];
  }
  return { variables, problems };
}
