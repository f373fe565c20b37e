/** The names every answer shows in place of a sensitive contact's or account's (spec 5.4), for keys without READ_SENSITIVE. */
export const SENSITIVE_CONTACT = 'Sensitive contact';
export const SENSITIVE_ACCOUNT = 'Sensitive account';
