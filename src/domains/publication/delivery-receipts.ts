import { Injectable, Logger } from '@nestjs/common';
import Redis from 'ioredis';
import type { AppConfig } from '../../infrastructure/config/config';
import { InjectConfig } from '../../infrastructure/config/config.module';
import { InjectRedis } from '../../infrastructure/redis/redis.module';
import type { SentMessage } from '../platforms/platform-answers';
import { withinTime } from '../../infrastructure/redis/time-limit';

/** A send the platform confirmed, whose messages the database does not have yet. */
export interface DeliveryReceipt {
  targetId: number;
  postId: number;
  platform: string;
  /** The target's step the send delivered, and whether it was its last. */
  step: number;
  last: boolean;
  /** The messages the send became, in order: the platform's ids (as text) and their links. */
  messages: SentMessage[];
}

/** A copy in Redis outlives any outage worth waiting for; then the key goes by itself. */
const REDIS_COPY_TTL_S = 7 * 24 * 3_600;

/** Redis could not say whether another process kept an answer: nothing may be decided yet. */
export class ReceiptsUnreadable extends Error {}

/**
 * Keeps a platform's confirmed answer until the database has it, so that a send that was
 * delivered is never reported `delivery_unconfirmed`, whichever platform it went to.
 *
 * Every answer is kept in this process's memory from the moment it comes until its write
 * succeeds: it survives an outage of PostgreSQL, of Redis or of both, for as long as the process
 * lives, and the job that could not write it retries until it does. Only when the write fails is
 * a copy also put in Redis: a process that dies during the outage (killed, machine lost) leaves
 * the answer to the worker that takes its job over. A write that succeeds costs nothing more.
 * What is lost: the answer of a process killed in the instant between the answer and its write
 * (the database still up), or killed while neither the database nor Redis took it.
 */
@Injectable()
export class DeliveryReceipts {
  private readonly logger = new Logger(DeliveryReceipts.name);
  /** By target: a target has at most one send whose outcome is not written. */
  private readonly held = new Map<number, DeliveryReceipt & { inRedis: boolean }>();

  constructor(
    @InjectRedis() private readonly redis: Redis,
    @InjectConfig() private readonly config: AppConfig,
  ) {}

  /** Held in memory until `written`. */
  hold(send: DeliveryReceipt): void {
    this.held.set(send.targetId, { ...send, inRedis: false });
  }

  /**
   * The database refused the answer: a copy goes to Redis too, for a worker that takes the job
   * over if this process dies before the database is back. Best effort, bounded in time.
   */
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

  /** The database has it: forgotten here, and in Redis if a copy went there. */
  written(targetId: number): void {
    const send = this.held.get(targetId);
    this.held.delete(targetId);
    if (send?.inRedis) this.bounded(this.redis.del(this.key(targetId))).catch(() => undefined); // it expires anyway
  }

  /**
   * The confirmed answer of the target's send of `step`, kept here or by another process; null when
   * none was kept (the send's outcome is unknown). Throws ReceiptsUnreadable when Redis
   * cannot say.
   */
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

  /** The answer kept in this process for the target, if any. */
  get(targetId: number): DeliveryReceipt | undefined {
    return this.held.get(targetId);
  }

  /** The answers kept in this process for the post's targets. */
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

/** A copy as Redis holds it; one kept before message ids were text has only `messageIds`. */
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
