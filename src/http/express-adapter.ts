import type { NestApplicationOptions } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import type { Express } from 'express';
import { createServer, IncomingMessage, ServerResponse } from 'node:http';

/**
 * Nest's Express adapter with an HTTP server that builds every request and answer on Express's
 * prototypes from the start.
 *
 * Express gives each request and answer its own prototypes as it takes them
 * (`Object.setPrototypeOf(req, app.request)`, the same for `res`). On V8, an object whose prototype
 * changed after it was built makes much of what the request allocates survive young collections
 * and move to the old generation. A request built by the server as an instance of `app.request`
 * (and an answer of `app.response`) already has the prototype Express sets, so Express's call
 * changes nothing. Saves long scavenges under load (docs/performance.md#express-prototypes).
 *
 * HTTPS and `forceCloseConnections` (which Herald does not use) keep Nest's own server.
 */
export class HeraldExpressAdapter extends ExpressAdapter {
  override initHttpServer(options: NestApplicationOptions): void {
    if (options?.httpsOptions || options?.forceCloseConnections) {
      super.initHttpServer(options);
      return;
    }
    const app = this.getInstance<Express>();
    this.httpServer = createServer(
      {
        IncomingMessage: onPrototype(IncomingMessage, app.request),
        ServerResponse: onPrototype(ServerResponse, app.response),
      },
      app,
    );
  }
}

/**
 * A constructor that builds its objects on `prototype` (Express's `app.request` or `app.response`,
 * descendants of `base.prototype`) and initialises them with `base`: Node's `IncomingMessage` and
 * `ServerResponse` are plain functions, so they initialise an object built on another prototype.
 */
function onPrototype<T extends typeof IncomingMessage | typeof ServerResponse>(
  base: T,
  prototype: object,
): T {
  const init = base as unknown as (this: object, ...args: unknown[]) => void;
  function Built(this: object, ...args: unknown[]) {
    init.apply(this, args);
  }
  Built.prototype = prototype;
  return Built as unknown as T;
}
