import { Injectable, Optional } from '@nestjs/common';
import type { AppConfig } from '../../../infrastructure/config/config';
import { InjectConfig } from '../../../infrastructure/config/config.module';
import { Metrics } from '../../../infrastructure/metrics/metrics.service';
import { FacebookGraph } from './facebook-graph';

/** The Graph API as Facebook pages use it, its calls counted under `facebook`. */
@Injectable()
export class FacebookApi extends FacebookGraph {
  constructor(@InjectConfig() config: AppConfig, @Optional() metrics?: Metrics) {
    super(config, 'facebook', metrics);
  }
}
