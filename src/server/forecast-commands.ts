/**
 * Forecast operations of `cashline-server` (docs/forecast.md#operations):
 *
 *   recompute --org ID                     (src/server/ledger-commands.ts) the baselines, then this forecast recompute
 *   forecast recompute --org ID            the forecast snapshots of every scenario, now (CASHLINE_NOW)
 *   forecast override set --org ID --amount DEC [--note T]
 *   forecast override clear --org ID       the operator's opening cash (source manual)
 *   forecast buffer set --org ID --amount DEC
 *   forecast buffer clear --org ID         the cash buffer (the shortfall threshold; default 0)
 *   forecast scenario set --org ID --id ID --name N [--inflow-factor F] [--outflow-factor F]
 *                         [--delay-shift DAYS] [--exclude ID,ID]
 *   forecast scenario remove --org ID --id ID
 *   forecast scenario list --org ID        CUSTOM scenarios (documented adjustments)
 *   forecast manual add --org ID --date D --amount SIGNED_DEC [--description T] [--id ID]
 *   forecast manual remove --org ID --id ID
 *   forecast manual list --org ID          the operator's manual forecast lines
 *   backtest --org ID --from D --to D [--every 28d] [--json] [--diagnostics]
 *
 * Every change recomputes the organisation's forecast at once, so the API
 * serves it from the next request. Each prints JSON; errors are
 * `error: <message>` naming the flag, exit 1.
 */
import { randomUUID } from 'node:crypto';
import { type Command, InvalidArgumentError } from 'commander';
import { action, type CommandContext, dateArg, type Io, OperatorError } from './action.js';
import { recomputeForecast, type RecomputeResult } from '../jobs/forecast.js';
import { clearCashOverride, setCashOverride } from '../store/queries/cash-position.js';
import { setCashBuffer } from '../store/queries/calibration.js';
import { loadManualItems, saveManualItems } from '../store/queries/manual-items.js';
import { ensureScenarios, removeCustomScenario, ScenarioError, upsertCustomScenario } from '../store/queries/scenarios.js';
import type { ManualItem, ScenarioAdjustments } from '../domain/forecast/types.js';
import { canonical, dec } from '../domain/money.js';
import { BacktestError, runBacktest, type BacktestResult } from '../backtest/index.js';
import { progressPrinter } from './progress.js';

const DECIMAL = /^-?\d{1,15}(\.\d{1,10})?$/;

function decimalArg(name: string, opts: { nonNegative?: boolean; nonZero?: boolean } = {}) {
  return (value: string): string => {
    const v = value.trim();
    if (!DECIMAL.test(v)) throw new InvalidArgumentError(`${name} must be a decimal number like 1234.56`);
    const d = dec(v);
    if (opts.nonNegative && d.isNeg()) throw new InvalidArgumentError(`${name} must not be negative`);
    if (opts.nonZero && d.isZero()) throw new InvalidArgumentError(`${name} must not be zero`);
    return canonical(d);
  };
}

function shiftArg(value: string): number {
  if (!/^-?\d+$/.test(value) || Math.abs(Number(value)) > 365) throw new InvalidArgumentError('--delay-shift must be whole days from -365 to 365');
  return Number(value);
}

function idArg(name: string) {
  return (value: string): string => {
    const v = value.trim();
    if (!/^[A-Za-z0-9][A-Za-z0-9_.:-]{0,99}$/.test(v)) throw new InvalidArgumentError(`${name} must be 1-100 letters, digits, _ . : or -`);
    return v;
  };
}

/** `28d`, `4w` or a plain number of days. */
export function everyArg(value: string): number {
  const m = /^(\d+)([dw]?)$/.exec(value.trim());
  const n = m ? Number(m[1]) * (m[2] === 'w' ? 7 : 1) : NaN;
  if (!m || n < 1 || n > 366) throw new InvalidArgumentError('--every must be a period like 28d or 4w (1 to 366 days)');
  return n;
}

async function recompute(ctx: CommandContext, orgId: string): Promise<RecomputeResult> {
  const store = await ctx.orgStore(orgId);
  return recomputeForecast(store.db, orgId, ctx.config.clock.now());
}

/** What a change prints: the change and the new forecast's headline. */
async function afterChange(ctx: CommandContext, orgId: string, change: Record<string, unknown>) {
  const r = await recompute(ctx, orgId);
  return { ...change, forecast: { asOfDate: r.asOfDate, computedAt: r.computedAt, snapshots: r.snapshots } };
}

/** A one-line human summary of a backtest, for the terminal (stderr). */
export function backtestTable(r: BacktestResult): string {
  const pad = (s: string, n: number) => s.padEnd(n);
  const lines = [`backtest: ${r.cutoffs} cut-offs x ${r.weeks} weeks (weekly MAE, WAPE)`, `${pad('method', 14)}${pad('receipts', 26)}${pad('payments', 26)}closing`];
  for (const [m, v] of Object.entries(r.methods)) {
    const cell = (x: { mae: string; wape: number }) => pad(`${x.mae} / ${(x.wape * 100).toFixed(1)}%`, 26);
    lines.push(`${pad(m, 14)}${cell(v.receipts)}${cell(v.payments)}${cell(v.closing).trim()}`);
  }
  return `${lines.join('\n')}\n`;
}

const orgOpt = ['--org <id>', 'organisation id'] as const;

export function forecastCommands(program: Command, io: Io): void {
  // `recompute` (src/server/ledger-commands.ts) runs the baselines and then this forecast recompute.
  const forecast = program.command('forecast').description('forecast operations: recompute, opening-cash override, scenarios, manual lines');
  forecast
    .command('recompute')
    .description('recompute the forecast snapshots of every scenario, now')
    .requiredOption(...orgOpt)
    .action(action(io, async (ctx, opts: { org: string }) => recompute(ctx, opts.org)));
  overrideCommands(forecast, io);
  bufferCommands(forecast, io);
  scenarioCommands(forecast, io);
  manualCommands(forecast, io);
  backtestCommand(program, io);
}

/** `forecast override set|clear`: the operator's opening cash. */
function overrideCommands(forecast: Command, io: Io): void {
  const override = forecast.command('override').description("the operator's opening cash (cash position source manual)");
  override
    .command('set')
    .description('set the opening cash: the forecast starts from it plus the bank movements dated after today')
    .requiredOption(...orgOpt)
    .requiredOption('--amount <decimal>', 'opening cash in the base currency', decimalArg('--amount'))
    .option('--note <text>', 'why (kept with the override)')
    .action(
      action(io, async (ctx, opts: { org: string; amount: string; note?: string }) => {
        const store = await ctx.orgStore(opts.org);
        await setCashOverride(store.db, opts.org, opts.amount, opts.note ?? null, ctx.config.clock.now());
        return afterChange(ctx, opts.org, { orgId: opts.org, override: { amount: opts.amount, note: opts.note ?? null, setAt: ctx.config.clock.now().toISOString() } });
      }),
    );
  override
    .command('clear')
    .description('clear the override: the opening cash is the ledger balances again')
    .requiredOption(...orgOpt)
    .action(
      action(io, async (ctx, opts: { org: string }) => {
        const store = await ctx.orgStore(opts.org);
        const cleared = await clearCashOverride(store.db, opts.org);
        return afterChange(ctx, opts.org, { orgId: opts.org, cleared });
      }),
    );
}

/** `forecast buffer set|clear`: the cash buffer, the threshold of the shortfall probability. */
function bufferCommands(forecast: Command, io: Io): void {
  const buffer = forecast.command('buffer').description('the cash buffer: closing cash below it counts as a shortfall (default 0)');
  buffer
    .command('set')
    .description('set the cash buffer: the shortfall probability becomes the probability of closing cash below it')
    .requiredOption(...orgOpt)
    .requiredOption('--amount <decimal>', 'the buffer in the base currency', decimalArg('--amount', { nonNegative: true }))
    .action(
      action(io, async (ctx, opts: { org: string; amount: string }) => {
        const store = await ctx.orgStore(opts.org);
        await setCashBuffer(store.db, opts.org, opts.amount);
        return afterChange(ctx, opts.org, { orgId: opts.org, cashBuffer: opts.amount });
      }),
    );
  buffer
    .command('clear')
    .description('clear the cash buffer: the shortfall threshold is 0 again')
    .requiredOption(...orgOpt)
    .action(
      action(io, async (ctx, opts: { org: string }) => {
        const store = await ctx.orgStore(opts.org);
        await setCashBuffer(store.db, opts.org, null);
        return afterChange(ctx, opts.org, { orgId: opts.org, cashBuffer: null });
      }),
    );
}

/** `forecast scenario set|remove|list`: operator-defined CUSTOM scenarios. */
function scenarioCommands(forecast: Command, io: Io): void {
  const scenario = forecast.command('scenario').description('operator-defined CUSTOM scenarios');
  scenario
    .command('set')
    .description('create or replace a CUSTOM scenario (docs/forecast.md#scenarios)')
    .requiredOption(...orgOpt)
    .requiredOption('--id <id>', 'scenario id (the forecast endpoint\'s scenarioId)', idArg('--id'))
    .requiredOption('--name <name>', 'display name')
    .option('--inflow-factor <decimal>', 'multiplies every inflow (e.g. 0.9)', decimalArg('--inflow-factor', { nonNegative: true }))
    .option('--outflow-factor <decimal>', 'multiplies every outflow (e.g. 1.1)', decimalArg('--outflow-factor', { nonNegative: true }))
    .option('--delay-shift <days>', "days added to every customer's payment delay (negative: earlier)", shiftArg)
    .option('--exclude <ids>', 'comma-separated item ids left out (invoices, bills, orders, manual lines)')
    .action(
      action(
        io,
        async (
          ctx,
          opts: { org: string; id: string; name: string; inflowFactor?: string; outflowFactor?: string; delayShift?: number; exclude?: string },
        ) => {
          const store = await ctx.orgStore(opts.org);
          if (!opts.name.trim()) throw new OperatorError('--name must not be empty');
          const adjustments: ScenarioAdjustments = {};
          if (opts.inflowFactor !== undefined) adjustments.inflowFactor = opts.inflowFactor;
          if (opts.outflowFactor !== undefined) adjustments.outflowFactor = opts.outflowFactor;
          if (opts.delayShift !== undefined) adjustments.paymentDelayShiftDays = opts.delayShift;
          if (opts.exclude !== undefined) adjustments.excludedItemIds = opts.exclude.split(',').map((x) => x.trim()).filter(Boolean);
          try {
            await ensureScenarios(store.db, opts.org, ctx.config.clock.now());
            await upsertCustomScenario(store.db, opts.org, { id: opts.id, name: opts.name.trim(), adjustments }, ctx.config.clock.now());
          } catch (err) {
            if (err instanceof ScenarioError) throw new OperatorError(`--id: ${err.message}`);
            throw err;
          }
          return afterChange(ctx, opts.org, { orgId: opts.org, scenario: { id: opts.id, name: opts.name.trim(), kind: 'CUSTOM', adjustments } });
        },
      ),
    );
  scenario
    .command('remove')
    .description('remove a CUSTOM scenario and its snapshots')
    .requiredOption(...orgOpt)
    .requiredOption('--id <id>', 'scenario id', idArg('--id'))
    .action(
      action(io, async (ctx, opts: { org: string; id: string }) => {
        const store = await ctx.orgStore(opts.org);
        let removed: boolean;
        try {
          removed = await removeCustomScenario(store.db, opts.org, opts.id);
        } catch (err) {
          if (err instanceof ScenarioError) throw new OperatorError(`--id: ${err.message}`);
          throw err;
        }
        if (!removed) throw new OperatorError(`--id: no scenario '${opts.id}'`);
        return { orgId: opts.org, removed: opts.id };
      }),
    );
  scenario
    .command('list')
    .description('every scenario of the organisation with its adjustments')
    .requiredOption(...orgOpt)
    .action(
      action(io, async (ctx, opts: { org: string }) => {
        const store = await ctx.orgStore(opts.org);
        return { orgId: opts.org, scenarios: await ensureScenarios(store.db, opts.org, ctx.config.clock.now()) };
      }),
    );
}

/** `forecast manual add|remove|list`: the operator's manual forecast lines. */
function manualCommands(forecast: Command, io: Io): void {
  const manual = forecast.command('manual').description("the operator's manual forecast lines (every scenario)");
  manual
    .command('add')
    .description('add (or replace, with the same --id) a manual line: positive amounts in, negative out')
    .requiredOption(...orgOpt)
    .requiredOption('--date <YYYY-MM-DD>', 'the day the money moves', dateArg('--date'))
    .requiredOption('--amount <decimal>', 'signed amount in the base currency', decimalArg('--amount', { nonZero: true }))
    .option('--description <text>', 'what it is')
    .option('--id <id>', 'line id (default: manual:<uuid>)', idArg('--id'))
    .action(
      action(io, async (ctx, opts: { org: string; date: string; amount: string; description?: string; id?: string }) => {
        const store = await ctx.orgStore(opts.org);
        const item: ManualItem = { id: opts.id ?? `manual:${randomUUID()}`, date: opts.date, amount: opts.amount, ...(opts.description ? { description: opts.description } : {}) };
        const items = (await loadManualItems(store.db, opts.org)).filter((m) => m.id !== item.id);
        items.push(item);
        items.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
        await saveManualItems(store.db, opts.org, items, ctx.config.clock.now());
        return afterChange(ctx, opts.org, { orgId: opts.org, item });
      }),
    );
  manual
    .command('remove')
    .description('remove a manual line')
    .requiredOption(...orgOpt)
    .requiredOption('--id <id>', 'line id', idArg('--id'))
    .action(
      action(io, async (ctx, opts: { org: string; id: string }) => {
        const store = await ctx.orgStore(opts.org);
        const items = await loadManualItems(store.db, opts.org);
        const kept = items.filter((m) => m.id !== opts.id);
        if (kept.length === items.length) throw new OperatorError(`--id: no manual line '${opts.id}'`);
        await saveManualItems(store.db, opts.org, kept, ctx.config.clock.now());
        return afterChange(ctx, opts.org, { orgId: opts.org, removed: opts.id });
      }),
    );
  manual
    .command('list')
    .description('the manual lines')
    .requiredOption(...orgOpt)
    .action(
      action(io, async (ctx, opts: { org: string }) => {
        const store = await ctx.orgStore(opts.org);
        return { orgId: opts.org, items: await loadManualItems(store.db, opts.org) };
      }),
    );
}

/** `backtest`: replay history and compare each cut-off's forecast with what moved. */
function backtestCommand(program: Command, io: Io): void {
  program
    .command('backtest')
    .description('replay history: forecast at each cut-off with only what was known then, compare with what moved (docs/forecast.md#backtest)')
    .requiredOption(...orgOpt)
    .requiredOption('--from <YYYY-MM-DD>', 'first cut-off', dateArg('--from'))
    .requiredOption('--to <YYYY-MM-DD>', 'last cut-off', dateArg('--to'))
    .option('--every <period>', 'days between cut-offs: 28d, 4w, 14', everyArg, 28)
    .option('--json', 'print only the result object (no table on stderr)')
    .option('--diagnostics', 'add the open-receivables-only split')
    .action(
      action(io, async (ctx, opts: { org: string; from: string; to: string; every: number; json?: boolean; diagnostics?: boolean }) => {
        if (opts.to < opts.from) throw new OperatorError('--to is before --from');
        const store = await ctx.orgStore(opts.org);
        const progress = progressPrinter(io, 'backtest');
        try {
          const r = await runBacktest(store.db, opts.org, {
            from: opts.from,
            to: opts.to,
            everyDays: opts.every,
            now: ctx.config.clock.now(),
            ...(opts.diagnostics ? { diagnostics: true } : {}),
            onProgress: (e) => progress(`cut-off ${e.cutoff}`, e.done, e.total),
          });
          progress.done();
          if (!opts.json) io.stderr(backtestTable(r));
          return r;
        } catch (err) {
          progress.done();
          if (err instanceof BacktestError) throw new OperatorError(err.message);
          throw err;
        }
      }),
    );
}
