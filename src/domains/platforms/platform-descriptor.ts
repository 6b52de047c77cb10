import type { Type } from '@nestjs/common';
import type { ClassConstructor } from 'class-transformer';
import type { Platform, PlatformConnector } from './platform';

/**
 * One field of an account's or a channel's body that a platform reads: its rule (checked by the
 * platform's connector before anything is asked of the platform) and its OpenAPI text.
 */
export interface ConnectField {
  readonly name: string;
  /** Absent is allowed (the platform has a default). */
  readonly optional?: boolean;
  /** The shape a value must have, and what to say when it has not. */
  readonly pattern?: RegExp;
  readonly patternMessage?: string;
  /** What the field holds, for the API documentation. */
  readonly description: string;
  readonly example?: string;
}

/** How an account of the platform is connected, and the body that does it. */
export interface ConnectMethod {
  /** `credentials`: the body carries what the platform gave the user (a token, a password). */
  readonly mode: 'credentials';
  readonly fields: readonly ConnectField[];
  /** How the platform checks the fields, for the route's description. */
  readonly checkedWith: string;
  /** A body the API documentation offers, accepted as it stands (shapes only). */
  readonly example: Readonly<Record<string, string>>;
}

/** How an account of the platform connects through OAuth: the start body's own fields. */
export interface OAuthMethod {
  readonly fields: readonly ConnectField[];
  readonly example: Readonly<Record<string, string>>;
}

/** How channels are added to an account, or null where they come with it (its own timeline). */
export interface ChannelMethod {
  readonly fields: readonly ConnectField[];
  readonly checkedWith: string;
  readonly example: Readonly<Record<string, string>>;
}

/**
 * The environment variables a platform reads: a class-validator schema (defaults on the
 * properties), checked with the rest of the configuration, and what the platform keeps of it.
 */
export interface PlatformSettings<Schema extends object = object, Settings = unknown> {
  readonly schema: ClassConstructor<Schema>;
  read(variables: Schema): Settings;
  /**
   * Herald's own variables that this platform's used to name (a setting that became everyone's):
   * each read under its earlier name when it is unset, with a line in the log at start.
   */
  readonly earlierNames?: Readonly<Record<string, string>>;
}

/**
 * Everything Herald's generic code learns of a platform, declared in the platform's folder: the
 * registration list (platforms.ts) holds one per platform, and the accounts and channels bodies,
 * the error table, the configuration, the OpenAPI document, the metrics, the request log and the
 * CLI read them.
 */
export interface PlatformDescriptor<Name extends string = string> {
  /** The `platform` of its accounts, channels and targets. */
  readonly name: Name;
  /** The platform's name as people write it. */
  readonly displayName: string;
  /** The platform's own error codes and their HTTP status: at least `<name>_rejected` and `<name>_unavailable`. */
  readonly errors: Readonly<Record<`${Name}_${string}`, number>>;
  readonly settings?: PlatformSettings;
  readonly connect: ConnectMethod;
  /** Present when accounts may also connect through OAuth (`POST …/connections`). */
  readonly oauth?: OAuthMethod;
  readonly channels: ChannelMethod | null;
  /** The API documentation's examples, and what a channel id is on the platform. */
  readonly examples: {
    readonly channelRef: string;
    readonly channelId: string;
    readonly channelUrl: string;
    readonly messageUrl: string;
    /** The id of the demo seed's first channel, which the documentation's post bodies target. */
    readonly demoChannelId: string;
  };
  /** What the AI is told it writes for, e.g. "<platform> channels". */
  readonly aiAudience: string;
  /** The histogram of its API calls, labelled by method (a closed set, else `other`) and outcome. */
  readonly callMetric: { name: string; help: string; methods: readonly string[] };
  /** Path segments that hold a secret, masked in request logs. */
  readonly logMasks: readonly { pattern: RegExp; replacement: string }[];
  /**
   * Its Nest side, required when the application is assembled rather than with the registration
   * list: the error table, the configuration and the request log read the list, and nearly every
   * file imports them, the platform's own among them (src/architecture/import-cycles.spec.ts).
   */
  readonly nest: () => PlatformNest;
}

/**
 * A platform's Nest side: the module that provides `platform` (publisher, pacing, links), and the
 * one that provides `connector` alone, without Redis, for the CLI.
 */
export interface PlatformNest {
  readonly module: Type;
  readonly platform: Type<Platform>;
  readonly connectorModule: Type;
  readonly connector: Type<PlatformConnector>;
}

/** A descriptor, checked against the interface while keeping its literal name and error codes. */
export function definePlatform<const Name extends string, const D extends PlatformDescriptor<Name>>(
  descriptor: D & PlatformDescriptor<Name>,
): D {
  return descriptor;
}
