import { Injectable, Logger } from '@nestjs/common';
import Redis from 'ioredis';
import type { AppConfig } from '../../infrastructure/config/config';
import { InjectConfig } from '../../infrastructure/config/config.module';
import { InjectRedis } from '../../infrastructure/redis/redis.module';
import type { SentMessage } from '../platforms/platform-answers';
import { withinTime } from '../../infrastructure/redis/time-limit';

export interface DeliveryReceipt {
  targetId: number;
  postId: number;
  platform: string;
  step: number;
  last: boolean;
  /** In order: the platform's ids (as text) and their links. */
  messages: SentMessage[];
}

const REDIS_COPY_TTL_S = 7 * 24 * 3_600;

/** Nothing may be decided yet. */
export class ReceiptsUnreadable extends Error {}

/** Confirmed answers are held in memory until written, and copied to Redis when a write fails. */
@Injectable()
export class DeliveryReceipts {
  private readonly logger = new Logger(DeliveryReceipts.name);
  /** A target has at most one send whose outcome is not written. */
  private readonly held = new Map<number, DeliveryReceipt & { inRedis: boolean }>();

  constructor(
    @InjectRedis() private readonly redis: Redis,
    @InjectConfig() private readonly config: AppConfig,
  ) {}

  hold(send: DeliveryReceipt): void {
    this.held.set(send.targetId, { ...send, inRedis: false });
  }

  /** A copy goes to Redis for a worker that takes over if this process dies; best effort. */
  async writeFailed(targetId: number): Promise<void> {
    const send = this.held.get(targetId);
    if (!send || send.inRedis) return;
    try {
      await this.bounded(
        this.redis.set(this.key(targetId), JSON.stringify(send), 'EX', REDIS_COPY_TTL_S),
      );
      send.inRedis = true;
    } catch (error) {
      this.logger.warn(
        `Target ${targetId}: its confirmed send is kept in this process only (${(error as Error).message})`,
      );
    }
  }

  written(targetId: number): void {
    const send = this.held.get(targetId);
    this.held.delete(targetId);
    if (send?.inRedis) this.bounded(this.redis.del(this.key(targetId))).catch(() => undefined); // it expires anyway
  }

  /** Null when none was kept (outcome unknown); throws ReceiptsUnreadable when Redis cannot say. */
  async find(targetId: number, step: number): Promise<DeliveryReceipt | null> {
    const mine = this.held.get(targetId);
    if (mine) return mine.step === step ? mine : null;
    let stored: string | null;
    try {
      stored = await this.bounded(this.redis.get(this.key(targetId)));
    } catch (error) {
      throw new ReceiptsUnreadable(
        `Target ${targetId}: no answer kept here, and Redis cannot say whether one was kept elsewhere (${(error as Error).message})`,
      );
    }
    if (stored === null) return null;
    const send = fromStored(JSON.parse(stored) as StoredSend);
    if (send.step !== step) return null;
    this.held.set(targetId, { ...send, inRedis: true });
    return send;
  }

  get(targetId: number): DeliveryReceipt | undefined {
    return this.held.get(targetId);
  }

  ofPost(postId: number): DeliveryReceipt[] {
    return [...this.held.values()].filter((send) => send.postId === postId);
  }

  private key(targetId: number): string {
    return `${this.config.redisKeyPrefix}:confirmed-send:${targetId}`;
  }

  private bounded<T>(work: Promise<T>): Promise<T> {
    return withinTime(work, this.config.publication.queueCallTimeoutMs);
  }
}

/** One kept before message ids were text has only `messageIds`. */
type StoredSend = Omit<DeliveryReceipt, 'messages'> & {
  messages?: SentMessage[];
  messageIds?: number[];
};

function fromStored({ messageIds, messages, ...send }: StoredSend): DeliveryReceipt {
  return {
    ...send,
    messages: messages ?? (messageIds ?? []).map((id) => ({ id: String(id), url: null })),
  };
}
