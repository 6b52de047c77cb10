import { Global, Module } from '@nestjs/common';
import { OutboundDispatchers } from './outbound-dispatchers';
import { HOST_RESOLVER, HostAdmission, systemResolver } from './pinned-address';

/** One address policy, one pinned lookup, and their resolver (tests play DNS rebinding). */
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
