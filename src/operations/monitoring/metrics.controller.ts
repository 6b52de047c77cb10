import { Controller, Get, Res, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { OpenRoute } from '../../access/decorators';
import { Metrics } from '../../infrastructure/metrics/metrics.service';
import { MetricsTokenGuard } from './metrics-token.guard';

/** An operator's endpoint in Prometheus' text format, left out of the OpenAPI document. */
@Controller('metrics')
@OpenRoute()
@ApiExcludeController()
export class MetricsController {
  constructor(private readonly metrics: Metrics) {}

  @Get()
  @UseGuards(MetricsTokenGuard)
  async scrape(@Res() res: Response): Promise<void> {
    const { contentType, body } = await this.metrics.render();
    res.status(200).setHeader('Content-Type', contentType);
    res.end(body);
  }
}
