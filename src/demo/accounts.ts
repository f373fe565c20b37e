/** The demo's chart of accounts: Xero's Australian defaults that the demo posts to. */
import { msStamp } from './format.js';
import type { Rng } from '../domain/random.js';

export interface Account {
  AccountID: string;
  Code: string;
  Name: string;
  Type: string;
  Class: string;
  Status: string;
  TaxType?: string;
  BankAccountType?: string;
  CurrencyCode?: string;
  /** Xero's mark on the accounts it keeps for itself (DEBTORS, CREDITORS, GST), as Xero's chart has it. */
  SystemAccount?: string;
  UpdatedDateUTC: string;
}

/** What adding an account needs: the id stream, the first day of the history, and the chart so far. */
export interface ChartState {
  rng: Rng;
  start: number;
  accounts: Account[];
  byCode: Map<string, Account>;
}

/** Adds an account to the chart (drawing its id from the stream). */
export function addAccount(s: ChartState, Code: string, Name: string, Type: string, Class: string, extra: Partial<Account> = {}): Account {
  const a: Account = { AccountID: s.rng.guid(), Code, Name, Type, Class, Status: 'ACTIVE', UpdatedDateUTC: msStamp(s.start - 30), ...extra };
  s.accounts.push(a);
  s.byCode.set(Code, a);
  return a;
}

const BANK = { BankAccountType: 'BANK', CurrencyCode: 'AUD' };

/** The chart after the three bank accounts, in the order the accounts are drawn. */
const CHART: [code: string, name: string, type: string, cls: string, extra?: Partial<Account>][] = [
  ['200', 'Sales', 'REVENUE', 'REVENUE', { TaxType: 'OUTPUT' }],
  ['270', 'Interest Income', 'REVENUE', 'REVENUE', { TaxType: 'EXEMPTOUTPUT' }],
  ['310', 'Cost of Goods Sold', 'DIRECTCOSTS', 'EXPENSE', { TaxType: 'INPUT' }],
  ['404', 'Bank Fees', 'EXPENSE', 'EXPENSE', { TaxType: 'EXEMPTEXPENSES' }],
  ['412', 'Consulting & Accounting', 'EXPENSE', 'EXPENSE', { TaxType: 'INPUT' }],
  ['429', 'General Expenses', 'EXPENSE', 'EXPENSE', { TaxType: 'INPUT' }],
  ['433', 'Insurance', 'EXPENSE', 'EXPENSE', { TaxType: 'INPUT' }],
  ['445', 'Light, Power, Heating', 'EXPENSE', 'EXPENSE', { TaxType: 'INPUT' }],
  ['469', 'Rent', 'EXPENSE', 'EXPENSE', { TaxType: 'INPUT' }],
  ['477', 'Wages and Salaries', 'EXPENSE', 'EXPENSE', { TaxType: 'BASEXCLUDED' }],
  ['478', 'Superannuation', 'EXPENSE', 'EXPENSE', { TaxType: 'BASEXCLUDED' }],
  ['485', 'Subscriptions', 'EXPENSE', 'EXPENSE', { TaxType: 'INPUT' }],
  ['610', 'Accounts Receivable', 'CURRENT', 'ASSET', { SystemAccount: 'DEBTORS' }],
  ['800', 'Accounts Payable', 'CURRLIAB', 'LIABILITY', { SystemAccount: 'CREDITORS' }],
  ['820', 'GST', 'CURRLIAB', 'LIABILITY', { SystemAccount: 'GST' }],
  ['825', 'PAYG Withholdings Payable', 'CURRLIAB', 'LIABILITY'],
  ['826', 'Superannuation Payable', 'CURRLIAB', 'LIABILITY'],
  ['880', "Director's Loan", 'TERMLIAB', 'LIABILITY', { TaxType: 'BASEXCLUDED' }],
  ['970', "Owner's Capital", 'EQUITY', 'EQUITY'],
];

/** Opens the chart: the bank accounts first, then the rest. (Income in Advance is added later, with the credits.) */
export function openChart(s: ChartState): { cheque: Account; savings: Account; card: Account } {
  const cheque = addAccount(s, '090', 'Business Cheque Account', 'BANK', 'ASSET', { ...BANK });
  const savings = addAccount(s, '091', 'Business Savings Account', 'BANK', 'ASSET', { ...BANK });
  const card = addAccount(s, '092', 'Business Credit Card', 'BANK', 'ASSET', { BankAccountType: 'CREDITCARD', CurrencyCode: 'AUD' });
  for (const [code, name, type, cls, extra] of CHART) addAccount(s, code, name, type, cls, extra);
  return { cheque, savings, card };
}
