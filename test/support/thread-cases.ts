import {
  boundaryCases,
  FAMILY,
  deliverUntilKilled,
  threadCalls,
  type MadeMessage,
  type ThreadStage,
} from './threads';

/** Each message replies to the one before it, the first to none. */
function expectChain(made: MadeMessage[]): void {
  made.forEach((message, i) => {
    expect(message.parent).toBe(i === 0 ? null : made[i - 1].id);
    if (message.root !== undefined) expect(message.root).toBe(i === 0 ? null : made[0].id);
  });
}

/**
 * A post's thread on one platform, end to end through the public API against its stand-in: each
 * item a reply to the one before by the platform's own mechanism, every item checked and cut by
 * the platform's rule, and each item delivered exactly once through a lost answer, a worker that
 * died between two items, a refusal and a publication started again.
 */
export function describeThreads(name: string, start: () => Promise<ThreadStage>): void {
  describe(`${name}: threads`, () => {
    let stage: ThreadStage;
    beforeAll(async () => {
      stage = await start();
    });
    afterAll(() => stage?.close());

    const { api, upload, publish, post, settled, preview } = threadCalls(() => stage);
    const texts = (made: MadeMessage[]) => made.map((m) => m.text);

    it('publishes the post and each item with its media, each a reply to the one before', async () => {
      const ref = await stage.channel();
      const [first, second] = [await upload(stage.image), await upload(stage.image)];
      const id = await publish(ref, {
        text: 'Head of the thread',
        media_ids: [first],
        thread: [{ text: 'Second, with its image', media_ids: [second] }, { text: 'Third' }],
      });
      const answer = await settled(id);
      expect(answer.status).toBe('published');
      const made = stage.made(ref);
      expect(texts(made)).toEqual(['Head of the thread', 'Second, with its image', 'Third']);
      expect(made.map((m) => m.media)).toEqual([1, 1, 0]);
      expectChain(made);
      expect(made.map((m) => m.reply)).toEqual([
        undefined,
        stage.replyOf(made[0], made[0]),
        stage.replyOf(made[1], made[0]),
      ]);
      expect(answer.targets[0].messages.map((m) => m.id)).toEqual(made.map((m) => m.id));
      expect(answer.targets[0].url).toBe(answer.targets[0].messages[0].url);
      expect(answer.thread).toEqual([
        { text: 'Second, with its image', media_ids: [second] },
        { text: 'Third', media_ids: [] },
      ]);
    });

    it('checks each item like the post, naming the item and the target, at create and PATCH', async () => {
      const ref = await stage.channel();
      const { text, code, field } = stage.overLimit;
      const body = { text: 'Fine', thread: [{ text: 'Fine too' }, { text }] };
      const refused = await api('post', '/posts')
        .send({ ...body, targets: [{ channel_ref: ref }] })
        .expect(400);
      expect(refused.body.error.code).toBe(code);
      expect(refused.body.error.details).toContainEqual(expect.objectContaining({ field }));
      const draft = await api('post', '/posts')
        .send({ text: 'Fine', targets: [{ channel_ref: ref }] })
        .expect(201);
      const patched = await api('patch', `/posts/${draft.body.id}`)
        .send({ thread: body.thread })
        .expect(400);
      expect(patched.body.error.code).toBe(code);
      await api('patch', `/posts/${draft.body.id}`)
        .send({ thread: [{ text: 'Now fine' }] })
        .expect(200);
      expect((await post(draft.body.id)).thread).toEqual([{ text: 'Now fine', media_ids: [] }]);
    });

    it.each([0, 1, 2, 3, 4, 5])(
      'split_long_text cuts at the platform’s own boundary (case %i), and the dry run shows it',
      async (n) => {
        const [, text, parts] = boundaryCases(stage)[n];
        const ref = await stage.channel();
        // Without it, a text over the limit is refused as before.
        expect((await preview(ref, { text })).valid).toBe(parts.length === 1);
        const split = await preview(ref, { text, split_long_text: true });
        expect(split).toMatchObject({ valid: true, errors: [] });
        expect(split.targets[0].messages_preview).toEqual(parts);
        expect(split.targets[0].messages).toBe(parts.length);
      },
    );

    it('publishes a split text as the dry run showed it, the media on the first message', async () => {
      const ref = await stage.channel();
      // Words and emoji, about three times the limit.
      const text = Array.from({ length: stage.textMax }, (_, i) =>
        i % 7 === 3 ? FAMILY : `w${i % 10}`,
      ).join(' ');
      const media = await upload(stage.image);
      const body = { text, media_ids: [media], split_long_text: true, thread: [{ text: 'End' }] };
      const shown = (await preview(ref, body)).targets[0].messages_preview;
      // Cut at single spaces only: the parts, joined again, are the text.
      expect(shown.slice(0, -1).join(' ')).toBe(text);
      expect(shown.length).toBeGreaterThanOrEqual(3);
      expect(shown.at(-1)).toBe('End');
      expect((await settled(await publish(ref, body))).status).toBe('published');
      const made = stage.made(ref);
      expect(texts(made)).toEqual(shown);
      expect(made.map((m) => m.media)).toEqual(shown.map((_, i) => (i === 0 ? 1 : 0)));
      expectChain(made);
    });

    it('a lost answer after the second item: each item made once, in order', async () => {
      const ref = await stage.channel();
      stage.script('ok', 'drop');
      const id = await publish(ref, { text: 'One', thread: [{ text: 'Two' }, { text: 'Three' }] });
      const answer = await settled(id);
      if (stage.confirmsByKey) {
        expect(answer.status).toBe('published');
        expect(texts(stage.made(ref))).toEqual(['One', 'Two', 'Three']);
        expectChain(stage.made(ref));
        return;
      }
      // No key recognises the send: its outcome stays unknown, and what was recorded is kept.
      expect(answer.targets[0].error?.code).toBe('delivery_unconfirmed');
      expect(answer.targets[0].messages.map((m) => m.id)).toEqual([stage.made(ref)[0].id]);
      expect(texts(stage.made(ref))).toEqual(['One', 'Two']);
    });

    it('a worker killed between two items: the next run starts at the first unsent one', async () => {
      const ref = await stage.channel();
      const id = await deliverUntilKilled(
        stage.t,
        () => publish(ref, { text: 'A', thread: [{ text: 'B' }, { text: 'C' }] }),
        2,
        async () => expect(texts(stage.made(ref))).toEqual(['A', 'B']),
      );
      const answer = await settled(id);
      expect(answer.status).toBe('published');
      const made = stage.made(ref);
      expect(texts(made)).toEqual(['A', 'B', 'C']);
      expectChain(made);
      expect(answer.targets[0].messages.map((m) => m.id)).toEqual(made.map((m) => m.id));
    });

    it('an item refused for good fails the target with the items before it; publishing again sends only the rest', async () => {
      const ref = await stage.channel();
      stage.script('ok', 'refuse');
      const id = await publish(ref, {
        text: 'Kept',
        thread: [{ text: 'Refused' }, { text: 'Last' }],
      });
      const failed = await settled(id);
      expect(failed.status).toBe('failed');
      expect(failed.targets[0].error?.code).toBe(stage.rejected);
      expect(failed.targets[0].messages.map((m) => m.id)).toEqual([stage.made(ref)[0].id]);
      await api('post', `/posts/${id}/publish`).send({}).expect(202);
      const again = await settled(id);
      expect(again.status).toBe('published');
      const made = stage.made(ref);
      expect(texts(made)).toEqual(['Kept', 'Refused', 'Last']);
      expectChain(made);
      expect(again.targets[0].messages.map((m) => m.id)).toEqual(made.map((m) => m.id));
    });

    it('a reply names the parent as recorded: one the platform does not know is answered as it answers', async () => {
      const ref = await stage.channel();
      let unknown = '';
      const id = await deliverUntilKilled(
        stage.t,
        () => publish(ref, { text: 'Real', thread: [{ text: 'Orphan' }] }),
        1,
        async (postId) => {
          const [real] = stage.made(ref);
          // Ten times a numeric id, or another record key: never a message the platform made.
          unknown = /^\d+$/.test(real.id) ? `${real.id}0` : `${real.id.slice(0, -4)}2222`;
          await stage.t.db.query(
            `UPDATE post_targets SET messages = jsonb_set(messages, '{0,id}', to_jsonb($2::text))
              WHERE post_id = $1`,
            [postId, unknown],
          );
        },
      );
      const answer = await settled(id);
      if (stage.unknownParent === 'accepted') {
        expect(answer.status).toBe('published');
        expect(stage.made(ref)[1]).toMatchObject({ text: 'Orphan', parent: unknown });
        return;
      }
      expect(answer.targets[0].error).toEqual({
        code: stage.unknownParent.code,
        message: expect.stringMatching(stage.unknownParent.message),
      });
      expect(texts(stage.made(ref))).toEqual(['Real']);
    });

    it('test mode: as many made-up messages as items, nothing sent', async () => {
      const ref = await stage.channel();
      const id = await publish(
        ref,
        { text: 'Pretend', thread: [{ text: 'Two' }, { text: 'Three' }] },
        stage.testKey,
      );
      const answer = await settled(id, stage.testKey);
      expect(answer.status).toBe('published');
      expect(answer.targets[0].messages).toHaveLength(3);
      for (const message of answer.targets[0].messages)
        expect(message.url).toMatch(/^https:\/\/example\.invalid\//);
      expect(stage.made(ref)).toEqual([]);
    });
  });
}
