import { appRoutes } from '@bull-board/api/dist/routes.js';
import { getQueueToken } from '@nestjs/bull';

import type { Queue } from 'bull';
import type { Test } from 'supertest';

import { runCli } from '../../src/operations/cli/commands';

import { Factory, SignedInUser } from '../support/factories/factories';

import { startTestApp, TestApp } from '../support/test-app';

/**
 * The queue dashboard and its API, by global role: only operators get in, whatever else a user
 * is. An administrator (who may create API keys) is refused every route of the board like anyone.
 */
describe('Permission matrix: the queue dashboard by global role', () => {
  type Role = 'member' | 'administrator' | 'operator' | 'administrator and operator';
  const ROLES: Role[] = ['member', 'administrator', 'operator', 'administrator and operator'];
  const opens = (role: Role) => role.includes('operator');
  let t: TestApp;
  const users = new Map<Role, SignedInUser>();

  /** Every route of Bull Board's API, with its parameters filled in. */
  const BOARD_ROUTES = (appRoutes.api as { method: string; route: string }[]).map(
    ({ method, route }) => ({
      method,
      path: `/admin/queues${route
        .replace(':queueName', 'publication')
        .replace(':jobId', 'post:1:1')
        .replace(':queueStatus', 'failed')
        .replace(':schedulerId', 'none')}`,
    }),
  );

  beforeAll(async () => {
    t = await startTestApp({ APP_ROLE: 'api' });
    const make = new Factory(t);
    users.set('member', await make.user('Member'));
    users.set('administrator', await make.admin('Administrator'));
    users.set('operator', await make.operator('Operator'));
    const both = await make.admin('Both');
    expect(await runCli(['grant-operator', both.email], t.config, { out: () => undefined })).toBe(
      0,
    );
    users.set('administrator and operator', both);
  });

  afterAll(() => t?.close());

  it.each(ROLES)('the dashboard page and its queue list as %s', async (role) => {
    const auth = users.get(role)!.auth;
    const page = await t.http.get('/admin/queues').set('Authorization', auth);
    const list = await t.http.get('/admin/queues/api/queues').set('Authorization', auth);
    expect([page.status, list.status]).toEqual(opens(role) ? [200, 200] : [403, 403]);
  });

  it.each(ROLES.filter((role) => !opens(role)))(
    'every action of the board’s API is refused to %s',
    async (role) => {
      const auth = users.get(role)!.auth;
      expect(BOARD_ROUTES.length).toBeGreaterThan(30);
      for (const { method, path } of BOARD_ROUTES) {
        const call = (t.http as unknown as Record<string, (url: string) => Test>)[method];
        const res = await call(path).set('Authorization', auth).send({});
        expect([method, path, res.status, res.body?.error?.code]).toEqual([
          method,
          path,
          403,
          'forbidden',
        ]);
      }
    },
  );

  it.each(ROLES.filter(opens))('pausing and resuming the queue as %s', async (role) => {
    const auth = users.get(role)!.auth;
    const queue = t.app.get<Queue>(getQueueToken('publication'));
    await t.http
      .put('/admin/queues/api/queues/publication/pause')
      .set('Authorization', auth)
      .expect(200);
    expect(await queue.isPaused()).toBe(true);
    await t.http
      .put('/admin/queues/api/queues/publication/resume')
      .set('Authorization', auth)
      .expect(200);
    expect(await queue.isPaused()).toBe(false);
  });
});
