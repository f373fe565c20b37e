/**
 * Issue 19: the rendered reference (/api/agent/docs/reference, Redoc's
 * standalone bundle served by the API itself) as a person sees it, in a real
 * browser: Debian's Chromium driven by playwright-core, against a real running
 * API. It must show an operation (the forecast) with its parameters and their
 * descriptions, and its example answer from the demo; descriptions are
 * rendered markdown (no literal backticks); and the page loads nothing from
 * anywhere but the API (no CDN, no fonts from elsewhere) and throws no error.
 *
 * Chromium is required, like PostgreSQL: without /usr/bin/chromium this
 * test fails (.ci/run installs it), it never skips.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOCS_PATH, REFERENCE_PATH } from '../src/api/docs.js';
import EXAMPLES from '../src/schemas/examples.json' with { type: 'json' };
import { startTestApi, type TestApi } from './helpers/http.js';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

describe('the rendered API reference in a browser (issue 19)', () => {
  let api: TestApi;
  let context: BrowserContext;
  let page: Page;
  let profile: string;
  const foreign: string[] = [];
  const errors: string[] = [];

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: the browser test needs Debian's chromium (apt-get install -y chromium; .ci/run installs it)`);
    api = await startTestApi('pglite');
    profile = mkdtempSync(join(tmpdir(), 'cashline-chromium-'));
    context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: ARGS, timeout: 20_000 });
    page = context.pages()[0] ?? (await context.newPage());
    const origin = new URL(api.url).origin;
    page.on('request', (r) => {
      const url = r.url();
      if (!url.startsWith(origin) && !url.startsWith('data:') && !url.startsWith('blob:')) foreign.push(url);
    });
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
  });
  afterAll(async () => {
    await context?.close();
    await api?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  it('shows the forecast operation, its parameters with their descriptions, and its example answer from the demo', async () => {
    const res = await page.goto(`${api.url}${REFERENCE_PATH}`);
    expect(res?.status()).toBe(200);
    // Like every successful answer (issue 21): the client may keep it and revalidates it.
    expect(res?.headers()['cache-control']).toBe('private, no-cache');
    // Redoc's section of an operation is named by the operation's JSON pointer.
    const op = page.locator('[data-section-id="/paths/~1api~1agent~1forecast/get"]');
    await op.waitFor({ timeout: 20_000 });
    const text = await op.innerText();
    expect(text).toContain('The latest 13-week cash forecast of a scenario');
    // Parameters, each with its description.
    expect(text).toContain('scenarioId');
    expect(text).toMatch(/The scenario to read \(default: the organisation's BASE scenario\)/);
    expect(text).toContain('weeks');
    expect(text).toMatch(/How many of the forecast weeks to return/);
    expect(text).toContain('detail');
    // The example answer (the demo's, from src/schemas/examples.json) in the response samples.
    const example = EXAMPLES['/api/agent/forecast'];
    expect(text).toContain('Response samples');
    expect(text).toContain(`"${example.scenarioName}"`);
    expect(text).toContain(`"${example.startingCash}"`);
    // Response fields are described too.
    expect(text).toContain("Cash the forecast starts from: the cash position's effectiveStartingCash.");
  });

  it('renders markdown (no literal backticks), loads nothing from elsewhere, and throws no error', async () => {
    const body = await page.locator('body').innerText();
    const code = await page.locator('code', { hasText: 'Sensitive account' }).count();
    expect(code, 'a `code` span of a description is rendered as code').toBeGreaterThan(0);
    expect(body.includes('`'), `literal backticks near: ${body.slice(Math.max(0, body.indexOf('`') - 80), body.indexOf('`') + 80)}`).toBe(false);
    expect(foreign).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('the plain page links to the rendered reference and renders code spans as code', async () => {
    await page.goto(`${api.url}${DOCS_PATH}`);
    await expect(page.locator(`a[href="${REFERENCE_PATH}"]`).count()).resolves.toBe(1);
    const body = await page.locator('body').innerText();
    expect(body.includes('`')).toBe(false);
    expect(await page.locator('details summary', { hasText: 'Example answer' }).count()).toBeGreaterThan(20);
  });
});
