/** The organisation, its contacts and its accounts (GET /Organisation, /Contacts, /Accounts). */
import type { AccountRow, ContactRow, OrganisationUpdate } from '../../store/rows.js';
import { isValidFyEnd } from '../../domain/calendar.js';
import { XeroValidationError, parseWith } from '../xero/errors.js';
import { XeroAccount, XeroContact, XeroOrganisation } from '../xero/schemas.js';
import { textOf } from '../xero/fields.js';
import { ianaFromXeroTimezone } from '../xero/timezones.js';
import type { MapContext } from './shared.js';

export function mapOrganisation(raw: unknown, ctx: MapContext): OrganisationUpdate {
  const o = parseWith(XeroOrganisation, raw);
  const out: OrganisationUpdate = { orgId: ctx.orgId, ledgerTenantId: o.OrganisationID, ledgerName: o.Name ?? undefined };
  const currency = textOf(o.BaseCurrency);
  if (currency !== null) {
    if (!/^[A-Za-z]{3}$/.test(currency)) {
      throw new XeroValidationError('BaseCurrency', `not a currency code: ${JSON.stringify(currency)}`);
    }
    out.baseCurrency = currency.toUpperCase();
  }
  const day = o.FinancialYearEndDay ?? undefined;
  const month = o.FinancialYearEndMonth ?? undefined;
  if ((day === undefined) !== (month === undefined)) {
    const missing = day === undefined ? 'FinancialYearEndDay' : 'FinancialYearEndMonth';
    throw new XeroValidationError(missing, 'required (the financial year end needs both day and month)');
  }
  if (day !== undefined && month !== undefined) {
    if (!isValidFyEnd(day, month)) {
      throw new XeroValidationError('FinancialYearEndDay', `${day}/${month} is not a day of the year`);
    }
    out.fyEndDay = day;
    out.fyEndMonth = month;
  }
  const tz = ianaFromXeroTimezone(o.Timezone);
  if (tz) out.timezone = tz;
  return out;
}

export function mapContact(raw: unknown, ctx: MapContext): ContactRow {
  const c = parseWith(XeroContact, raw);
  return {
    orgId: ctx.orgId,
    id: c.ContactID,
    name: c.Name,
    email: textOf(c.EmailAddress),
    contactStatus: textOf(c.ContactStatus) ?? undefined,
    isCustomer: c.IsCustomer ?? undefined,
    isSupplier: c.IsSupplier ?? undefined,
    defaultCurrency: textOf(c.DefaultCurrency)?.toUpperCase() ?? null,
    ledgerUpdatedAt: c.UpdatedDateUTC ?? null,
    lastSyncedAt: ctx.now,
  };
}

export function mapAccount(raw: unknown, ctx: MapContext): AccountRow {
  const a = parseWith(XeroAccount, raw);
  return {
    orgId: ctx.orgId,
    id: a.AccountID,
    code: textOf(a.Code),
    name: a.Name,
    type: a.Type,
    class: textOf(a.Class),
    status: textOf(a.Status) ?? undefined,
    currency: textOf(a.CurrencyCode)?.toUpperCase() ?? null,
    bankAccountType: textOf(a.BankAccountType),
    systemAccount: textOf(a.SystemAccount)?.toUpperCase() ?? null,
    ledgerUpdatedAt: a.UpdatedDateUTC ?? null,
    lastSyncedAt: ctx.now,
  };
}
