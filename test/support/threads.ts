import { PlatformRegistry } from '../../src/domains/platforms/platform-registry';
import { planThread, threadMessages } from '../../src/domains/platforms/thread-items';
import { PublicationRepository } from '../../src/domains/publication/publication.repository';
import { TargetDelivery, type DeliveryRun } from '../../src/domains/publication/target-delivery';
import { projectApi } from './factories/project-api';
import { waitForPostStatus, withWorkerPaused } from './publication';
import type { TestApp } from './test-app';
import { sleep } from './waits';

/** A message the platform's stand-in made in a channel, as it holds it. */
export interface MadeMessage {
  /** As Herald records it (on Bluesky the record's at:// URI). */
  id: string;
  text: string;
  /** The message it replies to, else null. */
  parent: string | null;
  /** Where the platform names the thread's first message too (Bluesky), else undefined. */
  root?: string | null;
  media: number;
  /** The reply field exactly as the stand-in received it (undefined without one). */
  reply: unknown;
  /** Where a reply must name it (a Bluesky record's cid). */
  cid?: string;
}

/** How the stand-in answers the next text send: as usual, making it and losing the answer, or refusing it. */
export type SendAnswer = 'ok' | 'drop' | 'refuse';

/** One platform's stand-in and a connected account, for the thread specs every platform runs. */
export interface ThreadStage {
  t: TestApp;
  project: { id: number };
  key: string;
  testKey: string;
  /** A channel for one test (sends are paced per channel). */
  channel(): Promise<string>;
  /** Messages made in the channel of `ref`, in order. */
  made(ref: string): MadeMessage[];
  /** The reply field a message replying to `parent` must carry, in a thread begun by `root`. */
  replyOf(parent: MadeMessage, root: MadeMessage): unknown;
  /** The answers to the next sends of text alone, in order. */
  script(...answers: SendAnswer[]): void;
  /** The platform answers an unknown parent with this code and message, or takes the reply. */
  unknownParent: { code: string; message: RegExp } | 'accepted';
  rejected: string;
  /** The platform recognises a send tried again by its key. */
  confirmsByKey: boolean;
  /** A fixture of a medium it takes. */
  image: string;
  textMax: number;
  unit: 'utf16' | 'graphemes';
  /** Where each link counts as this many characters. */
  urlLength?: number;
  /** A text one over the limit, and the problem create answers for it in a thread item. */
  overLimit: { text: string; code: string; field: string };
  close(): Promise<void>;
}

export interface TargetAnswer {
  status: string;
  error: { code: string; message: string } | null;
  messages: { id: string; url: string | null }[];
  url: string | null;
}

/** Quick retries, and request limits out of the way, for the thread specs. */
export const THREAD_ENV = {
  PUBLICATION_SEND_TIMEOUT_MS: '2000',
  PUBLICATION_RETRY_BASE_MS: '50',
  RATE_LIMIT_CREATE_POST: '1000',
  RATE_LIMIT_PUBLISH: '1000',
  RATE_LIMIT_OTHER: '1000',
  RATE_LIMIT_UPLOAD: '1000',
};

/** A family (man, woman, girl, boy): one grapheme of 11 UTF-16 code units. */
export const FAMILY = '👨‍👩‍👧‍👦';

/** The calls of a spec of threads: publish, read, dry run, publish again. */
export function threadCalls(stage: () => ThreadStage) {
  const { api, upload } = projectApi(() => stage());
  const publish = async (ref: string, body: Record<string, unknown>, key?: string) =>
    (
      await api('post', '/posts', key)
        .send({ ...body, targets: [{ channel_ref: ref }], publish_now: true })
        .expect(201)
    ).body.id as number;
  const post = async (id: number, key?: string) =>
    (await api('get', `/posts/${id}`, key).expect(200)).body as {
      status: string;
      thread: { text: string; media_ids: number[] }[];
      targets: TargetAnswer[];
    };
  const settled = async (id: number, key?: string) => {
    await waitForPostStatus(stage().t, id, ['published', 'failed'], 30_000);
    return post(id, key);
  };
  const preview = async (ref: string, body: Record<string, unknown>) => {
    const res = await api('post', '/posts/validate')
      .send({ ...body, targets: [{ channel_ref: ref }] })
      .expect(200);
    return res.body as {
      valid: boolean;
      errors: { code: string; field: string | null; channel_ref: string | null }[];
      targets: { messages: number; messages_preview: string[] }[];
    };
  };
  return { api, upload, publish, post, settled, preview };
}

/**
 * Runs a post's first delivery as the worker does, and stops it at the gate of `step`: the worker
 * died there, after the steps before were sent and recorded. `meanwhile` runs before the post's
 * own job may run.
 */
export async function deliverUntilKilled(
  t: TestApp,
  create: () => Promise<number>,
  step: number,
  meanwhile: (postId: number) => Promise<void> = async () => undefined,
): Promise<number> {
  let postId = 0;
  await withWorkerPaused(t, async () => {
    postId = await create();
    const repo = t.app.get(PublicationRepository);
    const delivery = t.app.get(TargetDelivery);
    // A wait the gate answers ends the run, as a job comes back later: the next run claims again.
    for (;;) {
      const run = await claimedRun(t, repo, postId);
      let state = delivery.begin(run);
      while (!(state.at === 'gate' && state.step === step)) {
        if (state.at === 'done' || state.at === 'failed')
          throw new Error(`The run ended ${JSON.stringify(state)} before step ${step}`);
        if (state.at === 'later') break;
        state = await delivery.next(run, state);
      }
      if (state.at !== 'later') break;
      await sleep(state.inMs);
    }
    await meanwhile(postId);
  });
  return postId;
}

async function claimedRun(
  t: TestApp,
  repo: PublicationRepository,
  postId: number,
): Promise<DeliveryRun> {
  const claimed = await repo.claim(postId, 1);
  if (!claimed) throw new Error(`Post ${postId} could not be claimed`);
  const [target] = claimed.targets;
  const platform = t.app.get(PlatformRegistry).get(target.platform)!;
  const items = [claimed.text, ...claimed.thread.map((item) => item.text)].map((text) => ({
    text,
    media: [],
  }));
  return {
    job: { postId, attempt: 1 },
    target,
    simulated: false,
    platform,
    publisher: platform.publisher,
    messageUrl: (channel, id) => platform.messageUrl(channel, id),
    steps: planThread(
      platform.publisher,
      threadMessages(platform, target.limits ?? platform.limits, { items, split: false }),
    ),
  };
}

/** Texts cut by hand at the platform's own limit, and the parts each must become. */
export function boundaryCases(stage: ThreadStage): [string, string, string[]][] {
  const max = stage.textMax;
  const x = (n: number) => 'x'.repeat(n);
  const link = `https://example.com/${'p'.repeat(30)}`;
  const familyWidth = stage.unit === 'utf16' ? FAMILY.length : 1;
  const familyFits = max - 2 + 1 + familyWidth <= max;
  const linkWidth = stage.urlLength ?? link.length;
  const linkFits = max - 25 + 1 + linkWidth <= max;
  return [
    ['exactly at the limit: one message', x(max), [x(max)]],
    ['one over: cut at the space', `${x(max - 2)} yy`, [x(max - 2), 'yy']],
    [
      'an emoji across the limit: whole, where the platform counts it',
      `${x(max - 2)} ${FAMILY} z`,
      familyFits ? [`${x(max - 2)} ${FAMILY}`, 'z'] : [x(max - 2), `${FAMILY} z`],
    ],
    [
      'a space carrying a combining mark is no place to cut',
      `${x(max - 4)} ab \u0301cd ef`,
      [x(max - 4), 'ab \u0301cd ef'],
    ],
    [
      'a link across the limit: whole, counted as the platform counts it',
      `${x(max - 25)} ${link} z`,
      linkFits ? [`${x(max - 25)} ${link}`, 'z'] : [x(max - 25), `${link} z`],
    ],
    [
      'the last sentence end before a later space',
      `${x(max - 12)}. Then more words`,
      [`${x(max - 12)}.`, 'Then more words'],
    ],
  ];
}
