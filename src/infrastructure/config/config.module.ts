import { DynamicModule, Global, Inject, Module } from '@nestjs/common';
import { AppConfig } from './config';

export const APP_CONFIG = Symbol('APP_CONFIG');

/** Injects the validated, frozen configuration. */
export const InjectConfig = (): ParameterDecorator => Inject(APP_CONFIG);

@Global()
@Module({})
export class ConfigModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: ConfigModule,
      providers: [{ provide: APP_CONFIG, useValue: config }],
      exports: [APP_CONFIG],
    };
  }
}
