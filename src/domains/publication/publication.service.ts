import { Injectable, Logger } from '@nestjs/common';
import type { OutgoingMedia } from '../platforms/platform';
import { PlatformRegistry } from '../platforms/platform-registry';
import { SimulatedPublisher, simulatedMessageUrl } from '../platforms/simulated-publisher';
import { planThread, threadMessages, type ThreadItem } from '../platforms/thread-items';
import { DeliveryReceipts } from './delivery-receipts';
import { RetryLater } from './publication.queue';
import {
  PublicationRepository,
  type ClaimedPost,
  type DeliveryMedia,
  type DeliveryTarget,
} from './publication.repository';
import { SendGate } from './send-gate';
import { TargetDelivery, type DeliveryRun } from './target-delivery';

/** Idempotent: a state-guarded claim, then TargetDelivery, which never sends twice. */
@Injectable()
export class PublicationService {
  private readonly logger = new Logger(PublicationService.name);
  /** Test posts never leave Herald. */
  private readonly simulated: Map<string, SimulatedPublisher>;

  constructor(
    private readonly repo: PublicationRepository,
    private readonly platforms: PlatformRegistry,
    private readonly gate: SendGate,
    private readonly delivery: TargetDelivery,
    private readonly receipts: DeliveryReceipts,
  ) {
    this.simulated = new Map(
      platforms.all().map((p) => [p.name, new SimulatedPublisher(p.publisher)]),
    );
  }

  /** Throws RetryLater when some target must wait. */
  async run(postId: number, attempt: number): Promise<void> {
    const post = await this.repo.claim(postId, attempt, this.gate.accountsWithRoom());
    if (!post) return; // superseded, finished, or deleted: nothing to do
    const items: ThreadItem<OutgoingMedia>[] = [
      { text: post.text, media: post.media.map(toOutgoing) },
      ...post.thread.map((item) => ({ text: item.text, media: item.media.map(toOutgoing) })),
    ];
    let retryInMs: number | null = null;
    let published = false;
    for (const target of post.targets) {
      const outcome = await this.delivery.deliver(this.runOf(post, attempt, items, target));
      if (outcome.at === 'later') retryInMs = Math.min(retryInMs ?? Infinity, outcome.inMs);
      else if (outcome.at === 'done' && outcome.postPublished) published = true;
    }
    if (retryInMs !== null) throw new RetryLater(retryInMs);
    const status = published ? 'published' : await this.repo.finish(postId, attempt);
    if (status) this.logger.log(`Post ${postId} ${status}`);
  }

  /** What the platforms confirmed is written first, then what is left fails. */
  async giveUp(postId: number, attempt: number, reason: string): Promise<void> {
    for (const receipt of this.receipts.ofPost(postId))
      await this.delivery.writeReceipt({ postId, attempt }, receipt.targetId, receipt.last);
    await this.repo.giveUp(postId, attempt, `Publication gave up: ${reason}`);
  }

  private runOf(
    post: ClaimedPost,
    attempt: number,
    items: ThreadItem<OutgoingMedia>[],
    target: DeliveryTarget,
  ): DeliveryRun {
    const platform = this.platforms.get(target.platform) ?? null;
    // The one place test mode shows in the pipeline: which publisher delivers.
    const publisher = platform
      ? post.test
        ? this.simulated.get(platform.name)!
        : platform.publisher
      : null;
    return {
      job: { postId: post.id, attempt },
      target,
      simulated: post.test,
      platform,
      publisher,
      messageUrl: (channel, id) =>
        post.test || !platform
          ? simulatedMessageUrl(target.platform, channel, id)
          : platform.messageUrl(channel, id),
      // Cut by the target's own limits, the same on every run, so `steps_done` counts the same steps.
      steps:
        publisher && platform
          ? planThread(
              publisher,
              threadMessages(platform, target.limits ?? platform.limits, {
                items,
                split: post.split_long_text,
              }),
            )
          : null,
    };
  }
}

function toOutgoing(media: DeliveryMedia): OutgoingMedia {
  return {
    type: media.type,
    mimeType: media.mime_type,
    filename: media.filename,
    altText: media.alt_text,
    storagePath: media.storage_path,
    sizeBytes: Number(media.size_bytes),
  };
}
