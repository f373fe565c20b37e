/**
 * The ledgers the forecast's bands are judged on (docs/forecast.md#measured-bands),
 * set up in a migrated store the same way by test/backtest.test.ts and
 * bench/bands.ts: synthetic books of a seed (a fixed organisation id, since
 * the bands' futures are seeded by it, so every store replays the same ones)
 * and the Online Retail purchase history, converted to Xero bodies and
 * imported.
 */
import { resolve } from 'node:path';
import type { Db } from '../../src/store/db.js';
import { createOrg } from '../../src/store/tenancy.js';
import { insertSynthetic, syntheticLedger, type SyntheticLedger } from '../../src/backtest/synthetic.js';
import { shopLedger } from '../../src/backtest/shop.js';
import { saasLedger } from '../../src/backtest/saas.js';
import { convertOnlineRetail } from '../../src/demo/online-retail.js';
import { importFiles } from '../../src/ledger/import.js';

/** The synthetic books' today. */
export const SYNTH_AS_OF = '2026-06-30';
export const SYNTH_NOW = new Date('2026-06-30T12:00:00Z');

type Generator = (orgId: string, opts: { seed: number; asOf: string }) => SyntheticLedger;

/** Creates an organisation and inserts the books `generate` makes for it as of SYNTH_AS_OF; returns its id and the books. */
async function loadGenerated(db: Db, org: { id: string; name: string; timezone: string; baseCurrency: string }, seed: number, generate: Generator): Promise<{ orgId: string; ledger: SyntheticLedger }> {
  const orgId = (await createOrg(db, { ...org, now: SYNTH_NOW })).orgId;
  const ledger = generate(orgId, { seed, asOf: SYNTH_AS_OF });
  await insertSynthetic(db, ledger);
  return { orgId, ledger };
}

/** Creates the synthetic organisation of `seed` (1-9) and inserts its books; returns its id and the books. */
export const loadSynthetic = (db: Db, seed: number) =>
  loadGenerated(db, { id: `00000000-0000-4000-8000-0000000b000${seed}`, name: 'Synthetic GmbH', timezone: 'Europe/Berlin', baseCurrency: 'EUR' }, seed, syntheticLedger);

/** The synthetic shop's organisation (src/backtest/shop.ts): a café paid by card payouts, with fortnightly wages. */
export const SHOP_ORG_ID = '00000000-0000-4000-8000-0000000c0001';

/** Creates the synthetic shop of `seed` and inserts its books. */
export const loadShop = (db: Db, seed: number) =>
  loadGenerated(db, { id: SHOP_ORG_ID.replace(/1$/, String(seed)), name: 'Corner Café Ltd', timezone: 'Europe/London', baseCurrency: 'GBP' }, seed, shopLedger);

/** The synthetic subscription business's organisation (src/backtest/saas.ts). */
export const SAAS_ORG_ID = '00000000-0000-4000-8000-0000000d0001';

/** Creates the synthetic subscription business of `seed` and inserts its books. */
export const loadSaas = (db: Db, seed: number) =>
  loadGenerated(db, { id: SAAS_ORG_ID.replace(/1$/, String(seed)), name: 'Cloudy Software Ltd', timezone: 'Europe/London', baseCurrency: 'GBP' }, seed, saasLedger);

/** Online Retail's organisation and its today (the data ends on 2011-12-09). */
export const RETAIL_ORG_ID = '00000000-0000-4000-8000-0000000b0011';
export const RETAIL_NOW = new Date('2011-12-10T12:00:00Z');
/** The UCI data set, beside the clone (../shared/data). */
export const RETAIL_CSV = resolve(import.meta.dirname, '..', '..', '..', 'shared', 'data', 'online-retail.csv.gz');

/**
 * Converts and imports the Online Retail purchase history as an organisation
 * of its own; returns its id. Without the documents' lines (541,909 of them:
 * two thirds of the import's time): the replays read when and how much was
 * owed and paid, never what was sold (with and without them, the backtest's
 * figures are the same to the last digit; measured 2026-11-27).
 */
export async function importOnlineRetail(db: Db): Promise<string> {
  const out = await convertOnlineRetail(RETAIL_CSV, { lines: false });
  const { orgId } = await createOrg(db, { id: RETAIL_ORG_ID, name: 'Online Retail', now: RETAIL_NOW, timezone: 'Europe/London', baseCurrency: 'GBP' });
  await importFiles(db, orgId, out.files, { now: RETAIL_NOW });
  return orgId;
}
