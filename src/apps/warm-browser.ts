import { locateChromium } from './browser.js';

/**
 * Run once before the test files (npm test): finds the browser, and on a machine without a system Chromium unpacks
 * the packaged one, so that test files running at the same time never race to unpack it into the shared temporary
 * folder. A missing browser is not an error here: the tests that need one say so.
 */
await locateChromium().catch(() => undefined);
