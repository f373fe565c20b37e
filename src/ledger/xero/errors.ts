/**
 * Validation errors of Xero records: which field of the record is wrong and
 * how. The importer adds the file, the record's index and its Xero id.
 */
import type { z } from 'zod';

export class XeroValidationError extends Error {
  constructor(
    /** The field, as a path inside the record: 'DueDate', 'LineItems[2].UnitAmount'; '' for the record itself. */
    readonly field: string,
    /** What is wrong with it: 'required', 'not a date: "…"', 'expected a number, got string'. */
    readonly problem: string,
  ) {
    super(field ? `${field}: ${problem}` : problem);
    this.name = 'XeroValidationError';
  }
}

/** 'LineItems[2].UnitAmount' from ['LineItems', 2, 'UnitAmount']. */
export function formatPath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else out += out ? `.${String(seg)}` : String(seg);
  }
  return out;
}

/** Parses `value` with `schema`, throwing a XeroValidationError for the first problem. */
export function parseWith<T extends z.ZodType>(schema: T, value: unknown, pathPrefix: ReadonlyArray<PropertyKey> = []): z.output<T> {
  const res = schema.safeParse(value);
  if (res.success) return res.data;
  const issue = res.error.issues[0]!;
  throw new XeroValidationError(formatPath([...pathPrefix, ...issue.path]), issue.message);
}
