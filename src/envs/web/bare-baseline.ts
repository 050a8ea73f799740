import type { Page } from "playwright-core";

/**
 * Baselines for the benchmark: the same operations as one environment step done with bare
 * Playwright calls on the same page (no settling, no ids, no observation building).
 */
export async function bareClickAndAriaSnapshot(page: Page, x: number, y: number): Promise<number> {
  await page.mouse.click(x, y);
  const snapshot = await page.locator("body").ariaSnapshot();
  return snapshot.length;
}

export async function bareClickAndScreenshot(page: Page, x: number, y: number): Promise<number> {
  await page.mouse.click(x, y);
  const png = await page.screenshot({ type: "png", caret: "hide" });
  return png.length;
}
