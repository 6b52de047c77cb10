import type { PlatformErrorCode } from './platforms';
import type { MediaType } from '../media/media-asset.entity';
import type { PlatformChannel, PlatformLimits } from './platform-answers';

/** A stored media file as the post rules see it. */
export interface MediaToCheck {
  id: number;
  type: MediaType;
  filename: string;
  sizeBytes: number;
}

/**
 * What the generic pipeline (claim, deliver, retry, finish) needs from a platform. Each platform
 * lives in its own folder behind these interfaces and is registered by name in PlatformsModule;
 * the pipeline looks it up by a target's `platform`.
 */
export interface Platform {
  /** The `platform` of its accounts, channels and targets. */
  readonly name: string;
  /** The platform's name as people write it, for messages. */
  readonly displayName: string;
  readonly publisher: PlatformPublisher;
  readonly pacing: PlatformPacing;
  /**
   * What a post may hold on this platform, shown with each of its channels; an account may have
   * its own (an instance's), read when it was connected.
   */
  readonly limits: PlatformLimits;
  /** True when an account may carry limits of its own (an instance's), read when it connects. */
  readonly accountLimits: boolean;
  /** The text's length as the platform counts it against `limits.text_max`. */
  measureText(text: string, limits: PlatformLimits): number;
  /**
   * A rule on the media of one post beyond the limits' kinds, count and sizes (such as images or
   * one video, never both): the refusal's message, or null when the media are fine.
   */
  mediaProblem?(media: readonly MediaToCheck[], limits: PlatformLimits): string | null;
  /**
   * True when the platform recognises a send tried again with the same key (a nonce, an
   * Idempotency-Key, a record key): a send whose outcome is unknown is then tried again with
   * `retry` set instead of failing, and it never posts twice.
   */
  readonly confirmsByKey: boolean;
  /** The channel's public link, or null where it has none. */
  channelUrl(channel: PlatformChannel): string | null;
  /** A message's public link in the channel, or null where the platform gives none. */
  messageUrl(channel: PlatformChannel, messageId: string): string | null;
  /**
   * Where a platform's message ids are integers that a target's `message_ids` has always listed:
   * the id as that list holds it. Absent elsewhere, whose targets list `[]` there.
   */
  listedMessageId?(messageId: string): number;
  readonly connector: PlatformConnector;
}

/** The DI token of the registered platforms' implementations (a Platform[]). */
export const REGISTERED_PLATFORMS = Symbol('REGISTERED_PLATFORMS');

/** The registered platforms' connectors (a PlatformConnector[]), loaded without pacing. */
export const PLATFORM_CONNECTORS = Symbol('PLATFORM_CONNECTORS');

/**
 * The fields of an account's or a channel's body beyond `project_id` and `platform`: each
 * platform reads its own (a bot token, an instance URL and access token, …).
 */
export type ConnectFields = Readonly<Record<string, unknown>>;

/** An account or a channel as the platform shows it. */
export interface PlatformIdentity {
  /** Its id on the platform, as text. */
  id: string;
  title: string;
  username: string | null;
  /** A channel's public link, kept with it; absent or null where the platform gives none. */
  url?: string | null;
}

/** An account whose credentials the platform accepted. */
export interface ConnectedAccount extends PlatformIdentity {
  /** What to keep of the credentials, sealed at rest; never logged, never returned. */
  secret: string;
  /** Channels that come with the account (its own timeline), made with it. */
  channels?: PlatformIdentity[];
  /** The account's own limits where they differ per account (an instance's). */
  limits?: PlatformLimits;
  /** A session the platform opened for the account, kept sealed beside its credentials. */
  session?: string;
}

/** A placeholder account and its channels for the demo seed, made without asking the platform. */
export interface DemoAccount {
  account: ConnectedAccount;
  channels: PlatformIdentity[];
}

/**
 * Connects accounts and adds channels on one platform. Its refusals are Herald's errors: the
 * platform refused (`<platform>_rejected`, with the platform's message) or could not be reached
 * (`<platform>_unavailable`). Needs no Redis, so the CLI loads it too.
 */
export interface PlatformConnector {
  readonly platform: string;
  /** The platform's name as people write it, for messages. */
  readonly displayName: string;
  /** Checks the credentials against the platform: the account they belong to. */
  connect(fields: ConnectFields): Promise<ConnectedAccount>;
  /** Checks a channel the account may post to (`secret` as `connect` gave it). */
  addChannel(secret: string, fields: ConnectFields): Promise<PlatformIdentity>;
  /** A placeholder account for the demo seed; publishing to it fails until real credentials are set. */
  demo(): DemoAccount;
}

/** A stored file to upload with a post. */
export interface OutgoingMedia {
  type: MediaType;
  mimeType: string;
  filename: string;
  /** What the image shows, for those who cannot see it; null when the uploader gave none. */
  altText: string | null;
  storagePath: string;
  sizeBytes: number;
}

/** One message (or album) of a delivery; `cost` is how many messages it counts for pacing. */
export interface DeliveryStep {
  kind: 'text' | 'single' | 'album';
  text: string | null;
  media: OutgoingMedia[];
  cost: number;
  /** How many messages the platform makes of it, where that differs from `cost`. */
  messages?: number;
}

/** How a send failed, which decides what happens to the target. */
export type DeliveryFailure =
  /** The platform asked to wait (its rate-limit answer said how long). */
  | 'rate_limited'
  /** Not delivered, worth retrying with backoff (5xx, refused connection). */
  | 'transient'
  /** The account's credentials are refused: the account needs reconnecting. */
  | 'unauthorized'
  /** The platform refused this message for good. */
  | 'rejected'
  /** The platform says the channel does not exist (deleted, or the account no longer in it). */
  | 'channel_gone'
  /** The request went out and no answer came: it may or may not have been delivered. */
  | 'unconfirmed'
  /** A media file could not be read from storage. */
  | 'media_unavailable';

/** Why a target failed for good: the `error.code` of a failed target in the post's answer. */
export type TargetFailureCode =
  | 'account_needs_reconnect'
  | 'channel_needs_reconnect'
  | 'channel_removed'
  | 'delivery_failed'
  | 'delivery_unconfirmed'
  | 'media_unavailable'
  | 'platform_rejected'
  | 'platform_unsupported'
  | PlatformErrorCode;

export class DeliveryError extends Error {
  constructor(
    readonly failure: DeliveryFailure,
    message: string,
    readonly retryAfterMs: number | null = null,
    /** The target's error code when it fails for good, where the platform names its own. */
    readonly errorCode: TargetFailureCode | null = null,
  ) {
    super(message);
  }
}

/** Where one send goes, and the key every try of it carries. */
export interface SendTarget {
  /** Herald's id of the account that sends (where the platform keeps a session for it). */
  accountId: number;
  /** The channel's id on the platform. */
  chatId: string;
  /**
   * Unique to this message of this target and the same on every try of it: at most 25 characters
   * of `[0-9a-z-]` (a message nonce, an Idempotency-Key).
   */
  key: string;
  /** The target's TID (13 characters, time-ordered), made when it was stored: a record key. */
  tid: string;
  /** True when an earlier try of this very message may have reached the platform. */
  retry: boolean;
}

/** A message the platform made: its id, always text, and its link when the answer gives one. */
export interface PlatformMessage {
  id: string;
  url?: string | null;
}

/** Delivers posts to one platform. */
export interface PlatformPublisher {
  readonly platform: string;
  /** The messages a post becomes, in order. */
  plan(text: string, media: OutgoingMedia[]): DeliveryStep[];
  /** Sends one step: the messages the platform made. Throws DeliveryError. */
  send(credentials: string, target: SendTarget, step: DeliveryStep): Promise<PlatformMessage[]>;
}

/** What a reservation got. */
export type PacingSlot =
  /**
   * The account is booked: the send may go in `waitMs`. Asked with `admitIfNow` and the slot is
   * now, `admitWaitMs` is the admission check's answer (0: admitted, go at once).
   */
  | { kind: 'booked'; waitMs: number; admitWaitMs?: number }
  /** Only the channel's next slot is held: ask again in `waitMs` with `holdsChannel`. */
  | { kind: 'channel_busy'; waitMs: number }
  /**
   * The account's slot is further ahead than a worker waits: it is saved for the holder, who gives
   * its worker slot back and reserves again shortly before `waitMs`.
   */
  | { kind: 'saved'; waitMs: number };

export interface ReserveRequest {
  accountId: number;
  channelId: string;
  /** The messages the send counts for. */
  cost: number;
  /** The caller comes back with the channel slot an earlier `channel_busy` held for it. */
  holdsChannel?: boolean;
  /** One send (a target's step): a slot far ahead is saved for it. */
  holder?: string;
  /** The caller has marked the send in flight already: a slot that is now is also admitted. */
  admitIfNow?: boolean;
}

/**
 * Spreads one platform's sends within its limits, per account and per channel, shared by every
 * worker. A send first reserves a slot (its moment ahead, so that the sends waiting for one account
 * come back one after the other), then is admitted: the sliding-window check made as it leaves. A
 * pacing that cannot be reached lets sends go (a rate-limit answer is still honoured).
 */
export interface PlatformPacing {
  /** The least time between two admissions of one account. */
  readonly admitSpacingMs: number;
  reserve(request: ReserveRequest): Promise<PacingSlot>;
  /** 0 when the send is admitted and must go at once; else the ms to wait before asking again. */
  admit(accountId: number, channelId: string, cost: number): Promise<number>;
  /** Whether the account's last reservation in this process was booked for now. */
  hadRoom(accountId: number): boolean;
  /** The accounts that `hadRoom`: the claim marks a post's first send when its account is one. */
  accountsWithRoom(): number[];
}
