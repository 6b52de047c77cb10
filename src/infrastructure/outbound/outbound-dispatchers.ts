import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { Agent, type Dispatcher } from 'undici';
import { AppError } from '../../http/errors/error-codes';
import {
  type AddressPins,
  HostAdmission,
  parseOutboundUrl,
  pinnedLookup,
  type ResolvedAddress,
} from './pinned-address';

/** The host name of a user-given address did not resolve: worth trying again later. */
export class HostUnresolvedError extends Error {
  constructor(host: string) {
    super(`The host name ${host} could not be resolved`);
  }
}

/** Connections kept open to this many checked addresses at most; the oldest is closed first. */
const MAX_AGENTS = 256;

const CONNECT_TIMEOUT_MS = 10_000;

/**
 * Dispatchers for calls to addresses users gave (a platform's instance or service): each call
 * checks its URL under the outbound rules again (`OUTBOUND_ALLOW_CIDRS`: public addresses only
 * unless listed), and gets a dispatcher that can only dial the address that was checked, so a
 * second DNS answer is never used. Calls to the same checked address share a dispatcher and its
 * kept-alive connections.
 */
@Injectable()
export class OutboundDispatchers implements OnModuleDestroy {
  private readonly agents = new Map<string, Agent>();

  constructor(private readonly hosts: HostAdmission) {}

  /**
   * The dispatcher for a call to `raw`. Throws `invalid_url` (not an absolute http(s) URL without
   * credentials), `url_not_allowed` (a local or private address) or HostUnresolvedError. `use` ends
   * the refusal of another scheme ("Only http and https URLs can {use}").
   */
  async for(raw: string, use: string): Promise<Dispatcher> {
    const url = parseOutboundUrl(raw, use);
    const pins: AddressPins = new Map();
    switch (await this.hosts.admit(url, pins)) {
      case 'not_allowed':
        throw new AppError(
          'url_not_allowed',
          `${url.origin} is a local or private address, which Herald does not call`,
        );
      case 'unresolved':
        throw new HostUnresolvedError(url.hostname);
    }
    const pin = pins.get(url.hostname);
    return pin ? this.agent(url, pin) : this.agentForLiteral(url);
  }

  async onModuleDestroy(): Promise<void> {
    const agents = [...this.agents.values()];
    this.agents.clear();
    await Promise.all(agents.map((agent) => agent.close()));
  }

  private agent(url: URL, pin: ResolvedAddress): Agent {
    const key = `${url.protocol}//${url.host}|${pin.address}`;
    const found = this.agents.get(key);
    if (found) return found;
    const pins: AddressPins = new Map([[url.hostname, pin]]);
    return this.keep(
      key,
      new Agent({ connect: { lookup: pinnedLookup(pins), timeout: CONNECT_TIMEOUT_MS } }),
    );
  }

  /** An IP literal is dialled as it is, without a lookup: nothing to pin. */
  private agentForLiteral(url: URL): Agent {
    const key = `${url.protocol}//${url.host}`;
    return (
      this.agents.get(key) ??
      this.keep(key, new Agent({ connect: { timeout: CONNECT_TIMEOUT_MS } }))
    );
  }

  private keep(key: string, agent: Agent): Agent {
    if (this.agents.size >= MAX_AGENTS) {
      const [oldestKey, oldest] = this.agents.entries().next().value as [string, Agent];
      this.agents.delete(oldestKey);
      void oldest.close().catch(() => undefined);
    }
    this.agents.set(key, agent);
    return agent;
  }
}
