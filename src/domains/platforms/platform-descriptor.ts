import type { Type } from '@nestjs/common';
import type { ClassConstructor } from 'class-transformer';
import type { Platform, PlatformConnector } from './platform';

/** A body field's rule, checked before the platform is asked, and its OpenAPI text. */
export interface ConnectField {
  readonly name: string;
  /** Absent is allowed (the platform has a default). */
  readonly optional?: boolean;
  readonly pattern?: RegExp;
  readonly patternMessage?: string;
  readonly description: string;
  readonly example?: string;
}

export interface ConnectMethod {
  /** The body carries what the platform gave the user (a token, a password). */
  readonly mode: 'credentials';
  readonly fields: readonly ConnectField[];
  readonly checkedWith: string;
  /** Accepted as it stands (shapes only). */
  readonly example: Readonly<Record<string, string>>;
}

/** How an account of the platform connects through OAuth: the start body's own fields. */
export interface OAuthMethod {
  readonly fields: readonly ConnectField[];
  readonly example: Readonly<Record<string, string>>;
}

/** Null where channels come with the account (its own timeline). */
export interface ChannelMethod {
  readonly fields: readonly ConnectField[];
  readonly checkedWith: string;
  readonly example: Readonly<Record<string, string>>;
}

/** A class-validator schema, checked with the rest of the configuration. */
export interface PlatformSettings<Schema extends object = object, Settings = unknown> {
  readonly schema: ClassConstructor<Schema>;
  read(variables: Schema): Settings;
  /** Herald's variables this platform's used to name, read under that name when unset. */
  readonly earlierNames?: Readonly<Record<string, string>>;
}

/** Everything generic code learns of a platform; platforms.ts lists one per platform. */
export interface PlatformDescriptor<Name extends string = string> {
  readonly name: Name;
  readonly displayName: string;
  /** At least `<name>_rejected` and `<name>_unavailable`, with their HTTP status. */
  readonly errors: Readonly<Record<`${Name}_${string}`, number>>;
  readonly settings?: PlatformSettings;
  /** Null where accounts connect through OAuth only. */
  readonly connect: ConnectMethod | null;
  /** Present when accounts (also) connect through OAuth (`POST …/connections`). */
  readonly oauth?: OAuthMethod;
  readonly channels: ChannelMethod | null;
  /** A `text_unit` of the platform's own, and how it counts. */
  readonly textUnit?: { readonly name: string; readonly description: string };
  readonly examples: {
    readonly channelRef: string;
    readonly channelId: string;
    readonly channelUrl: string;
    readonly messageUrl: string;
    /** The documentation's post bodies target it. */
    readonly demoChannelId: string;
  };
  /** e.g. "<platform> channels". */
  readonly aiAudience: string;
  /** Labelled by method (a closed set, else `other`) and outcome. */
  readonly callMetric: { name: string; help: string; methods: readonly string[] };
  readonly logMasks: readonly { pattern: RegExp; replacement: string }[];
  /** Required lazily: importing it with the registration list would make an import cycle. */
  readonly nest: () => PlatformNest;
}

/** `connector` alone is provided without Redis, for the CLI. */
export interface PlatformNest {
  readonly module: Type;
  readonly platform: Type<Platform>;
  readonly connectorModule: Type;
  readonly connector: Type<PlatformConnector>;
}

/** Keeps the literal name and error codes while checking the interface. */
export function definePlatform<const Name extends string, const D extends PlatformDescriptor<Name>>(
  descriptor: D & PlatformDescriptor<Name>,
): D {
  return descriptor;
}
