/**
 * The tenancy directory: organisations, billing accounts, users, partner
 * practices and API keys. Used by the operations commands and by
 * authentication. Validation errors are `TenancyError`s with a message for
 * the operator.
 */
import { randomUUID } from 'node:crypto';
import { and, asc, eq, inArray, isNull, like, or, sql } from 'drizzle-orm';
import type { Db } from './db.js';
import * as s from './schema.js';
import { announceRevocations, revokedHere } from './key-revocations.js';
import { generateKey, type KeyKind } from '../domain/keys.js';
import { isValidFyEnd, isValidTimeZone } from '../domain/calendar.js';
import type { Scope } from '../domain/scopes.js';
import { PLANS, SUBSCRIPTION_STATUSES } from '../domain/plans.js';

export class TenancyError extends Error {}


export interface CreateOrgInput {
  name: string;
  timezone?: string;
  baseCurrency?: string;
  fyEndDay?: number;
  fyEndMonth?: number;
  plan?: string;
  subscription?: string;
  trialEndsAt?: Date | null;
  /** Use a fixed id (demo data); generated when absent. */
  id?: string;
  ownerName?: string;
  now: Date;
}

export interface CreatedOrg {
  orgId: string;
  userId: string;
  billingAccountId: string;
}

export function slugify(name: string): string {
  const base = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/&/g, ' and ')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 48);
  return base || 'org';
}

export async function createOrg(db: Db, input: CreateOrgInput): Promise<CreatedOrg> {
  const name = input.name.trim();
  if (!name) throw new TenancyError('--name must not be empty');
  const timezone = input.timezone ?? 'Australia/Sydney';
  if (!isValidTimeZone(timezone)) throw new TenancyError(`--timezone: '${timezone}' is not an IANA time zone`);
  const baseCurrency = (input.baseCurrency ?? 'AUD').toUpperCase();
  if (!/^[A-Z]{3}$/.test(baseCurrency)) throw new TenancyError(`--base-currency: '${input.baseCurrency}' is not a 3-letter ISO code`);
  const fyEndDay = input.fyEndDay ?? 30;
  const fyEndMonth = input.fyEndMonth ?? 6;
  if (!isValidFyEnd(fyEndDay, fyEndMonth)) {
    throw new TenancyError(`--fy-end-day/--fy-end-month: ${fyEndDay}/${fyEndMonth} is not a day of the year`);
  }
  const plan = input.plan ?? 'Free';
  if (!(PLANS as readonly string[]).includes(plan)) throw new TenancyError(`--plan: '${plan}' is not one of ${PLANS.join(', ')}`);
  const subscription = input.subscription ?? 'active';
  if (!(SUBSCRIPTION_STATUSES as readonly string[]).includes(subscription)) {
    throw new TenancyError(`--subscription: '${subscription}' is not one of ${SUBSCRIPTION_STATUSES.join(', ')}`);
  }
  const orgId = input.id ?? randomUUID();
  const userId = randomUUID();
  const billingAccountId = randomUUID();
  return db.transaction(async (tx) => {
    const slug = await freeSlug(tx as unknown as Db, slugify(name));
    await tx.insert(s.billingAccounts).values({
      id: billingAccountId,
      name,
      plan,
      subscriptionStatus: subscription,
      trialEndsAt: input.trialEndsAt ?? null,
      createdAt: input.now,
    });
    await tx.insert(s.organisations).values({
      id: orgId,
      name,
      slug,
      timezone,
      baseCurrency,
      fyEndDay,
      fyEndMonth,
      billingAccountId,
      createdAt: input.now,
    });
    await tx.insert(s.users).values({ id: userId, name: input.ownerName ?? `${name} owner`, createdAt: input.now });
    await tx.insert(s.memberships).values({ orgId, userId, role: 'owner', createdAt: input.now });
    return { orgId, userId, billingAccountId };
  });
}

async function freeSlug(db: Db, base: string): Promise<string> {
  const taken = new Set(
    (
      await db
        .select({ slug: s.organisations.slug })
        .from(s.organisations)
        .where(sql`${s.organisations.slug} = ${base} or ${s.organisations.slug} like ${base + '-%'}`)
    ).map((r) => r.slug),
  );
  if (!taken.has(base)) return base;
  for (let i = 2; ; i++) if (!taken.has(`${base}-${i}`)) return `${base}-${i}`;
}

export async function getOrg(db: Db, orgId: string) {
  const [org] = await db.select().from(s.organisations).where(eq(s.organisations.id, orgId));
  return org ?? null;
}

export async function requireOrg(db: Db, orgId: string) {
  const org = await getOrg(db, orgId);
  if (!org) throw new TenancyError(`--org: no organisation '${orgId}'`);
  return org;
}

export async function createUser(db: Db, input: { orgId: string; name?: string; now: Date }): Promise<{ userId: string }> {
  const org = await requireOrg(db, input.orgId);
  const userId = randomUUID();
  await db.transaction(async (tx) => {
    await tx.insert(s.users).values({ id: userId, name: input.name ?? `${org.name} member`, createdAt: input.now });
    await tx.insert(s.memberships).values({ orgId: org.id, userId, role: 'member', createdAt: input.now });
  });
  return { userId };
}

/** The organisation's owner: the user holding its billable seat. */
export async function orgOwner(db: Db, orgId: string): Promise<string | null> {
  const [m] = await db
    .select({ userId: s.memberships.userId })
    .from(s.memberships)
    .where(and(eq(s.memberships.orgId, orgId), eq(s.memberships.role, 'owner')))
    .orderBy(asc(s.memberships.createdAt));
  return m?.userId ?? null;
}

export async function isMember(db: Db, orgId: string, userId: string): Promise<boolean> {
  const [m] = await db
    .select({ userId: s.memberships.userId })
    .from(s.memberships)
    .where(and(eq(s.memberships.orgId, orgId), eq(s.memberships.userId, userId)));
  return Boolean(m);
}

export interface CreateKeyInput {
  orgId?: string | undefined;
  userId?: string | undefined;
  partnerId?: string | undefined;
  scopes: Scope[];
  name?: string | undefined;
  now: Date;
}

export async function createKey(db: Db, input: CreateKeyInput): Promise<{ key: string; keyPrefix: string }> {
  let kind: KeyKind;
  let orgId: string | null = null;
  let userId: string | null = null;
  let partnerId: string | null = null;
  if (input.partnerId) {
    if (input.orgId || input.userId) throw new TenancyError('--partner cannot be combined with --org or --user');
    const [p] = await db.select().from(s.partners).where(eq(s.partners.id, input.partnerId));
    if (!p) throw new TenancyError(`--partner: no partner '${input.partnerId}'`);
    kind = 'PARTNER';
    partnerId = p.id;
  } else {
    if (!input.orgId) throw new TenancyError('--org (or --partner) is required');
    const org = await requireOrg(db, input.orgId);
    kind = 'USER';
    orgId = org.id;
    if (input.userId) {
      if (!(await isMember(db, org.id, input.userId))) {
        throw new TenancyError(`--user: '${input.userId}' is not a member of organisation '${org.id}'`);
      }
      userId = input.userId;
    } else {
      userId = await orgOwner(db, org.id);
    }
  }
  const g = generateKey(kind);
  await db.insert(s.apiKeys).values({
    id: randomUUID(),
    keyPrefix: g.keyPrefix,
    kind,
    secretHash: g.secretHash,
    name: input.name ?? `${kind.toLowerCase()} key`,
    scopes: input.scopes,
    orgId,
    userId,
    partnerId,
    createdAt: input.now,
  });
  return { key: g.key, keyPrefix: g.keyPrefix };
}

export async function revokeKey(db: Db, keyPrefix: string, now: Date): Promise<{ keyPrefix: string; revoked: boolean }> {
  const [k] = await db.select().from(s.apiKeys).where(eq(s.apiKeys.keyPrefix, keyPrefix));
  if (!k) throw new TenancyError(`--prefix: no key with prefix '${keyPrefix}'`);
  await db.transaction(async (tx) => {
    await tx
      .update(s.apiKeys)
      .set({ revokedAt: now })
      .where(and(eq(s.apiKeys.keyPrefix, keyPrefix), isNull(s.apiKeys.revokedAt)));
    await announceRevocations(tx, [keyPrefix]);
  });
  revokedHere([keyPrefix]);
  return { keyPrefix, revoked: true };
}

export async function createPartner(db: Db, input: { name: string; now: Date; id?: string }): Promise<{ partnerId: string }> {
  const name = input.name.trim();
  if (!name) throw new TenancyError('--name must not be empty');
  const partnerId = input.id ?? randomUUID();
  await db.insert(s.partners).values({ id: partnerId, name, createdAt: input.now });
  return { partnerId };
}

export async function linkPartner(
  db: Db,
  input: { partnerId: string; orgId: string; now: Date },
): Promise<{ partnerId: string; orgId: string; linked: true }> {
  const [p] = await db.select().from(s.partners).where(eq(s.partners.id, input.partnerId));
  if (!p) throw new TenancyError(`--partner: no partner '${input.partnerId}'`);
  await requireOrg(db, input.orgId);
  await db
    .insert(s.partnerLinks)
    .values({ partnerId: input.partnerId, orgId: input.orgId, createdAt: input.now })
    .onConflictDoNothing();
  return { partnerId: input.partnerId, orgId: input.orgId, linked: true };
}

export interface OrgListing {
  id: string;
  name: string;
  slug: string;
}

/** Organisations a partner practice reaches, sorted by name. */
export async function partnerOrgs(db: Db, partnerId: string): Promise<OrgListing[]> {
  return db
    .select({ id: s.organisations.id, name: s.organisations.name, slug: s.organisations.slug })
    .from(s.partnerLinks)
    .innerJoin(s.organisations, eq(s.organisations.id, s.partnerLinks.orgId))
    .where(eq(s.partnerLinks.partnerId, partnerId))
    .orderBy(asc(s.organisations.name), asc(s.organisations.id));
}

/** Organisations a user belongs to, sorted by name. */
export async function userOrgs(db: Db, userId: string): Promise<OrgListing[]> {
  return db
    .select({ id: s.organisations.id, name: s.organisations.name, slug: s.organisations.slug })
    .from(s.memberships)
    .innerJoin(s.organisations, eq(s.organisations.id, s.memberships.orgId))
    .where(eq(s.memberships.userId, userId))
    .orderBy(asc(s.organisations.name), asc(s.organisations.id));
}

/** Flags a contact (by Xero ContactID) sensitive or not. */
export async function setContactSensitive(db: Db, orgId: string, contactId: string, on: boolean) {
  await requireOrg(db, orgId);
  const updated = await db
    .update(s.contacts)
    .set({ isSensitive: on })
    .where(and(eq(s.contacts.orgId, orgId), eq(s.contacts.id, contactId)))
    .returning({ id: s.contacts.id, name: s.contacts.name });
  if (updated.length === 0) throw new TenancyError(`--contact: no contact '${contactId}' in organisation '${orgId}'`);
  return { orgId, contactId, sensitive: on };
}

/** Flags an account (by code, or by AccountID for bank accounts) sensitive or not. */
export async function setAccountSensitive(db: Db, orgId: string, codeOrId: string, on: boolean) {
  await requireOrg(db, orgId);
  const updated = await db
    .update(s.accounts)
    .set({ isSensitive: on })
    .where(and(eq(s.accounts.orgId, orgId), sql`(${s.accounts.code} = ${codeOrId} or ${s.accounts.id} = ${codeOrId})`))
    .returning({ id: s.accounts.id });
  if (updated.length === 0) throw new TenancyError(`--account: no account with code or id '${codeOrId}' in organisation '${orgId}'`);
  return { orgId, account: codeOrId, accountIds: updated.map((u) => u.id), sensitive: on };
}

/** Whether the partner practice exists. */
export async function partnerExists(db: Db, partnerId: string): Promise<boolean> {
  const [p] = await db.select({ id: s.partners.id }).from(s.partners).where(eq(s.partners.id, partnerId));
  return Boolean(p);
}

/** Revokes the unrevoked keys named `<prefix>…` of these organisations or of this partner (the demo's keys of an earlier start). */
export async function revokeKeysNamed(db: Db, input: { namePrefix: string; orgIds: string[]; partnerId: string; now: Date }): Promise<void> {
  const revoked = await db.transaction(async (tx) => {
    const rows = await tx
      .update(s.apiKeys)
      .set({ revokedAt: input.now })
      .where(
        and(
          like(s.apiKeys.name, `${input.namePrefix}%`),
          isNull(s.apiKeys.revokedAt),
          or(inArray(s.apiKeys.orgId, input.orgIds), eq(s.apiKeys.partnerId, input.partnerId)),
        ),
      )
      .returning({ prefix: s.apiKeys.keyPrefix });
    await announceRevocations(tx, rows.map((r) => r.prefix));
    return rows.map((r) => r.prefix);
  });
  revokedHere(revoked);
}
