import { Global, Module } from '@nestjs/common';
import { HOST_RESOLVER, HostAdmission, systemResolver } from './pinned-address';

/**
 * Requests to URLs that users give (media by link, webhook receivers): one address policy, one
 * pinned lookup, and the resolver they share (replaceable in tests, which play DNS rebinding).
 */
@Global()
@Module({
  providers: [{ provide: HOST_RESOLVER, useValue: systemResolver }, HostAdmission],
  exports: [HostAdmission],
})
export class OutboundModule {}
