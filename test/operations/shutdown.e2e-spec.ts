import { once } from 'node:events';
import { connect } from 'node:net';
import { Factory } from '../support/factories/factories';
import { heraldReady, HeraldProcess, spawnHerald, stopHerald } from '../support/herald-process';
import { fixture } from '../support/factories/media-helpers';
import { RemoteFileServer } from '../support/remote-file-server';
import { TelegramStandIn } from '../support/stand-ins/telegram-stand-in';
import { startTestApp, TEST_REDIS_URL, type TestApp } from '../support/test-app';
import { freePort } from '../support/free-port';
import { waitFor } from '../support/waits';

/** Generous bounds for a machine shared by many test runs; nothing here measures time. */
const START_TIMEOUT_MS = 120_000;
const SHUTDOWN_CAP_MS = 60_000;
const EXIT_BOUND_MS = 90_000;
/** How long the load may take to get every kind of work in hand. */
const LOAD_TIMEOUT_MS = 45_000;
const READERS = 12;
const CREATORS = 4;
const HANG_UPS = 4;
const SLOW_UPLOADS = 3;
/**
 * How long the stand-in takes to hand over the whole slow file; the uploads whose client hangs up
 * fetch a slower one, so that their handlers outlive every connection.
 */
const SLOW_FILE_MS = 1_500;
const SLOWER_FILE_MS = 4_000;

const slowPath = (i: number) => `/slow-${i}.png`;

/** What one request got: an HTTP answer, or no answer at all (connection refused or closed). */
type Outcome =
  | {
      kind: 'answer';
      status: number;
      code?: string;
      message?: string;
      retryAfter: string | null;
      body: Record<string, unknown>;
    }
  | { kind: 'no-answer'; error: string };

async function request(
  base: string,
  method: string,
  path: string,
  auth: string,
  body?: unknown,
  signal?: AbortSignal,
): Promise<Outcome> {
  try {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: auth, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal,
    });
    const json = (await res.json()) as Record<string, unknown>;
    const error = json.error as { code?: string; message?: string } | undefined;
    return {
      kind: 'answer',
      status: res.status,
      code: error?.code,
      message: error?.message,
      retryAfter: res.headers.get('retry-after'),
      body: json,
    };
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause;
    return { kind: 'no-answer', error: cause?.code ?? (error as Error).name };
  }
}

/**
 * A request sent in two parts over a raw connection: its first bytes make the connection busy (so
 * stopping does not close it as idle); `finish` sends the rest and reads the whole answer.
 */
async function splitRequest(base: string, path: string, auth: string) {
  const url = new URL(base);
  const socket = connect(Number(url.port), url.hostname);
  await once(socket, 'connect');
  let raw = '';
  socket.on('data', (chunk: Buffer) => (raw += chunk.toString('latin1')));
  const closed = once(socket, 'close');
  socket.write(`GET ${path} HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: ${auth}\r\n`);
  return {
    async finish(): Promise<Outcome> {
      socket.write('\r\n');
      await closed;
      const [head, body] = raw.split('\r\n\r\n', 2);
      const [statusLine, ...lines] = head.split('\r\n');
      const headers = new Map(
        lines.map((line) => [
          line.slice(0, line.indexOf(':')).toLowerCase(),
          line.slice(line.indexOf(':') + 1).trim(),
        ]),
      );
      const json = JSON.parse(body) as { error?: { code?: string; message?: string } };
      return {
        kind: 'answer',
        status: Number(statusLine.split(' ')[1]),
        code: json.error?.code,
        message: json.error?.message,
        retryAfter: headers.get('retry-after') ?? null,
        body: { connection: headers.get('connection'), ...json },
      };
    },
  };
}

/** A refusal of a request that never started (stopping runs nothing new). */
function isRefusal(outcome: Outcome): boolean {
  if (outcome.kind === 'no-answer') return true;
  return (
    outcome.status === 503 &&
    outcome.code === 'service_unavailable' &&
    outcome.retryAfter !== null &&
    /stopping/.test(outcome.message ?? '')
  );
}

/**
 * SIGTERM under load (docs/api-rules.md#hostile-input-and-outages). A real process (APP_ROLE=all,
 * as `node dist/src/main.js` runs it) gets reads, creates, slow uploads by link, clients that hang
 * up mid-request, and publication jobs waiting on Telegram; then it is stopped. Every request
 * either completes with its normal answer or is refused before it starts; nothing is half-run; the
 * process exits 0 with no error in its log; the publication jobs it held are left consistent, and a
 * worker started afterwards publishes every post exactly once.
 */
describe('Stopping under load', () => {
  let t: TestApp;
  let telegram: TelegramStandIn;
  let remote: RemoteFileServer;
  let env: Record<string, string>;
  let auth: string;
  let projectPath: string;
  let channelRef: string;
  const started: HeraldProcess[] = [];

  function start(role: 'all' | 'worker', port: number): HeraldProcess {
    const herald = spawnHerald(role, port, env);
    started.push(herald);
    return herald;
  }

  beforeAll(async () => {
    telegram = await new TelegramStandIn().start();
    // Sends take a while: publication jobs are in hand when the signal comes.
    telegram.answerAfter(300, 200);
    remote = await new RemoteFileServer('127.0.0.1').start();
    const png = fixture('sample.png');
    for (let i = 0; i < SLOW_UPLOADS * 2; i++)
      remote.route(slowPath(i), (_req, res) => {
        // Half the file at once, the rest later: the upload is mid-flight for a while.
        res.writeHead(200, { 'content-type': 'image/png', 'content-length': png.length });
        res.write(png.subarray(0, png.length >> 1));
        const ms = i < SLOW_UPLOADS ? SLOW_FILE_MS : SLOWER_FILE_MS;
        setTimeout(() => res.end(png.subarray(png.length >> 1)), ms);
      });
    t = await startTestApp({ APP_ROLE: 'api', TELEGRAM_API_BASE_URL: telegram.url });
    const make = new Factory(t, telegram);
    const { owner, project, key } = await make.owner('Shutdown');
    const account = await make.telegramAccount(owner, project);
    channelRef = (await make.channel(owner, account.id)).id;
    auth = `Bearer ${key}`;
    projectPath = `/api/public/v1/projects/${project.id}`;
    env = {
      DATABASE_URL: t.config.databaseUrl,
      REDIS_URL: TEST_REDIS_URL,
      REDIS_KEY_PREFIX: t.config.redisKeyPrefix,
      APP_SECRET: t.config.appSecret,
      MEDIA_STORAGE_DIR: t.mediaDir,
      PUBLIC_BASE_URL: 'http://herald.test',
      TELEGRAM_API_BASE_URL: telegram.url,
      TELEGRAM_BOT_MESSAGES_PER_SECOND: '100000',
      TELEGRAM_CHAT_MESSAGES_PER_MINUTE: '100000',
      MEDIA_FETCH_ALLOW_CIDRS: '127.0.0.1/32',
      RATE_LIMIT_ENABLED: 'false',
      LOG_LEVEL: 'info',
      SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_CAP_MS),
    };
  }, 120_000);

  afterAll(async () => {
    for (const herald of started) await stopHerald(herald, 'SIGKILL');
    await remote?.stop();
    await telegram?.stop();
    await t?.close();
  }, 60_000);

  const ready = (herald: HeraldProcess) => heraldReady(herald, START_TIMEOUT_MS);

  /** Log lines at pino's error level or above, and any pool-after-end message at all. */
  function troubleIn(logs: string): string[] {
    return logs
      .split('\n')
      .filter(
        (line) =>
          /Cannot use a pool after calling end/.test(line) ||
          (line.startsWith('{') && ((JSON.parse(line) as { level?: number }).level ?? 0) >= 50),
      );
  }

  it('finishes every request in flight, refuses the rest before they start, and exits 0 with a clean log', async () => {
    const herald = start('all', await freePort());
    await ready(herald);

    let signalled = false;
    let exited = false;
    void herald.exit.then(() => (exited = true));
    const reads: Outcome[] = [];
    const creates: { text: string; outcome: Outcome }[] = [];
    const hangUps: Outcome[] = [];
    const failuresBeforeSignal: string[] = [];

    // A loop sends requests one after another on its own keep-alive connection until the
    // service has stopped answering; a request that gets no answer before the signal is a defect.
    const loop = async (send: (n: number) => Promise<Outcome>) => {
      for (let n = 0; !exited; n++) {
        const outcome = await send(n);
        if (outcome.kind === 'no-answer' && !signalled) failuresBeforeSignal.push(outcome.error);
        // A client that was refused goes elsewhere, as one behind a load balancer would.
        if (signalled && isRefusal(outcome)) return;
      }
    };
    const loops = [
      ...Array.from({ length: READERS }, () =>
        loop(async () => {
          const outcome = await request(herald.base, 'GET', `${projectPath}/posts?limit=20`, auth);
          reads.push(outcome);
          return outcome;
        }),
      ),
      ...Array.from({ length: CREATORS }, (_, i) =>
        loop(async (n) => {
          const text = `shutdown-${i}-${n}`;
          const outcome = await request(herald.base, 'POST', `${projectPath}/posts`, auth, {
            text,
            targets: [{ channel_ref: channelRef }],
            publish_now: true,
          });
          creates.push({ text, outcome });
          return outcome;
        }),
      ),
      // Clients that hang up mid-request: the handler goes on without them.
      ...Array.from({ length: HANG_UPS }, (_, i) =>
        loop(async (n) => {
          const signal = AbortSignal.timeout(1 + ((i * 7 + n * 3) % 25));
          const outcome = await request(
            herald.base,
            n % 2 ? 'GET' : 'POST',
            `${projectPath}/posts${n % 2 ? '?limit=50' : ''}`,
            auth,
            n % 2
              ? undefined
              : {
                  text: `hang-up-${i}-${n}`,
                  targets: [{ channel_ref: channelRef }],
                  publish_now: true,
                },
            signal,
          );
          // Its own hang-up is no answer from the service.
          if (outcome.kind === 'no-answer' && /Abort|Timeout/.test(outcome.error))
            return { kind: 'answer', status: 0, retryAfter: null, body: {} } as Outcome;
          hangUps.push(outcome);
          return outcome;
        }),
      ),
    ];

    // Slow uploads by link; the client of each of the slower half hangs up once its download
    // has begun.
    const uploadAnswers = Array.from({ length: SLOW_UPLOADS * 2 }, (_, i) => {
      const hangUp = new AbortController();
      if (i >= SLOW_UPLOADS)
        void waitFor(() => remote.hits.includes(slowPath(i)), 60_000).then(
          () => hangUp.abort(),
          () => undefined,
        );
      return request(
        herald.base,
        'POST',
        `${projectPath}/media`,
        auth,
        { url: `http://127.0.0.1:${remote.port}${slowPath(i)}`, filename: `slow-${i}.png` },
        hangUp.signal,
      );
    });

    // A request whose first bytes are in before the signal and the rest after it (within Node's
    // 60 s wait for a request's headers, hence LOAD_TIMEOUT_MS).
    const split = await splitRequest(herald.base, `${projectPath}/posts?limit=1`, auth);

    // The signal comes when every kind of work is in hand: slow downloads, sends to Telegram,
    // requests of every loop.
    await waitFor(
      () =>
        remote.hits.filter((path) => path.startsWith('/slow-')).length === SLOW_UPLOADS * 2 &&
        telegram.callsOf('sendMessage').length >= 3 &&
        reads.length >= READERS &&
        creates.length >= CREATORS,
      LOAD_TIMEOUT_MS,
    ).catch(() => {
      const sends = telegram.callsOf('sendMessage').length;
      const seen = { hits: remote.hits, sends, reads: reads.length, creates: creates.length };
      throw new Error(`not under load: ${JSON.stringify(seen)}\n${herald.logs.slice(-3000)}`);
    });
    herald.child.kill('SIGTERM');
    signalled = true;
    await waitFor(() => herald.logs.includes('Refusing new requests'), EXIT_BOUND_MS);
    const lateArrival = await split.finish();

    let bound: NodeJS.Timeout | undefined;
    const exit = await Promise.race([
      herald.exit,
      new Promise<'timeout'>(
        (resolve) => (bound = setTimeout(() => resolve('timeout'), EXIT_BOUND_MS)),
      ),
    ]).finally(() => clearTimeout(bound));
    await Promise.all(loops);
    const uploads = await Promise.all(uploadAnswers);
    const stored = new Set(
      (await t.db.query<{ text: string }>(`SELECT text FROM posts`)).rows.map((r) => r.text),
    );
    const assets = (
      await t.db.query<{ filename: string }>(`SELECT filename FROM media_assets ORDER BY filename`)
    ).rows.map((r) => r.filename);
    const inFlight = await t.db.query(
      `SELECT id FROM post_targets WHERE sending_since IS NOT NULL`,
    );
    const answered = (o: Outcome, ...statuses: number[]) =>
      o.kind === 'answer' && statuses.includes(o.status);
    expect({
      exit,
      trouble: troubleIn(herald.logs),
      failuresBeforeSignal,
      // Every answer is the request's own, or a refusal before it started; nothing else.
      oddReads: reads.filter((o) => !answered(o, 200) && !isRefusal(o)),
      oddHangUps: hangUps.filter((o) => !answered(o, 200, 201) && !isRefusal(o)),
      oddCreates: creates.filter(({ outcome }) => !answered(outcome, 201) && !isRefusal(outcome)),
      // A 201 is a stored post; a refused create stored nothing: nothing was half-run.
      halfRun: creates.filter(({ text, outcome }) => answered(outcome, 201) !== stored.has(text)),
      // Uploads under way when the signal came finish, whether or not their client stayed.
      slowUploads: uploads.slice(0, SLOW_UPLOADS).map((o) => answered(o, 201)),
      assets,
      // Publication jobs in hand finished: no send is left marked in flight.
      sendsInFlight: inFlight.rows,
      // It is refused before it starts, told when to retry, and its connection closes.
      lateArrival: {
        refused: isRefusal(lateArrival),
        connection: lateArrival.kind === 'answer' && lateArrival.body.connection,
      },
    }).toEqual({
      exit: { code: 0, signal: null },
      trouble: [],
      failuresBeforeSignal: [],
      oddReads: [],
      oddHangUps: [],
      oddCreates: [],
      halfRun: [],
      slowUploads: Array(SLOW_UPLOADS).fill(true),
      assets: Array.from({ length: SLOW_UPLOADS * 2 }, (_, i) => `slow-${i}.png`),
      sendsInFlight: [],
      lateArrival: { refused: true, connection: 'close' },
    });
    expect(reads.filter((o) => answered(o, 200)).length).toBeGreaterThan(0);

    // A worker started afterwards publishes every stored post, each exactly once.
    const worker = start('worker', await freePort());
    await waitFor(async () => {
      if (worker.child.exitCode !== null) throw new Error(`worker exited:\n${worker.logs}`);
      const { rows } = await t.db.query<{ left: string }>(
        `SELECT count(*) AS left FROM posts WHERE status <> 'published'`,
      );
      return rows[0].left === '0';
    }, 180_000);
    const sentTexts = telegram.deliveredOf('sendMessage').map((call) => call.params.text);
    expect(sentTexts.length).toBe(new Set(sentTexts).size);
    expect(new Set(sentTexts)).toEqual(stored);

    // Its stop is in place once it says it started.
    await waitFor(() => worker.logs.includes('Herald worker started'), START_TIMEOUT_MS);
    worker.child.kill('SIGTERM');
    expect(await worker.exit).toEqual({ code: 0, signal: null });
    expect(troubleIn(worker.logs)).toEqual([]);
  }, 600_000);
});
