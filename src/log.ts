/**
 * Structured JSON logs (pino), level from CASHLINE_LOG_LEVEL. Keys, secrets
 * and authorization headers are never logged: the API logs no headers at all
 * (only a key's public prefix), and the redact list below censors them should
 * anything pass such an object to the logger.
 */
import { pino, type Logger } from 'pino';
import type { Config } from './config.js';

export type { Logger };

export const REDACT_PATHS = [
  'authorization',
  'Authorization',
  'headers.authorization',
  'headers.Authorization',
  'req.headers.authorization',
  'request.headers.authorization',
  '*.authorization',
  'key',
  '*.key',
  'apiKey',
  '*.apiKey',
  'secret',
  '*.secret',
  'secretHash',
  '*.secretHash',
  'token',
  '*.token',
  // The ledger's OAuth tokens (camelCase in our objects, snake_case in Xero's bodies) and the keys that seal them.
  'accessToken',
  '*.accessToken',
  'refreshToken',
  '*.refreshToken',
  'access_token',
  '*.access_token',
  'refresh_token',
  '*.refresh_token',
  'tokens',
  '*.tokens',
  'encryptionKey',
  '*.encryptionKey',
  'CASHLINE_ENCRYPTION_KEY',
  '*.CASHLINE_ENCRYPTION_KEY',
  'CASHLINE_ENCRYPTION_OLD_KEYS',
  '*.CASHLINE_ENCRYPTION_OLD_KEYS',
  'password',
  '*.password',
];

export function createLogger(config: Pick<Config, 'CASHLINE_LOG_LEVEL'>, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level: config.CASHLINE_LOG_LEVEL,
      base: { service: 'cashline' },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    },
    destination,
  );
}
