import type { NestApplicationOptions } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import type { Express } from 'express';
import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Nest's Express adapter with an HTTP server that builds every request and answer on Express's
 * prototypes from the start.
 *
 * Express gives each request and answer its own prototypes as it takes them
 * (`Object.setPrototypeOf(req, app.request)`, the same for `res`). On V8, an object whose prototype
 * changed after it was built makes everything the request allocates live through two young
 * collections and move to the old generation: measured on a bare Express 5 app, 38% of what a
 * request allocates survived each scavenge, which then took 5–10 ms instead of under 1, and the old
 * generation filled until a full collection. A request built by the server as an instance of
 * `app.request` (and an answer of `app.response`) already has the prototype Express sets, so
 * Express's call changes nothing (bench/README.md, issue 14).
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
        IncomingMessage: requestClass(app.request),
        ServerResponse: responseClass(app.response),
      },
      app,
    );
  }
}

/**
 * A constructor of `IncomingMessage`s whose prototype is `prototype` (Express's `app.request`,
 * itself an `IncomingMessage.prototype` descendant). Node's own constructors are plain functions,
 * so they initialise an object built on another prototype.
 */
function requestClass(prototype: object): typeof IncomingMessage {
  function Request(this: IncomingMessage, socket: Socket) {
    (IncomingMessage as unknown as (this: IncomingMessage, socket: Socket) => void).call(
      this,
      socket,
    );
  }
  Request.prototype = prototype;
  return Request as unknown as typeof IncomingMessage;
}

/** The same for `ServerResponse`s, on Express's `app.response`. */
function responseClass(prototype: object): typeof ServerResponse {
  function Response(this: ServerResponse, req: IncomingMessage, options?: object) {
    (
      ServerResponse as unknown as (
        this: ServerResponse,
        req: IncomingMessage,
        options?: object,
      ) => void
    ).call(this, req, options);
  }
  Response.prototype = prototype;
  return Response as unknown as typeof ServerResponse;
}
