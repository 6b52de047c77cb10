import { Global, Module } from '@nestjs/common';
import { OutboundDispatchers } from './outbound-dispatchers';
import { HOST_RESOLVER, HostAdmission, systemResolver } from './pinned-address';

/**
 * Requests to URLs that users give (media by link, webhook receivers, instances of platforms): one
 * address policy, one pinned lookup, and the resolver they share (replaceable in tests, which play
 * DNS rebinding).
 */
@Global()
@Module({
  providers: [
    { provide: HOST_RESOLVER, useValue: systemResolver },
    HostAdmission,
    OutboundDispatchers,
  ],
  exports: [HostAdmission, OutboundDispatchers],
})
export class OutboundModule {}
