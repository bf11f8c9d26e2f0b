// A real browser for end-to-end tests: Debian's chromium driven by playwright-core, a fresh profile per launch;
// helpers to sign in and to save screenshots for the README.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { type Browser, type BrowserContext, type Page, chromium } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const screenshotDir = path.resolve(import.meta.dirname, '../../docs/screenshots');

/** Playwright gives every launch a fresh temporary profile (it refuses a --user-data-dir argument to launch()). */
export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** A fresh context (its own session storage) at a given width and colour scheme. */
export function newContext(browser: Browser, options: { width?: number; dark?: boolean } = {}): Promise<BrowserContext> {
  return browser.newContext({
    viewport: { width: options.width ?? 1280, height: 860 },
    colorScheme: options.dark ? 'dark' : 'light',
    reducedMotion: 'reduce',
  });
}

/** Opens the dashboard and signs in with `key` through the form; waits for the signed-in header. */
export async function signIn(page: Page, baseUrl: string, key: string, at = '/') {
  await page.goto(`${baseUrl}${at}`);
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

export async function screenshot(page: Page, name: string) {
  mkdirSync(screenshotDir, { recursive: true });
  await page.screenshot({ path: path.join(screenshotDir, `${name}.png`), fullPage: false });
}
