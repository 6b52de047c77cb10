import { Client } from 'pg';
import { Factory } from '../support/factories/factories';
import { startTestApp, TestApp } from '../support/test-app';
import { waitFor } from '../support/waits';

/**
 * Deleting a webhook while a worker records an attempt of one of its sends. The worker's statement
 * locks the send and then its webhook; the delete must take them in the same order, or PostgreSQL
 * finds a deadlock and ends one of them: the integrator's DELETE then answered 500.
 */
describe('Deleting a webhook while an attempt is recorded', () => {
  let t: TestApp;
  let worker: Client;

  beforeAll(async () => {
    // No worker in this process: the test plays the worker's statement itself.
    t = await startTestApp({ APP_ROLE: 'api', OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8' });
    worker = new Client({ connectionString: t.config.databaseUrl });
    await worker.connect();
  });

  afterAll(async () => {
    await worker?.end();
    await t?.close();
  });

  it('waits for the attempt, then deletes: 204, never a 500', async () => {
    const { project, key } = await new Factory(t).owner();
    const api = `/api/public/v1/projects/${project.id}/webhooks`;
    const auth = `Bearer ${key}`;
    const hook = await t.http
      .post(api)
      .set('Authorization', auth)
      .send({ url: 'http://127.0.0.1:9/hook', events: ['post.published'] })
      .expect(201);
    await t.http.post(`${api}/${hook.body.id}/test`).set('Authorization', auth).expect(202);

    // The worker's recording of an attempt: its send first ...
    await worker.query('BEGIN');
    await worker.query(`UPDATE webhook_sends SET attempts = attempts + 1 WHERE webhook_id = $1`, [
      hook.body.id,
    ]);
    const deleting = t.http.delete(`${api}/${hook.body.id}`).set('Authorization', auth).then();
    await waitFor(async () => {
      const { rows } = await t.db.query(
        `SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE datname = current_database() AND wait_event_type = 'Lock'`,
      );
      return rows[0].n > 0;
    });
    // ... then its webhook, while the delete waits.
    await worker.query(`UPDATE webhooks SET failed_events = failed_events + 1 WHERE id = $1`, [
      hook.body.id,
    ]);
    await worker.query('COMMIT');

    const res = await deleting;
    expect([res.status, res.body]).toEqual([204, {}]);
    const { rows } = await t.db.query('SELECT count(*)::int AS n FROM webhooks WHERE id = $1', [
      hook.body.id,
    ]);
    expect(rows[0].n).toBe(0);
  });
});
