/** Customer and business analytics (pure; no I/O). docs/analytics.md. */
export * from './stats.js';
export * from './customer.js';
export * from './cohorts.js';
export * from './organisation.js';
export * from './summary.js';
