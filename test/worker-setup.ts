import { shareBrowserAcrossFile } from "./web-browser.ts";

/**
 * Set-up file of the fast project: every fast test file takes the worker's shared browser, as if it
 * called `shareBrowserAcrossFile()` itself, so that a file whose web environment uses the shared pool
 * (the default of `createWebEnvironment`) reuses the Chromium an earlier file of the worker launched
 * instead of launching and closing its own. Nothing launches until a file opens a web environment; a
 * file's own pools (`new BrowserPool()`) are not touched.
 */
shareBrowserAcrossFile();
