import { Injectable, Optional } from '@nestjs/common';
import type { AppConfig } from '../../../infrastructure/config/config';
import { InjectConfig } from '../../../infrastructure/config/config.module';
import { Metrics } from '../../../infrastructure/metrics/metrics.service';
import { FacebookGraph } from '../meta/facebook-graph';

/** The Graph API as Instagram professional accounts use it, its calls counted under `instagram`. */
@Injectable()
export class InstagramApi extends FacebookGraph {
  constructor(@InjectConfig() config: AppConfig, @Optional() metrics?: Metrics) {
    super(config, 'instagram', metrics);
  }
}
