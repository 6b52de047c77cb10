import type { OAuthFlow, TokenTerms } from './oauth-flow';
import type { PlatformErrorCode } from './platforms';
import type { MediaType } from '../media/media-asset.entity';
import type { PlatformChannel, PlatformLimits } from './platform-answers';
import type { RateLimitObserver, RateLimitReport } from './rate-limit-report';

export interface MediaToCheck {
  id: number;
  type: MediaType;
  mimeType: string;
  filename: string;
  sizeBytes: number;
}

/** A post's `thread`: each item a reply to the one before, one first comment, or none. */
export type ReplyMode = 'chain' | 'first_comment' | 'none';

/** What the generic pipeline needs from a platform; registered by name in PlatformsModule. */
export interface Platform {
  readonly name: string;
  readonly displayName: string;
  readonly replies: ReplyMode;
  readonly publisher: PlatformPublisher;
  readonly pacing: PlatformPacing;
  readonly limits: PlatformLimits;
  /** True when an account may carry limits of its own (an instance's), read when it connects. */
  readonly accountLimits: boolean;
  measureText(text: string, limits: PlatformLimits): number;
  /** Where a message with media takes less text (a caption): a cut text's first part fits it. */
  readonly captionMax?: number;
  /** Where the platform limits links (`limits.links_max`): the different links of a text. */
  links?(text: string): string[];
  /** A media rule beyond kinds, count and sizes: the refusal's message, or null when fine. */
  mediaProblem?(media: readonly MediaToCheck[], limits: PlatformLimits): string | null;
  /** The platform deduplicates a retry by its key: an unknown outcome is retried, never doubled. */
  readonly confirmsByKey: boolean;
  channelUrl(channel: PlatformChannel): string | null;
  messageUrl(channel: PlatformChannel, messageId: string): string | null;
  /** Where message ids are integers listed in a target's `message_ids`; absent elsewhere (`[]`). */
  listedMessageId?(messageId: string): number;
  readonly connector: PlatformConnector;
}

export const REGISTERED_PLATFORMS = Symbol('REGISTERED_PLATFORMS');

/** Connectors load without pacing (no Redis), so the CLI can use them. */
export const PLATFORM_CONNECTORS = Symbol('PLATFORM_CONNECTORS');

/** A body beyond `project_id` and `platform`: each platform reads its own fields. */
export type ConnectFields = Readonly<Record<string, unknown>>;

export interface PlatformIdentity {
  id: string;
  title: string;
  username: string | null;
  url?: string | null;
}

export interface ConnectedAccount extends PlatformIdentity {
  /** Sealed at rest; never logged, never returned. */
  secret: string;
  channels?: PlatformIdentity[];
  limits?: PlatformLimits;
  session?: string;
  terms?: TokenTerms;
}

export interface DemoAccount {
  account: ConnectedAccount;
  channels: PlatformIdentity[];
}

/** Refusals are `<platform>_rejected` (with the platform's message) or `<platform>_unavailable`. */
export interface PlatformConnector {
  readonly platform: string;
  readonly displayName: string;
  /** Absent where accounts connect through OAuth only. */
  connect?(fields: ConnectFields): Promise<ConnectedAccount>;
  addChannel(secret: string, fields: ConnectFields): Promise<PlatformIdentity>;
  /** Publishing to the demo account fails until real credentials are set. */
  demo(): DemoAccount;
  /** Present on a platform whose accounts connect through OAuth (its descriptor's `oauth`). */
  readonly oauth?: OAuthFlow;
}

export interface OutgoingMedia {
  type: MediaType;
  mimeType: string;
  filename: string;
  altText: string | null;
  storagePath: string;
  sizeBytes: number;
}

/** One message (or album); `cost` is how many messages it counts for pacing. */
export interface DeliveryStep {
  kind: 'text' | 'single' | 'album';
  text: string | null;
  media: OutgoingMedia[];
  cost: number;
  /** The platform calls the step makes (uploads, the message), where a window counts calls. */
  calls?: number;
  messages?: number;
  /** The first step of a thread item: a reply to the message recorded last before it. */
  reply?: boolean;
}

export type DeliveryFailure =
  | 'rate_limited'
  /** The platform is still preparing what the send needs (a video): ask again later, no failure. */
  | 'not_ready'
  /** Not delivered, worth retrying with backoff (5xx, refused connection). */
  | 'transient'
  /** The credentials are refused: the account needs reconnecting. */
  | 'unauthorized'
  | 'rejected'
  /** The platform says the channel does not exist (deleted, or the account no longer in it). */
  | 'channel_gone'
  /** The request went out and no answer came: it may or may not have been delivered. */
  | 'unconfirmed'
  | 'media_unavailable';

export type TargetFailureCode =
  | 'account_needs_reconnect'
  | 'channel_needs_reconnect'
  | 'channel_removed'
  | 'delivery_failed'
  | 'delivery_unconfirmed'
  | 'media_unavailable'
  | 'media_url_not_public'
  | 'platform_rejected'
  | 'platform_unsupported'
  | PlatformErrorCode;

export class DeliveryError extends Error {
  constructor(
    readonly failure: DeliveryFailure,
    message: string,
    readonly retryAfterMs: number | null = null,
    readonly errorCode: TargetFailureCode | null = null,
    /** What a `rate_limited` holds: every send of the account, or only this channel's (a quota of its own). */
    readonly limits: 'account' | 'channel' = 'account',
  ) {
    super(message);
  }
}

export interface SendTarget {
  accountId: number;
  chatId: string;
  /** The same on every try of this message: at most 25 characters of `[0-9a-z-]`. */
  key: string;
  /** 13 characters, time-ordered, made when the target was stored: a record key. */
  tid: string;
  /** An earlier try of this very message may have reached the platform. */
  retry: boolean;
  /** For a reply: the messages recorded for this target, never guessed. */
  replyTo?: ReplyTarget;
  /** What an earlier try of this step kept (a container), or null. */
  progress: string | null;
  /** Keeps what the platform made toward this step (a container) for every later try. */
  keep(progress: string): Promise<void>;
  /** The budget an answer's rate-limit headers report, read back into the account's pacing. */
  observeRateLimit: RateLimitObserver;
}

export interface ReplyTarget {
  parent: RecordedMessage;
  root: RecordedMessage;
}

export interface RecordedMessage {
  id: string;
  /** Where a reply must name its parent's content hash (a record's cid). */
  cid?: string;
}

export interface PlatformMessage {
  id: string;
  url?: string | null;
  cid?: string;
}

export interface PlatformPublisher {
  readonly platform: string;
  plan(text: string, media: OutgoingMedia[]): DeliveryStep[];
  /** Throws DeliveryError. */
  send(credentials: string, target: SendTarget, step: DeliveryStep): Promise<PlatformMessage[]>;
}

export type PacingSlot =
  /** With `admitIfNow` and a slot that is now: admission's answer (0: go at once). */
  | { kind: 'booked'; waitMs: number; admitWaitMs?: number }
  /** Only the channel's slot is held: ask again in `waitMs` with `holdsChannel`. */
  | { kind: 'channel_busy'; waitMs: number }
  /** Saved for the holder, who frees its worker slot and reserves again shortly before `waitMs`. */
  | { kind: 'saved'; waitMs: number };

export interface ReserveRequest {
  accountId: number;
  channelId: string;
  cost: number;
  calls?: number;
  /** Comes back with the channel slot an earlier `channel_busy` held for it. */
  holdsChannel?: boolean;
  /** One send (a target's step): a slot far ahead is saved for it. */
  holder?: string;
  /** The send is marked in flight already: a slot that is now is also admitted. */
  admitIfNow?: boolean;
  /** A slot further ahead than this is saved for the holder (the pacing's own default if unset). */
  saveAfterMs?: number;
}

/** Reserve ahead, admit as the send leaves (docs/performance.md#pacing); no pacing: sends go. */
export interface PlatformPacing {
  readonly admitSpacingMs: number;
  reserve(request: ReserveRequest): Promise<PacingSlot>;
  /** The platform answered 429: no worker's send of the account is booked before `untilMs`. */
  holdAccount(accountId: number, untilMs: number): Promise<void>;
  /** 0 when the send is admitted and must go at once; else the ms to wait before asking again. */
  admit(
    accountId: number,
    channelId: string,
    cost: number,
    calls?: number,
    holder?: string,
  ): Promise<number>;
  /** The holder's admitted send was answered (or failed): long windows count it from now. */
  settle(
    accountId: number,
    channelId: string,
    holder: string,
    cost: number,
    calls?: number,
  ): Promise<void>;
  observe(accountId: number, channelId: string, report: RateLimitReport): Promise<void>;
  hadRoom(accountId: number): boolean;
  accountsWithRoom(): number[];
}
