import type { CDPSession, Page } from "playwright-core";
import { cdpEvaluate } from "./cdp-evaluate.ts";
import { agentCall } from "./page-agent.ts";

/** Where the visual viewport lies in the document (CSS pixels) and its pinch-zoom scale. */
interface VisualViewport {
  x: number;
  y: number;
  scale: number;
}

/**
 * A PNG of the page's viewport as `page.screenshot({ type: "png", caret: "hide" })` takes it, over
 * the page's CDP session: one evaluation that hides the caret and waits for the fonts
 * (page/agent-capture.js), the capture, one evaluation that puts the caret back. Playwright's path
 * needs five protocol calls and compiles its utility script into each new document. The PNG is
 * encoded as Playwright's is (Chromium's `optimizeForSpeed` would save about 6 ms of CPU per 800×600
 * screenshot but store 1.4 to 1.9 times the bytes). A page whose agent is missing or that holds a
 * frame the agent cannot reach is captured by Playwright.
 */
export async function captureViewport(cdp: CDPSession, page: Page): Promise<Uint8Array> {
  const size = page.viewportSize();
  const at = size
    ? await cdpEvaluate<VisualViewport | null>(cdp, `window.__rh && ${agentCall("hideCaret")}`).catch(
        () => null,
      )
    : null;
  if (!size || !at) return page.screenshot({ type: "png", caret: "hide" });
  try {
    const { data } = await cdp.send("Page.captureScreenshot", {
      format: "png",
      clip: {
        x: at.x,
        y: at.y,
        // As Playwright's clip: the viewport in CSS pixels at the visual viewport's scale.
        width: Math.floor(size.width / at.scale + 1e-3),
        height: Math.floor(size.height / at.scale + 1e-3),
        scale: at.scale,
      },
      captureBeyondViewport: false,
    });
    return Buffer.from(data, "base64");
  } finally {
    await cdpEvaluate(cdp, agentCall("showCaret")).catch(() => undefined);
  }
}
