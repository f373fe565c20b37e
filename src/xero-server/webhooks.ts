/**
 * Xero's webhooks, as the Xero-compatible server sends them: events are
 * batched for `delayMs`, then POSTed as `{ events, firstEventSequence,
 * lastEventSequence, entropy }` signed with `x-xero-signature` =
 * base64(HMAC-SHA256(webhook key, raw body)). A delivery that does not get a
 * 2xx is tried once more after a second (Xero retries with backoff; once is
 * enough here). `intentToReceive` is Xero's check of a new webhook URL: a
 * correctly signed empty batch must get 200 and a wrongly signed one 401.
 */
import { createHmac, randomBytes } from 'node:crypto';

export interface WebhookEvent {
  resourceUrl: string;
  resourceId: string;
  eventDateUtc: string;
  eventType: 'CREATE' | 'UPDATE';
  eventCategory: 'INVOICE' | 'CONTACT';
  tenantId: string;
  tenantType: 'ORGANISATION';
}

export interface WebhookConfig {
  url: string;
  key: string;
  /** How long events gather before a batch is sent (default 200 ms). */
  delayMs?: number;
}

export interface WebhookDelivery {
  /** The receiver's answer (0: no answer within the timeout, or the connection failed). */
  status: number;
  body: string;
  at: number;
}

export interface IntentToReceive {
  signedStatus: number;
  unsignedStatus: number;
  ok: boolean;
}

const TIMEOUT_MS = 5_000;
const RETRY_AFTER_MS = 1_000;

export function sign(key: string, body: string): string {
  return createHmac('sha256', key).update(body).digest('base64');
}

/** Xero's entropy: 20 random upper-case letters, so two identical batches never have the same signature. */
function entropy(): string {
  return Array.from(randomBytes(20), (b) => String.fromCharCode(65 + (b % 26))).join('');
}

/** An instant as Xero writes eventDateUtc: ISO 8601 in UTC without the zone letter. */
const xeroUtc = (d: Date) => d.toISOString().replace(/Z$/, '');

export class WebhookSender {
  private pending: WebhookEvent[] = [];
  private timer: NodeJS.Timeout | null = null;
  private sequence = 0;
  private closed = false;
  /** Timers of the retries and requests in flight, so `close` leaves nothing running. */
  private readonly retries = new Set<NodeJS.Timeout>();
  private readonly inFlight = new Set<AbortController>();
  readonly deliveries: WebhookDelivery[] = [];

  constructor(
    private readonly config: WebhookConfig,
    private readonly apiUrl: string,
  ) {}

  /** Queues the event of a change; the batch goes out `delayMs` after the first event queued. */
  enqueue(e: Pick<WebhookEvent, 'eventCategory' | 'eventType' | 'resourceId'>, tenantId: string): void {
    if (this.closed) return;
    const resource = e.eventCategory === 'INVOICE' ? 'Invoices' : 'Contacts';
    this.pending.push({
      resourceUrl: `${this.apiUrl}/${resource}/${e.resourceId}`,
      resourceId: e.resourceId,
      eventDateUtc: xeroUtc(new Date()),
      eventType: e.eventType,
      eventCategory: e.eventCategory,
      tenantId,
      tenantType: 'ORGANISATION',
    });
    this.timer ??= setTimeout(() => this.flush(), this.config.delayMs ?? 200);
  }

  private flush(): void {
    this.timer = null;
    const events = this.pending;
    this.pending = [];
    if (events.length === 0) return;
    const first = this.sequence + 1;
    this.sequence += events.length;
    const body = JSON.stringify({ events, firstEventSequence: first, lastEventSequence: this.sequence, entropy: entropy() });
    void this.deliver(body, true);
  }

  /** Posts a batch and records the answer; a failure is tried once more after RETRY_AFTER_MS. */
  private async deliver(body: string, retry: boolean): Promise<void> {
    const status = await this.post(body, sign(this.config.key, body));
    if (this.closed) return;
    this.deliveries.push({ status, body, at: Date.now() });
    if ((status < 200 || status > 299) && retry) {
      const t = setTimeout(() => {
        this.retries.delete(t);
        void this.deliver(body, false);
      }, RETRY_AFTER_MS);
      this.retries.add(t);
    }
  }

  /** One signed POST; the answer's status, or 0 when none came within the timeout. */
  private async post(body: string, signature: string): Promise<number> {
    const ac = new AbortController();
    this.inFlight.add(ac);
    const timer = setTimeout(() => ac.abort(), TIMEOUT_MS);
    try {
      const res = await fetch(this.config.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-xero-signature': signature },
        body,
        signal: ac.signal,
        redirect: 'manual',
      });
      await res.body?.cancel().catch(() => {});
      return res.status;
    } catch {
      return 0;
    } finally {
      clearTimeout(timer);
      this.inFlight.delete(ac);
    }
  }

  /** Xero's intent-to-receive check: the signed empty batch must get 200 and the wrongly signed one 401. */
  async intentToReceive(): Promise<IntentToReceive> {
    const batch = () => JSON.stringify({ events: [], firstEventSequence: 0, lastEventSequence: 0, entropy: entropy() });
    const signedBody = batch();
    const signedStatus = await this.post(signedBody, sign(this.config.key, signedBody));
    const wrongBody = batch();
    // Signed with another key: a receiver that checks signatures refuses it.
    const unsignedStatus = await this.post(wrongBody, sign(randomBytes(32).toString('base64'), wrongBody));
    return { signedStatus, unsignedStatus, ok: signedStatus === 200 && unsignedStatus === 401 };
  }

  /** Stops sending: pending events are dropped and requests in flight aborted. */
  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    for (const t of this.retries) clearTimeout(t);
    for (const ac of this.inFlight) ac.abort();
  }
}
