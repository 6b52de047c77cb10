import type {
  PacingSlot,
  PlatformPacing,
  ReserveRequest,
} from '../../src/domains/platforms/platform';
import { planThread } from '../../src/domains/platforms/thread-items';
import { CLOCK, type Clock } from '../../src/domains/publication/clock';
import { PublicationRepository } from '../../src/domains/publication/publication.repository';
import { SendGate } from '../../src/domains/publication/send-gate';
import {
  TargetDelivery,
  type DeliveryRun,
  type DeliveryState,
} from '../../src/domains/publication/target-delivery';
import { type TestChannel, type TestProject } from '../support/factories/factories';
import { publishNow, targetsOf } from '../support/publication';
import {
  resetScripted,
  ScriptedPlatform,
  type ScriptedWorld,
  startWithScriptedPlatform,
} from '../support/scripted-platform';
import { type TestApp } from '../support/test-app';

/** A clock the test moves: a wait ends at once, with the time moved on by it. */
class FakeClock implements Clock {
  time = Date.now();
  readonly waits: number[] = [];

  now(): number {
    return this.time;
  }

  sleep(ms: number): Promise<void> {
    const until = this.time + Math.max(0, ms);
    this.waits.push(ms);
    return Promise.resolve().then(() => {
      this.time = Math.max(this.time, until);
    });
  }
}

/** Answers reservations and admissions from a script (then: booked now, admitted), and records them. */
class ScriptedPacing implements PlatformPacing {
  readonly admitSpacingMs = 0;
  readonly reserves: ReserveRequest[] = [];
  admits = 0;
  roomFor: number[] = [];
  private slots: PacingSlot[] = [];
  private admitWaits: number[] = [];

  script(slots: PacingSlot[], admitWaits: number[] = []): void {
    this.slots = slots;
    this.admitWaits = admitWaits;
  }

  /** The holds a 429 asked for: the account and until when. */
  readonly holds: [number, number][] = [];

  holdAccount(accountId: number, untilMs: number): Promise<void> {
    this.holds.push([accountId, untilMs]);
    return Promise.resolve();
  }

  observe(): Promise<void> {
    return Promise.resolve();
  }

  /** The holders whose sends were answered, in order. */
  readonly settles: string[] = [];

  settle(_accountId: number, _channelId: string, holder: string): Promise<void> {
    this.settles.push(holder);
    return Promise.resolve();
  }

  reset(): void {
    this.holds.length = 0;
    this.reserves.length = 0;
    this.settles.length = 0;
    this.admits = 0;
    this.roomFor = [];
    this.script([]);
  }

  async reserve(request: ReserveRequest): Promise<PacingSlot> {
    this.reserves.push(request);
    const slot = this.slots.shift() ?? { kind: 'booked', waitMs: 0 };
    if (slot.kind === 'booked' && slot.waitMs === 0 && request.admitIfNow)
      return { ...slot, admitWaitMs: slot.admitWaitMs ?? this.admitWaits.shift() ?? 0 };
    return slot;
  }

  async admit(): Promise<number> {
    this.admits++;
    return this.admitWaits.shift() ?? 0;
  }

  hadRoom(accountId: number): boolean {
    return this.roomFor.includes(accountId);
  }

  accountsWithRoom(): number[] {
    return this.roomFor;
  }
}

/**
 * One target's delivery, transition by transition (docs/architecture.md#delivering-one-target):
 * the posts are made through the public API of an app whose worker is off, claimed as the worker
 * claims them, and driven through TargetDelivery one state at a time against a scripted platform
 * and pacing and a clock the test moves, on the real database. A run that stops at a state is a
 * worker that died there; the next run must settle what it left, and send nothing twice.
 */
describe('Delivering one target', () => {
  const platform = new ScriptedPlatform();
  const pacing = new ScriptedPacing();
  platform.pacing = pacing;
  const sends = platform.publisher.sends;
  const clock = new FakeClock();
  let world: ScriptedWorld;
  let t: TestApp;
  let delivery: TargetDelivery;
  let repo: PublicationRepository;
  let project: TestProject;
  let key: string;
  let accountId: number;
  let channel: TestChannel;

  beforeAll(async () => {
    world = await startWithScriptedPlatform(platform, 'Target delivery', {
      env: { PUBLICATION_MAX_TRIES: '2', RATE_LIMIT_CREATE_POST: '1000' },
      overrides: [{ provide: CLOCK, useValue: clock }],
    });
    ({ t, project, key, channel } = world);
    accountId = world.account.id;
    delivery = t.app.get(TargetDelivery);
    repo = t.app.get(PublicationRepository);
  });
  afterAll(() => world?.close());
  beforeEach(() => {
    resetScripted(platform);
    pacing.reset();
    clock.waits.length = 0;
  });

  /** A post's one target as the worker's claim hands it over, ready to drive. */
  async function claimed(postId: number, simulated = false): Promise<DeliveryRun> {
    const post = await repo.claim(postId, 1, pacing.accountsWithRoom());
    if (!post) throw new Error(`Post ${postId} could not be claimed`);
    const steps = platform.publisher.plan(post.text, []);
    return {
      job: { postId, attempt: 1 },
      target: post.targets[0],
      simulated,
      platform,
      publisher: platform.publisher,
      messageUrl: (ch, id) => platform.messageUrl(ch, id),
      steps,
    };
  }

  /**
   * Drives a run until a final state, or until the state `stopAt` names or matches (the worker dies
   * there); returns the path.
   */
  async function drive(
    run: DeliveryRun,
    stopAt?: DeliveryState['at'] | ((state: DeliveryState) => boolean),
  ): Promise<DeliveryState[]> {
    const stops =
      typeof stopAt === 'function' ? stopAt : (state: DeliveryState) => state.at === stopAt;
    const path: DeliveryState[] = [];
    let state = delivery.begin(run);
    path.push(state);
    while (state.at !== 'done' && state.at !== 'later' && state.at !== 'failed') {
      if (stops(state)) return path;
      state = await delivery.next(run, state);
      path.push(state);
    }
    if (state.at === 'failed') await repo.failTarget(run.target.id, state.code, state.message);
    return path;
  }

  const newPost = (text: string) => publishNow(t, project.id, key, channel.id, text);
  const at = (path: DeliveryState[]) => path.map((state) => state.at);

  /** What a dead worker leaves: its mark grows old (the database's clock, moved past the wait). */
  async function markOlderThanSendTimeout(postId: number): Promise<void> {
    await t.db.query(
      `UPDATE post_targets SET sending_since = sending_since - interval '1 hour' WHERE post_id = $1`,
      [postId],
    );
  }

  async function sendingSince(postId: number): Promise<string | null> {
    const { rows } = await t.db.query<{ sending_since: string | null }>(
      'SELECT sending_since FROM post_targets WHERE post_id = $1',
      [postId],
    );
    return rows[0].sending_since;
  }

  describe('the way through', () => {
    it('gate, send, record, done: one send, and the post published with the last step', async () => {
      const postId = await newPost('One step');
      const path = await drive(await claimed(postId));
      expect(at(path)).toEqual(['gate', 'send', 'record', 'done']);
      expect(path.at(-1)).toEqual({ at: 'done', postPublished: true });
      expect(sends.map((s) => s.text)).toEqual(['One step']);
      expect(await targetsOf(t, postId)).toEqual([
        expect.objectContaining({ status: 'published', message_ids: [expect.any(Number)] }),
      ]);
    });

    it('a target of two steps passes the gate once per step, each with its own key', async () => {
      const postId = await newPost('first||second');
      const path = await drive(await claimed(postId));
      expect(at(path)).toEqual(['gate', 'send', 'record', 'gate', 'send', 'record', 'done']);
      expect(sends.map((s) => s.text)).toEqual(['first', 'second']);
      expect(sends[0].target.key).not.toBe(sends[1].target.key);
      expect(pacing.reserves.map((r) => r.holder)).toHaveLength(2);
      // Each answered send is handed back to its pacing, which counts long windows from then.
      expect(pacing.settles).toEqual(pacing.reserves.map((r) => r.holder));
    });
  });

  describe('a thread', () => {
    const thread = (...texts: string[]) =>
      planThread(
        platform.publisher,
        texts.map((text) => ({ text, media: [] })),
      );

    it('each item passes the gate and replies to the message recorded before it, also after a worker died between two', async () => {
      const postId = await newPost('head');
      const first = await claimed(postId);
      first.steps = thread('head', 'two', 'three');
      // The worker dies at the gate of the third item: two sent and recorded.
      await drive(first, (state) => state.at === 'gate' && state.step === 2);
      const next = await claimed(postId);
      next.steps = thread('head', 'two', 'three');
      expect(next.target.messages.map((m) => m.id)).toHaveLength(2);
      expect(at(await drive(next))).toEqual(['gate', 'send', 'record', 'done']);
      const [{ message_ids: ids }] = await targetsOf(t, postId);
      expect(sends.map((s) => s.text)).toEqual(['head', 'two', 'three']);
      expect(sends.map((s) => s.target.replyTo ?? null)).toEqual([
        null,
        { parent: { id: String(ids[0]) }, root: { id: String(ids[0]) } },
        { parent: { id: String(ids[1]) }, root: { id: String(ids[0]) } },
      ]);
      expect(new Set(sends.map((s) => s.target.key)).size).toBe(3);
      // Every item is paced as a message of its own.
      expect(pacing.reserves.map((r) => [r.holder, r.cost])).toEqual(
        [0, 1, 2].map((step) => [expect.stringMatching(new RegExp(`:${step}$`)), 1]),
      );
    });
  });

  describe('the gate', () => {
    it('an account that had room: the claim marks the send, and the slot and its admission are one call', async () => {
      pacing.roomFor = [accountId];
      const postId = await newPost('Marked by the claim');
      const run = await claimed(postId);
      expect(run.target.marked).toBe(true);
      expect(await drive(run)).toContainEqual({ at: 'done', postPublished: true });
      expect(pacing.reserves).toEqual([expect.objectContaining({ admitIfNow: true })]);
      expect(pacing.admits).toBe(0);
    });

    it('a slot ahead: marked in flight shortly before it, then admitted at it', async () => {
      pacing.script([{ kind: 'booked', waitMs: 600 }]);
      const postId = await newPost('A slot ahead');
      const started = clock.now();
      const path = await drive(await claimed(postId));
      expect(at(path)).toEqual(['gate', 'send', 'record', 'done']);
      expect(clock.waits).toEqual([600, 350]);
      expect(clock.now() - started).toBe(600);
      expect(pacing.admits).toBe(1);
    });

    it('a busy channel, soon free: waits for it in the job, then asks again holding its slot', async () => {
      pacing.script([{ kind: 'channel_busy', waitMs: 400 }]);
      const postId = await newPost('Busy channel, short wait');
      const path = await drive(await claimed(postId));
      expect(at(path)).toEqual(['gate', 'send', 'record', 'done']);
      expect(pacing.reserves.map((r) => r.holdsChannel)).toEqual([false, true]);
      expect(clock.waits[0]).toBe(400);
    });

    it('a busy channel, free later: the slot is held on the target and the next run waits for it', async () => {
      pacing.script([{ kind: 'channel_busy', waitMs: 5_000 }]);
      const postId = await newPost('Busy channel, long wait');
      expect(await drive(await claimed(postId))).toEqual([
        { at: 'gate', step: 0, retry: false, first: true },
        { at: 'later', inMs: 5_000 },
      ]);
      expect(sends).toHaveLength(0);
      expect(await sendingSince(postId)).toBeNull();

      // Back too early (a sweep re-enqueued it): nothing is asked of the pacing.
      const early = await drive(await claimed(postId));
      expect(at(early)).toEqual(['gate', 'later']);
      expect(pacing.reserves).toHaveLength(1);

      clock.time += 5_000;
      const back = await drive(await claimed(postId));
      expect(at(back)).toEqual(['gate', 'send', 'record', 'done']);
      expect(pacing.reserves.at(-1)).toEqual(expect.objectContaining({ holdsChannel: true }));
    });

    it("an account booked far ahead: the job gives its worker slot back and the claim's mark with it", async () => {
      pacing.roomFor = [accountId];
      pacing.script([{ kind: 'saved', waitMs: 9_000 }]);
      const postId = await newPost('Saved slot');
      const run = await claimed(postId);
      expect(run.target.marked).toBe(true);
      expect(at(await drive(run))).toEqual(['gate', 'later']);
      expect(await sendingSince(postId)).toBeNull();
      expect(at(await drive(await claimed(postId)))).toEqual(['gate', 'send', 'record', 'done']);
      expect(sends).toHaveLength(1);
    });

    it('a saved slot answers later, a little before it, with nothing in flight', async () => {
      pacing.script([{ kind: 'saved', waitMs: 9_000 }]);
      const postId = await newPost('Saved slot, nothing marked');
      const path = await drive(await claimed(postId));
      expect(path.at(-1)).toEqual({ at: 'later', inMs: 8_250 });
      expect(await sendingSince(postId)).toBeNull();
      expect(sends).toHaveLength(0);
    });

    it('a full window at admission: a short wait is waited for, a long one gives the mark back', async () => {
      pacing.script([{ kind: 'booked', waitMs: 300 }], [800, 0]);
      const short = await newPost('Short admission wait');
      expect(at(await drive(await claimed(short)))).toEqual(['gate', 'send', 'record', 'done']);
      expect(pacing.admits).toBe(2);

      pacing.script([{ kind: 'booked', waitMs: 300 }], [60_000]);
      const long = await newPost('Long admission wait');
      expect((await drive(await claimed(long))).at(-1)).toEqual({ at: 'later', inMs: 60_000 });
      expect(await sendingSince(long)).toBeNull();
    });

    it('with no place in the wait room, nothing is waited for in the job: it comes back for its turn', async () => {
      const gate = t.app.get(SendGate);
      let taken = 0;
      while (gate.room.take()) taken++;
      try {
        expect(taken).toBe(gate.room.places);
        // A busy channel soon free: its slot is held on the target, as for a long wait.
        pacing.script([{ kind: 'channel_busy', waitMs: 400 }]);
        const busy = await newPost('No place, busy channel');
        expect((await drive(await claimed(busy))).at(-1)).toEqual({ at: 'later', inMs: 400 });
        // A slot a moment ahead is saved for it, and it comes back at the slot itself.
        pacing.script([{ kind: 'saved', waitMs: 600 }]);
        const ahead = await newPost('No place, slot ahead');
        expect((await drive(await claimed(ahead))).at(-1)).toEqual({ at: 'later', inMs: 600 });
        expect(pacing.reserves.at(-1)).toEqual(expect.objectContaining({ saveAfterMs: 0 }));
        // A full window at admission: the claim's mark is given back.
        pacing.roomFor = [accountId];
        pacing.script([{ kind: 'booked', waitMs: 0 }], [300]);
        const full = await newPost('No place, full window');
        expect((await drive(await claimed(full))).at(-1)).toEqual({ at: 'later', inMs: 300 });
        expect(await sendingSince(full)).toBeNull();
        expect(clock.waits).toEqual([]);
        expect(sends).toHaveLength(0);
      } finally {
        for (; taken > 0; taken--) gate.room.leave();
      }
      // With a place again, the same short wait is waited for in the job.
      pacing.roomFor = [];
      pacing.script([{ kind: 'channel_busy', waitMs: 400 }]);
      expect(at(await drive(await claimed(await newPost('A place again'))))).toEqual([
        'gate',
        'send',
        'record',
        'done',
      ]);
      expect(clock.waits[0]).toBe(400);
    });

    it('a simulated send is marked in flight and never paced', async () => {
      pacing.roomFor = [accountId];
      const postId = await newPost('Simulated');
      const run = await claimed(postId, true);
      expect(at(await drive(run))).toEqual(['gate', 'send', 'record', 'done']);
      expect(pacing.reserves).toHaveLength(0);
      expect(pacing.admits).toBe(0);
      expect(pacing.settles).toHaveLength(0);
    });

    it('another run holding the target: this one stops, sending nothing', async () => {
      const postId = await newPost('Held elsewhere');
      const run = await claimed(postId);
      await repo.startSend(run.target.id, 0);
      expect(at(await drive(run))).toEqual(['gate', 'done']);
      expect(sends).toHaveLength(0);
    });
  });

  describe('after a failed send', () => {
    it('a rate-limit answer: later, by the platform’s wait, no try spent', async () => {
      platform.publisher.answer({ failure: 'rate_limited', message: '429', retryAfterMs: 7_000 });
      const postId = await newPost('Slow down');
      const before = Date.now();
      const run = await claimed(postId);
      expect((await drive(run)).at(-1)).toEqual({ at: 'later', inMs: 7_000 });
      // Every worker's sends of the account wait out the platform's answer, not this target's only.
      expect(pacing.holds).toEqual([[run.target.account_id, expect.any(Number)]]);
      expect(pacing.holds[0][1]).toBeGreaterThanOrEqual(before + 7_000);
      expect(at(await drive(await claimed(postId)))).toEqual(['gate', 'send', 'record', 'done']);
      expect(sends.map((s) => s.target.retry)).toEqual([false, false]);
      // The refused send too: whether the platform counted it is not for Herald to guess.
      expect(pacing.settles).toEqual([`${run.target.id}:0`, `${run.target.id}:0`]);
    });

    it('a transient failure: later with backoff, then failed delivery_failed once the tries are spent', async () => {
      platform.publisher.answer(
        { failure: 'transient', message: 'HTTP 502' },
        { failure: 'transient', message: 'HTTP 502' },
      );
      const postId = await newPost('Never lucky');
      expect((await drive(await claimed(postId))).at(-1)).toEqual(
        expect.objectContaining({ at: 'later' }),
      );
      expect((await drive(await claimed(postId))).at(-1)).toEqual({
        at: 'failed',
        code: 'delivery_failed',
        message: 'Not delivered after 2 tries: HTTP 502',
      });
      expect(await targetsOf(t, postId)).toEqual([
        expect.objectContaining({ status: 'failed', error_code: 'delivery_failed' }),
      ]);
    });

    it("a refusal with the platform's own code fails with that code", async () => {
      platform.publisher.answer({
        failure: 'rejected',
        message: 'Bad Request: chat not found',
        errorCode: 'telegram_rejected',
      });
      const postId = await newPost('Refused');
      expect((await drive(await claimed(postId))).at(-1)).toEqual({
        at: 'failed',
        code: 'telegram_rejected',
        message: 'Bad Request: chat not found',
      });
    });
  });

  describe('a worker that died between two states', () => {
    it('after the gate, before the send: the outcome is unknown, so it fails delivery_unconfirmed and never sends', async () => {
      const postId = await newPost('Died before sending');
      expect(at(await drive(await claimed(postId), 'send'))).toEqual(['gate', 'send']);
      expect(await sendingSince(postId)).not.toBeNull();

      // Within the send's time the first run may still be waiting for its answer.
      expect((await drive(await claimed(postId))).at(-1)).toEqual(
        expect.objectContaining({ at: 'later' }),
      );
      await markOlderThanSendTimeout(postId);
      const path = await drive(await claimed(postId));
      expect(at(path)).toEqual(['settle', 'failed']);
      expect(path.at(-1)).toEqual(expect.objectContaining({ code: 'delivery_unconfirmed' }));
      expect(sends).toHaveLength(0);
    });

    it('after the send, before the record, on a platform that recognises the key: sent again with the same key, marked a retry', async () => {
      platform.confirmsByKey = true;
      const postId = await newPost('Died after sending');
      await drive(await claimed(postId), 'record');
      expect(sends).toHaveLength(1);

      await markOlderThanSendTimeout(postId);
      const path = await drive(await claimed(postId));
      expect(at(path)).toEqual(['settle', 'gate', 'send', 'record', 'done']);
      expect(sends[1].target.key).toBe(sends[0].target.key);
      expect(sends.map((s) => s.target.retry)).toEqual([false, true]);
    });

    it('after the first of two steps is recorded: the next run starts at the second, never repeating the first', async () => {
      const postId = await newPost('one||two');
      const first = await drive(
        await claimed(postId),
        (state) => state.at === 'send' && state.step === 1,
      );
      // Stopped at the second step's send: its mark is there, the first step is recorded.
      expect(at(first)).toEqual(['gate', 'send', 'record', 'gate', 'send']);
      await markOlderThanSendTimeout(postId);
      platform.confirmsByKey = true;
      const second = await drive(await claimed(postId));
      expect(at(second)).toEqual(['settle', 'gate', 'send', 'record', 'done']);
      expect(sends.map((s) => s.text)).toEqual(['one', 'two']);
    });

    it('after the send, before the record, on a platform that cannot recognise the key: delivery_unconfirmed, never sent again', async () => {
      const postId = await newPost('Answer lost with the worker');
      const run = await claimed(postId);
      // The worker's record transition never ran: the platform's answer is lost with the worker.
      expect((await drive(run, 'record')).at(-1)!.at).toBe('record');
      await markOlderThanSendTimeout(postId);
      const path = await drive(await claimed(postId));
      expect(at(path)).toEqual(['settle', 'failed']);
      expect(sends).toHaveLength(1);
    });
  });
});
