import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AppConfig } from '../../../infrastructure/config/config';
import { TelegramApiError, TelegramBotApi, TelegramTransportError } from './telegram-bot-api';

/** The Bot API client against local servers: what each kind of failure becomes. */
describe('TelegramBotApi failures', () => {
  const servers: Server[] = [];
  afterAll(() => Promise.all(servers.map((s) => new Promise((done) => s.close(done)))));

  async function serve(handler: Parameters<typeof createServer>[1]): Promise<string> {
    const server = createServer(handler);
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }
  const api = (base: string) =>
    new TelegramBotApi({ platforms: { telegram: { apiBaseUrl: base } } } as unknown as AppConfig);
  const TOKEN = '123456:secret-token-value';

  it('a refused connection: transport error, never sent, named by its code', async () => {
    const base = await serve(() => undefined);
    servers.pop()!.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const error = await api(base)
      .call(TOKEN, 'sendMessage', { chat_id: 1, text: 'z' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TelegramTransportError);
    expect(error).toMatchObject({
      sent: false,
      message: 'Telegram sendMessage failed: ECONNREFUSED',
    });
  });

  it('no answer in time: transport error that may have been sent, named TimeoutError', async () => {
    const base = await serve(() => undefined); // reads the request, never answers
    const error = await api(base)
      .call(TOKEN, 'sendMessage', { chat_id: 1, text: 'z' }, 200)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TelegramTransportError);
    expect(error).toMatchObject({
      sent: true,
      message: 'Telegram sendMessage failed: TimeoutError',
    });
    expect((error as Error).message).not.toContain(TOKEN);
  });

  it('an answer that is not JSON: API error with the HTTP status', async () => {
    const base = await serve((_req, res) => res.writeHead(502).end('<html>Bad gateway</html>'));
    const error = await api(base)
      .call(TOKEN, 'getMe', {})
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TelegramApiError);
    expect(error).toMatchObject({ errorCode: 502, description: 'Unreadable answer (HTTP 502)' });
  });

  it("Telegram's refusal: its error code, description and retry_after", async () => {
    const base = await serve((_req, res) =>
      res
        .writeHead(429, { 'content-type': 'application/json' })
        .end(
          '{"ok":false,"error_code":429,"description":"Too Many Requests","parameters":{"retry_after":7}}',
        ),
    );
    const error = await api(base)
      .call(TOKEN, 'sendMessage', { chat_id: 1, text: 'z' })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({
      errorCode: 429,
      description: 'Too Many Requests',
      retryAfterSeconds: 7,
    });
  });
});
