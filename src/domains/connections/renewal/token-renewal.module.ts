import { Module } from '@nestjs/common';
import { TokenRenewalRepository } from './token-renewal.repository';
import { TokenRenewals } from './token-renewals';
import { TokenSweep } from './token-sweep';

/** Expiring access tokens kept alive: at a send (TokenRenewals) and by a periodic sweep. */
@Module({
  providers: [TokenRenewalRepository, TokenRenewals, TokenSweep],
  exports: [TokenRenewals],
})
export class TokenRenewalModule {}
