import type { Page } from "playwright-core";
import type { Action, ActionError, Target } from "../../core/index.ts";
import { toPlaywrightKeys } from "./keys.ts";
import { agentCall } from "./page-agent.ts";

export interface ActionContext {
  page: Page;
  viewport: { width: number; height: number };
  scrollAmountPx: number;
  /** Evaluates an expression in the page (with the environment's timeout and crash mapping). */
  evaluate<T>(expression: string): Promise<T>;
  /**
   * The pointer to (x, y), then a wheel turn there: on the task page one batch (its `moveAndWheel`), on
   * another page (a noise tab) `playwrightMoveAndWheel`.
   */
  moveAndWheel(x: number, y: number, deltaX: number, deltaY: number): Promise<void>;
}

/** The pointer to (x, y), then the wheel there, through Playwright (the move awaited on its own). */
export async function playwrightMoveAndWheel(
  page: Page,
  x: number,
  y: number,
  deltaX: number,
  deltaY: number,
): Promise<void> {
  await page.mouse.move(x, y);
  await page.mouse.wheel(deltaX, deltaY);
}

type Point = { x: number; y: number };
type AgentReply = { error?: string; x?: number; y?: number };

const MESSAGES: Record<string, string> = {
  unknown_element: "no element with this id on the page (ids come from the latest axtree)",
  element_not_visible: "the element is hidden or has no size",
  element_detached: "the element is no longer in the page",
  element_outside_viewport: "the element cannot be brought into the viewport",
  not_editable: "the element does not accept text (not an input, textarea or contenteditable)",
  not_a_select: "select needs the id of a <select> element",
  element_disabled: "the element is disabled",
  invalid_option: "the select has no option with this value or label",
};

function fail(code: string, detail?: string): ActionError {
  return { code, message: detail ? `${MESSAGES[code] ?? code}: ${detail}` : (MESSAGES[code] ?? code) };
}

/** The viewport point of a target, scrolling an element into view when needed. */
async function pointOf(ctx: ActionContext, target: Target): Promise<Point | ActionError> {
  if (target.elementId !== undefined) {
    const r = await ctx.evaluate<AgentReply>(agentCall("target", target.elementId));
    if (r.error) return fail(r.error, `element ${target.elementId}`);
    return { x: r.x ?? 0, y: r.y ?? 0 };
  }
  const x = target.x ?? Number.NaN;
  const y = target.y ?? Number.NaN;
  if (!(x >= 0 && y >= 0 && x < ctx.viewport.width && y < ctx.viewport.height)) {
    return {
      code: "out_of_viewport",
      message: `point (${x}, ${y}) is outside the ${ctx.viewport.width}x${ctx.viewport.height} viewport`,
    };
  }
  return { x, y };
}

function isError(v: Point | ActionError): v is ActionError {
  return "code" in v;
}

function targetOf(a: {
  x?: number | undefined;
  y?: number | undefined;
  elementId?: string | undefined;
}): Target {
  return a.elementId !== undefined
    ? { elementId: a.elementId }
    : { x: a.x ?? Number.NaN, y: a.y ?? Number.NaN };
}

const SCROLL: Record<string, [number, number]> = { up: [0, -1], down: [0, 1], left: [-1, 0], right: [1, 0] };

/**
 * Performs one action. Returns an ActionError when the action cannot apply (the page is unchanged);
 * infrastructure failures propagate as exceptions for the environment to type.
 */
export async function performAction(ctx: ActionContext, action: Action): Promise<ActionError | null> {
  const { page } = ctx;
  switch (action.type) {
    case "click":
    case "double_click":
    case "right_click":
    case "hover": {
      const p = await pointOf(ctx, targetOf(action));
      if (isError(p)) return p;
      if (action.type === "hover") await page.mouse.move(p.x, p.y);
      else if (action.type === "click") await page.mouse.click(p.x, p.y);
      else if (action.type === "double_click") await page.mouse.dblclick(p.x, p.y);
      else await page.mouse.click(p.x, p.y, { button: "right" });
      return null;
    }
    case "drag": {
      const from = await pointOf(ctx, action.from);
      if (isError(from)) return from;
      await page.mouse.move(from.x, from.y);
      await page.mouse.down();
      const to = await pointOf(ctx, action.to);
      if (isError(to)) {
        await page.mouse.up();
        return to;
      }
      await page.mouse.move(to.x, to.y, { steps: 8 });
      await page.mouse.up();
      return null;
    }
    case "type": {
      if (action.elementId !== undefined) {
        const r = await ctx.evaluate<AgentReply>(agentCall("focusForTyping", action.elementId));
        if (r.error) return fail(r.error, `element ${action.elementId}`);
      }
      if (action.text.length > 0) await page.keyboard.type(action.text);
      return null;
    }
    case "key": {
      const keys = toPlaywrightKeys(action.keys);
      try {
        await page.keyboard.press(keys);
      } catch (error) {
        const message = (error as Error).message;
        if (/unknown key/i.test(message))
          return { code: "invalid_key", message: `unknown key in "${action.keys}"` };
        throw error;
      }
      return null;
    }
    case "scroll": {
      const amount = action.amount ?? ctx.scrollAmountPx;
      const [dx, dy] = SCROLL[action.direction] ?? [0, 0];
      let at: Point = { x: Math.floor(ctx.viewport.width / 2), y: Math.floor(ctx.viewport.height / 2) };
      if (action.x !== undefined && action.y !== undefined) {
        const p = await pointOf(ctx, { x: action.x, y: action.y });
        if (isError(p)) return p;
        at = p;
      }
      // The offsets under the point before the pointer moves there: the move scrolls nothing.
      const before = await ctx.evaluate<string>(agentCall("scrollSignature", at.x, at.y));
      await ctx.moveAndWheel(at.x, at.y, dx * amount, dy * amount);
      // The wheel scrolls asynchronously (compositor): wait until it has landed.
      await ctx.evaluate(agentCall("settleScroll", at.x, at.y, before));
      return null;
    }
    case "select": {
      const r = await ctx.evaluate<AgentReply>(agentCall("select", action.elementId, action.value));
      if (r.error) return fail(r.error, `element ${action.elementId}, value "${action.value}"`);
      return null;
    }
    case "wait":
      await page.waitForTimeout(action.ms);
      return null;
    case "done":
    case "fail":
      return null;
    default:
      return {
        code: "unsupported_action",
        message: `the web environment has no "${action.type}" action; use click, type, key, scroll, select, drag, wait, done or fail`,
      };
  }
}
