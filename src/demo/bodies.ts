/** The bodies built from the ledgers at the end: the journals, the bank summary report, and the organisation. */
import type { DemoContext } from './context.js';
import { amt, isoDay, msDate, msStamp } from './format.js';

/** The journals in date order, numbered, with their lines' accounts (ids drawn here, after all else but the organisation). */
export function journalBodies(ctx: DemoContext) {
  const { rng } = ctx;
  ctx.journals.sort((a, b) => a.day - b.day);
  return ctx.journals.map((j, i) => ({
    JournalID: rng.guid(),
    JournalDate: msDate(j.day),
    JournalNumber: i + 1,
    CreatedDateUTC: msStamp(j.day, 13),
    SourceID: j.sourceId,
    SourceType: j.sourceType,
    JournalLines: j.lines.map((l) => {
      const acc = ctx.byCode.get(l.code)!;
      return {
        JournalLineID: rng.guid(),
        AccountID: acc.AccountID,
        AccountCode: acc.Code,
        AccountType: acc.Type,
        AccountName: acc.Name,
        NetAmount: amt(l.net),
        GrossAmount: amt(l.net),
        TaxAmount: amt(l.tax ?? 0),
      };
    }),
  }));
}

/** Xero's Bank Summary report over the three years: reconciled movements only. */
export function bankSummary(ctx: DemoContext) {
  const { start, asOf } = ctx;
  const summaryRows = [ctx.cheque, ctx.savings, ctx.card].map((acc) => {
    const moves = ctx.bankMoves.get(acc.AccountID)!.filter((m) => m.day <= asOf && m.reconciled);
    const opening = moves.filter((m) => m.day < start).reduce((a, m) => a + m.cents, 0);
    const received = moves.filter((m) => m.day >= start && m.cents > 0).reduce((a, m) => a + m.cents, 0);
    const spent = moves.filter((m) => m.day >= start && m.cents < 0).reduce((a, m) => a - m.cents, 0);
    const attrs = [{ Id: 'accountID', Value: acc.AccountID }];
    const cell = (v: string) => ({ Value: v, Attributes: attrs });
    return {
      RowType: 'Row',
      Cells: [cell(acc.Name), cell((opening / 100).toFixed(2)), cell((received / 100).toFixed(2)), cell((spent / 100).toFixed(2)), cell(((opening + received - spent) / 100).toFixed(2))],
    };
  });
  return {
    Reports: [
      {
        ReportID: 'BankSummary',
        ReportName: 'Bank Summary',
        ReportType: 'BankSummary',
        ReportTitles: ['Bank Summary', ctx.orgName, `From ${isoDay(start)} to ${isoDay(asOf)}`],
        ReportDate: isoDay(asOf),
        UpdatedDateUTC: msStamp(asOf, 6),
        Rows: [
          { RowType: 'Header', Cells: [{ Value: 'Bank Accounts' }, { Value: 'Opening Balance' }, { Value: 'Cash Received' }, { Value: 'Cash Spent' }, { Value: 'Closing Balance' }] },
          { RowType: 'Section', Title: '', Rows: summaryRows },
        ],
      },
    ],
  };
}

export function organisation(ctx: DemoContext) {
  return {
    Organisations: [
      {
        OrganisationID: ctx.rng.guid(),
        Name: ctx.orgName,
        LegalName: `${ctx.orgName} Pty Ltd`,
        BaseCurrency: 'AUD',
        CountryCode: 'AU',
        FinancialYearEndDay: 30,
        FinancialYearEndMonth: 6,
        Timezone: 'AUSEASTERNSTANDARDTIME',
        OrganisationType: 'COMPANY',
        CreatedDateUTC: msStamp(ctx.start - 60),
      },
    ],
  };
}
