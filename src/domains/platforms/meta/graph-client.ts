import { type Dispatcher, request } from 'undici';
import type { Metrics, PlatformCallOutcome } from '../../../infrastructure/metrics/metrics.service';
import type { RateLimitObserver } from '../rate-limit-report';
import { GraphApiError, GraphTransportError, usageReport } from './graph-errors';

const NOT_SENT_CODES = ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH'];

export interface GraphCall {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  params: Record<string, string | undefined>;
}

/** At the operator's address (not an outbound one); the token is a parameter, never in errors. */
export class GraphClient {
  constructor(
    private readonly baseUrl: () => string,
    private readonly platform: string,
    private readonly metrics?: Metrics,
  ) {}

  /** `observe` hears Meta's usage headers on every answer (graph-errors.ts `usageReport`). */
  async call<T>(call: GraphCall, signal: AbortSignal, observe?: RateLimitObserver): Promise<T> {
    const started = performance.now();
    let outcome: PlatformCallOutcome = 'ok';
    try {
      return await this.send<T>(call, signal, observe);
    } catch (error) {
      outcome = error instanceof GraphApiError ? 'api_error' : 'transport_error';
      throw error;
    } finally {
      this.metrics?.platformCall(
        this.platform,
        call.name,
        outcome,
        (performance.now() - started) / 1000,
      );
    }
  }

  private async send<T>(
    call: GraphCall,
    signal: AbortSignal,
    observe?: RateLimitObserver,
  ): Promise<T> {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(call.params))
      if (value !== undefined) params.set(name, value);
    const url = new URL(`${this.baseUrl()}${call.path}`);
    if (call.method === 'GET') url.search = params.toString();
    let response: Dispatcher.ResponseData;
    try {
      response = await request(url, {
        method: call.method,
        headers: {
          accept: 'application/json',
          ...(call.method === 'POST'
            ? { 'content-type': 'application/x-www-form-urlencoded' }
            : {}),
        },
        body: call.method === 'POST' ? params.toString() : undefined,
        signal,
      });
    } catch (error) {
      throw transportError(call.name, error);
    }
    const usage = observe ? usageReport(response.headers) : null;
    if (usage) observe!(usage);
    let body: unknown;
    try {
      body = await response.body.json();
    } catch (error) {
      response.body.destroy();
      if (response.statusCode < 300) throw transportError(call.name, error);
      body = undefined;
    }
    if (response.statusCode >= 200 && response.statusCode < 300) return body as T;
    throw new GraphApiError(response.statusCode, body, response.headers);
  }
}

function transportError(name: string, error: unknown): GraphTransportError {
  const failure = error as { code?: unknown; name?: unknown; cause?: { code?: unknown } };
  const code = [failure.code, failure.cause?.code].find((c) => typeof c === 'string') as
    string | undefined;
  const reason = code ?? (typeof failure.name === 'string' ? failure.name : 'Error');
  return new GraphTransportError(
    `${name} got no answer: ${reason}`,
    !NOT_SENT_CODES.includes(code ?? ''),
  );
}

/** A platform's graph calls; `observing` gives the same calls, each answer's usage read back. */
export abstract class GraphApi {
  protected observe?: RateLimitObserver;

  protected constructor(protected readonly graph: GraphClient) {}

  observing(observe: RateLimitObserver): this {
    const view = Object.create(this) as this;
    view.observe = observe;
    return view;
  }
}
