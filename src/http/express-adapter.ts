import type { NestApplicationOptions } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import type { Express } from 'express';
import { createServer, IncomingMessage, ServerResponse } from 'node:http';

/** Requests and answers built on Express's prototypes (docs/performance.md#express-prototypes). */
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

/** Node's IncomingMessage and ServerResponse can initialise an object of another prototype. */
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
