import { z } from "zod";
import { type Action, ActionSchema, EnvironmentError, type Target } from "../../core/index.ts";
import { agentCall } from "./page-agent.ts";
import { WEB_ERROR_CODES } from "./web-errors.ts";

const Selector = z.string().min(1);

/** What `window.rehearsalOracle()` may return (see PROTOCOL.md). */
export const PageOracleActionSchema = z.discriminatedUnion("type", [
  z.object({ type: z.enum(["click", "double_click", "right_click", "hover"]), selector: Selector }),
  z.object({ type: z.literal("type"), selector: Selector.optional(), text: z.string() }),
  z.object({ type: z.literal("select"), selector: Selector, value: z.string() }),
  z.object({ type: z.literal("drag"), fromSelector: Selector, toSelector: Selector }),
  z.object({ type: z.literal("key"), keys: z.string().min(1) }),
  z.object({
    type: z.literal("scroll"),
    direction: z.enum(["up", "down", "left", "right"]),
    selector: Selector.optional(),
    amount: z.number().positive().optional(),
  }),
  z.object({ type: z.literal("done") }),
]);
export type PageOracleAction = z.infer<typeof PageOracleActionSchema>;

type Resolved = { error?: string; elementId?: string; x?: number; y?: number };

/** Turns a page oracle action (CSS selectors) into an Action with element ids or coordinates. */
export async function translateOracleAction(
  raw: unknown,
  evaluate: <T>(expression: string) => Promise<T>,
): Promise<Action> {
  const parsed = PageOracleActionSchema.safeParse(raw);
  if (!parsed.success) {
    throw new EnvironmentError(
      WEB_ERROR_CODES.oracleInvalid,
      `the task page's rehearsalOracle() returned ${JSON.stringify(raw)}, which is not an oracle action ` +
        `(${parsed.error.issues[0]?.message ?? "invalid"}); see PROTOCOL.md`,
    );
  }
  const a = parsed.data;
  const resolve = async (selector: string): Promise<Target> => {
    const r = await evaluate<Resolved>(agentCall("resolveSelector", selector));
    if (r.error !== undefined) {
      throw new EnvironmentError(WEB_ERROR_CODES.oracleInvalid, `rehearsalOracle(): ${r.error}`);
    }
    return r.elementId !== undefined ? { elementId: r.elementId } : { x: r.x ?? 0, y: r.y ?? 0 };
  };
  const elementIdOf = async (selector: string): Promise<string> => {
    const t = await resolve(selector);
    if (t.elementId === undefined) {
      throw new EnvironmentError(
        WEB_ERROR_CODES.oracleInvalid,
        `rehearsalOracle(): ${selector} has no element id`,
      );
    }
    return t.elementId;
  };
  let action: unknown;
  switch (a.type) {
    case "click":
    case "double_click":
    case "right_click":
    case "hover":
      action = { type: a.type, ...(await resolve(a.selector)) };
      break;
    case "type":
      action = {
        type: "type",
        text: a.text,
        ...(a.selector === undefined ? {} : { elementId: await elementIdOf(a.selector) }),
      };
      break;
    case "select":
      action = { type: "select", elementId: await elementIdOf(a.selector), value: a.value };
      break;
    case "drag":
      action = { type: "drag", from: await resolve(a.fromSelector), to: await resolve(a.toSelector) };
      break;
    case "key":
      action = { type: "key", keys: a.keys };
      break;
    case "scroll": {
      let at = {};
      if (a.selector !== undefined) {
        const t = await resolve(a.selector);
        // Scrolling needs a position: an element id is turned into its current centre.
        if (t.elementId !== undefined) {
          const p = await evaluate<Resolved>(agentCall("target", t.elementId, true));
          if (p.error === undefined) at = { x: p.x, y: p.y };
        } else at = t;
      }
      action = {
        type: "scroll",
        direction: a.direction,
        ...(a.amount === undefined ? {} : { amount: a.amount }),
        ...at,
      };
      break;
    }
    case "done":
      action = { type: "done" };
      break;
  }
  const checked = ActionSchema.safeParse(action);
  if (!checked.success) {
    throw new EnvironmentError(
      WEB_ERROR_CODES.oracleInvalid,
      `rehearsalOracle() gave ${JSON.stringify(raw)}, translated to an invalid action: ${checked.error.issues[0]?.message}`,
    );
  }
  return checked.data;
}
