/** Structured JSON logs (pino). Keys and authorization headers are never logged. */
import { pino, type Logger } from 'pino';
import type { Config } from './config.js';

export type { Logger };

export function createLogger(config: Pick<Config, 'CASHLINE_LOG_LEVEL'>, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level: config.CASHLINE_LOG_LEVEL,
      base: { service: 'cashline' },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: {
        paths: ['req.headers.authorization', 'headers.authorization', 'authorization', 'key', '*.key', 'secret', '*.secret'],
        censor: '[redacted]',
      },
    },
    destination,
  );
}
