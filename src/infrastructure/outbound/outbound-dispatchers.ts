import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import { Agent, type Dispatcher } from 'undici';
import { AppError } from '../../http/errors/error-codes';
import {
  type AddressPins,
  HostAdmission,
  parseOutboundUrl,
  pinnedLookup,
  type ResolvedAddress,
} from './pinned-address';

/** Worth trying again later. */
export class HostUnresolvedError extends Error {
  constructor(host: string) {
    super(`The host name ${host} could not be resolved`);
  }
}

/** The oldest is closed first. */
const MAX_AGENTS = 256;

const CONNECT_TIMEOUT_MS = 10_000;

/** Each call re-checks its URL and gets a dispatcher that dials only the checked address. */
@Injectable()
export class OutboundDispatchers implements OnApplicationShutdown {
  private readonly agents = new Map<string, Agent>();

  constructor(private readonly hosts: HostAdmission) {}

  /** Throws `invalid_url`, `url_not_allowed` or HostUnresolvedError. */
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
    return this.pinned(url, pins);
  }

  /** For a URL `HostAdmission` has just allowed into `pins`: kept alive, dialling only the pin. */
  pinned(url: URL, pins: AddressPins): Dispatcher {
    const pin = pins.get(url.hostname);
    return pin ? this.agent(url, pin) : this.agentForLiteral(url);
  }

  /** After every queue has drained (their hooks run before this one), so no call opens one anew. */
  async onApplicationShutdown(): Promise<void> {
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

  /** Dialled as it is, without a lookup: nothing to pin. */
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
