import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { findOnPath, MissingToolError, type Tool } from '#local/provision/tools.ts';

const CHROMIUM: Tool = {
  command: 'chromium',
  neededFor: 'opening the HTML reports in a headless browser (test/tooling/report.test.ts)',
  install: 'install Chromium (Debian/Ubuntu: apt-get install chromium)',
};

/** What a page logged as an error, or threw, while it loaded. */
export interface OpenedPage {
  page: Page;
  errors: string[];
}

/** Chromium from the system (Debian's package), headless; the project's message when it is missing. */
export async function startBrowser(env: NodeJS.ProcessEnv = process.env): Promise<Browser> {
  const executablePath = findOnPath(CHROMIUM.command, env);
  if (executablePath === null) throw new MissingToolError([CHROMIUM], null);
  return puppeteer.launch({
    executablePath,
    headless: true,
    // Root in CI has no user namespace for Chromium's sandbox; the pages are the project's own.
    args: ['--no-sandbox', '--disable-gpu'],
  });
}

/** Opens `url`, collecting console errors and uncaught exceptions until it has loaded. */
export async function openPage(browser: Browser, url: string): Promise<OpenedPage> {
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(String(error)));
  page.on('requestfailed', (request) => errors.push(`request failed: ${request.url()}`));
  await page.goto(url, { waitUntil: 'load' });
  return { page, errors };
}
