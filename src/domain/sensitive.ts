/** The names every answer shows in place of a sensitive contact's or account's (spec 5.4), for keys without READ_SENSITIVE. */
export const SENSITIVE_CONTACT = 'Sensitive contact';
export const SENSITIVE_ACCOUNT = 'Sensitive account';

/** A note that may name a contact (AgentNote's `contact`). */
interface NamingNote {
  text: string;
  contact?: { id: string; name: string };
}

/**
 * Notes as a key without READ_SENSITIVE reads them: a note naming a contact
 * that is sensitive now has the name rewritten, in its text and in `contact`
 * (one redacted item per note). Decided at every read, like every other name:
 * a contact flagged after the forecast was computed is hidden too.
 */
export function redactNotes<N extends NamingNote>(notes: readonly N[], hiddenContacts: ReadonlySet<string>): { notes: N[]; redacted: number } {
  let redacted = 0;
  const out = notes.map((n) => {
    if (!n.contact || !hiddenContacts.has(n.contact.id)) return n;
    redacted++;
    return { ...n, text: n.text.split(n.contact.name).join(SENSITIVE_CONTACT), contact: { id: n.contact.id, name: SENSITIVE_CONTACT } };
  });
  return { notes: out, redacted };
}
