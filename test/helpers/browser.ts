import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from 'playwright-core';

/** Debian's chromium; the tests never download a browser. */
export const CHROMIUM_PATH = '/usr/bin/chromium';

/** Where browser tests leave screenshots (gitignored with the rest of test-results/). */
export const SCREENSHOT_DIR = fileURLToPath(new URL('../../test-results/screenshots/', import.meta.url));

/** Laptop and phone viewports the page must look right on. */
export const VIEWPORTS = {
  laptop: { width: 1280, height: 800 },
  phone: { width: 390, height: 844 },
} as const;

/** Launches the system chromium headless, with no network of its own (no updates, sync or QUIC). */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`Debian's chromium is not at ${CHROMIUM_PATH}: apt-get install -y chromium (.ci/run installs it when missing)`);
  }
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}
