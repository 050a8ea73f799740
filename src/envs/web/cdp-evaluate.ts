import type { CDPSession } from "playwright-core";

/** What `Runtime.evaluate` answers (the fields read here). */
interface EvaluateReply {
  result: { value?: unknown; unserializableValue?: string };
  exceptionDetails?: { text?: string; exception?: { description?: string; value?: unknown } };
}

/** A value CDP cannot send as JSON (`NaN`, `Infinity`, `-Infinity`, `-0`, a bigint `12n`). */
function unserializable(text: string): unknown {
  if (text.endsWith("n")) return BigInt(text.slice(0, -1));
  return Number(text);
}

/**
 * Evaluates an expression in the main world of the session's page, as `page.evaluate` does (a
 * promise is awaited, the result comes back by value, with a user gesture), in one protocol call:
 * no wrapper script and no result serialiser of Playwright's run in the page or here. A script
 * error throws an Error with the page's message; a navigation that destroys the context, or a page
 * between documents, throws the protocol's error (its message names the execution context).
 */
export async function cdpEvaluate<T>(cdp: CDPSession, expression: string): Promise<T> {
  const reply = (await cdp.send("Runtime.evaluate", {
    expression,
    returnByValue: true,
    awaitPromise: true,
    userGesture: true,
  })) as EvaluateReply;
  const thrown = reply.exceptionDetails;
  if (thrown) {
    const description = thrown.exception?.description ?? String(thrown.exception?.value ?? thrown.text);
    throw new Error(`page evaluation: ${description}`);
  }
  const { value, unserializableValue } = reply.result;
  return (unserializableValue === undefined ? value : unserializable(unserializableValue)) as T;
}
