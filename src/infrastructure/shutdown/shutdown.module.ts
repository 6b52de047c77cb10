import { Global, Module } from '@nestjs/common';
import { InFlightRequests } from './in-flight-requests';

/** Requests and jobs in hand finish before the pool closes. */
@Global()
@Module({ providers: [InFlightRequests], exports: [InFlightRequests] })
export class ShutdownModule {}
