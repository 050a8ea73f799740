// Shared test data for the LLM tests and for generate-fixtures.ts, which writes the committed fixture
// files under test/fixtures/llm/ from these tables (the fixture-files test checks they are current).
import { type Action, createRandom, type PolicyContext, type Task } from "../../src/core/index.ts";
import {
  buildAgentMessages,
  type ChatMessage,
  type FixtureEntry,
  type FixtureFile,
  type FixtureRequest,
  fixtureEntry,
  formatFixtureFile,
  type ReplayStepInput,
  toWireMessages,
} from "../../src/llm/index.ts";

export const MODEL = "replay-model";

/** A 1×1 PNG. */
export const PNG_BYTES = new Uint8Array(
  Buffer.from(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
    "base64",
  ),
);

// ---------------------------------------------------------------- policy outputs

export interface MalformedCase {
  name: string;
  text: string;
  code: string;
  /** A phrase the error message must contain. */
  mentions?: string;
}

export const MALFORMED: ReadonlyArray<MalformedCase> = [
  { name: "empty text", text: "", code: "parse.empty" },
  { name: "whitespace only", text: "  \n\t ", code: "parse.empty" },
  {
    name: "prose only",
    text: "I think the best move is to click the Submit button now.",
    code: "parse.no_action",
  },
  {
    name: "two actions",
    text: 'First {"type": "click", "elementId": "3"} then {"type": "type", "text": "hi"}',
    code: "parse.multiple_actions",
    mentions: "2 actions",
  },
  {
    name: "unknown action type",
    text: '{"type": "submit_form", "elementId": "3"}',
    code: "parse.unknown_action",
    mentions: "submit_form",
  },
  {
    name: "out-of-range argument",
    text: '{"type": "wait", "ms": 999999}',
    code: "parse.invalid_arguments",
    mentions: "ms: out of range",
  },
  {
    name: "missing field",
    text: '{"type": "select", "elementId": "9"}',
    code: "parse.invalid_arguments",
    mentions: "value: missing",
  },
  {
    name: "wrong type of a field",
    text: '{"type": "scroll", "direction": "down", "amount": "a lot"}',
    code: "parse.invalid_arguments",
    mentions: "amount: wrong type",
  },
  {
    name: "value outside an enum",
    text: '{"type": "move", "direction": "north"}',
    code: "parse.invalid_arguments",
    mentions: "direction: must be one of",
  },
  {
    name: "half a coordinate pair",
    text: '{"type": "click", "x": 10}',
    code: "parse.invalid_arguments",
  },
  {
    name: "truncated JSON in a fence",
    text: 'Clicking it.\n```json\n{"type": "click", "elementId": "4", "x"',
    code: "parse.truncated",
  },
  {
    name: "truncated inside a string",
    text: '{"type": "type", "text": "hello wor',
    code: "parse.truncated",
  },
  { name: "non-object JSON (string)", text: '"click"', code: "parse.not_object" },
  { name: "non-object JSON (array of numbers)", text: "[1, 2, 3]", code: "parse.not_object" },
  { name: "object without a type", text: '{"x": 10, "y": 20}', code: "parse.missing_type" },
  {
    name: "single-quoted pseudo JSON",
    text: "Action: {'type': 'click', 'elementId': '1'}",
    code: "parse.invalid_json",
  },
];

export interface WellFormedCase {
  name: string;
  text: string;
  action: Action;
}

export const WELL_FORMED: ReadonlyArray<WellFormedCase> = [
  { name: "bare object", text: '{"type": "done"}', action: { type: "done" } },
  {
    name: "json fence",
    text: 'Here it is:\n```json\n{"type": "click", "elementId": "12"}\n```\nDone.',
    action: { type: "click", elementId: "12" },
  },
  {
    name: "after Action: marker",
    text: 'The search box is element 5, so I type there.\nAction: {"type": "type", "elementId": "5", "text": "red shoes"}',
    action: { type: "type", elementId: "5", text: "red shoes" },
  },
  {
    name: "inside prose",
    text: 'I will press {"type": "key", "keys": "Enter"} to submit the form.',
    action: { type: "key", keys: "Enter" },
  },
  {
    name: "wrapped in an action field",
    text: '{"action": {"type": "scroll", "direction": "down", "amount": 300}}',
    action: { type: "scroll", direction: "down", amount: 300 },
  },
  {
    name: "commentary field and trailing comma",
    text: '{"type": "click", "x": 10, "y": 20, "thought": "the button is there",}',
    action: { type: "click", x: 10, y: 20 },
  },
  {
    name: "default filled in",
    text: '```\n{"type": "wait"}\n```',
    action: { type: "wait", ms: 500 },
  },
];

export const TASK: Task = {
  id: "form-submit",
  instruction: "Fill in the form and submit it.",
  family: "web",
  seed: 0,
  split: "train",
  verifier: { kind: "dom" },
  tags: [],
};

export function policyContext(variant: "malformed" | "wellformed"): PolicyContext {
  return {
    task: TASK,
    stepIndex: 2,
    observation: {
      text: `Form page (${variant})`,
      url: "http://127.0.0.1/form",
      axtree: '[5] textbox "Search"\n[12] button "Submit"',
      error: { code: "element_not_found", message: "no element with id 99" },
    },
    history: [
      { observation: { text: "start" }, action: { type: "click", elementId: "3" }, raw: "{...}" },
      { observation: { text: "next" }, action: null, raw: "I am not sure what to do" },
    ],
  };
}

/** The seed the policy draws from a `createRandom("llm-test", purpose)` generator. */
export function policySeed(purpose: string): number {
  return createRandom("llm-test", purpose).int(2_147_483_647);
}

export const POLICY_TEMPERATURE = 0.8;

export function policyRequest(variant: "malformed" | "wellformed", n: number): FixtureRequest {
  return {
    model: MODEL,
    messages: toWireMessages(buildAgentMessages(policyContext(variant))),
    n,
    temperature: POLICY_TEMPERATURE,
    seed: policySeed(variant),
  };
}

// ---------------------------------------------------------------- client scripts

export function userMessages(text: string): ChatMessage[] {
  return [
    { role: "system", content: "You are a test." },
    { role: "user", content: text },
  ];
}

export const IMAGE_MESSAGES: ChatMessage[] = [
  {
    role: "user",
    content: [
      { type: "text", text: "What is in this screenshot?" },
      { type: "image", mime: "image/png", bytes: PNG_BYTES },
    ],
  },
];

export function clientRequest(
  messages: ReadonlyArray<ChatMessage>,
  n = 1,
  seed?: number,
  temperature = 1,
): FixtureRequest {
  return { model: MODEL, messages: toWireMessages(messages), n, temperature, seed };
}

const usage = (promptTokens: number, completionTokens: number) => ({ promptTokens, completionTokens });

function clientEntries(): FixtureEntry[] {
  const e = (req: FixtureRequest, steps: ReplayStepInput[], note: string) => fixtureEntry(req, steps, note);
  const ok = (texts: string[], u = usage(10, 5)): ReplayStepInput => ({ texts, usage: u });
  return [
    e(clientRequest(userMessages("native n"), 3, 7), [ok(["a", "b", "c"], usage(20, 9))], "server honours n"),
    e(clientRequest(userMessages("ignored n"), 3, 11), [ok(["first"], usage(20, 3))], "server ignores n"),
    e(clientRequest(userMessages("ignored n"), 1, 12), [ok(["second"])], "fallback sample 1"),
    e(clientRequest(userMessages("ignored n"), 1, 13), [ok(["third"])], "fallback sample 2"),
    e(
      clientRequest(userMessages("rejected n"), 3, 21),
      [{ status: 400, error: "n must be 1 for this model" }],
      "server rejects n",
    ),
    e(clientRequest(userMessages("rejected n"), 1, 21), [ok(["r0"])], "fallback sample 0"),
    e(clientRequest(userMessages("rejected n"), 1, 22), [ok(["r1"])], "fallback sample 1"),
    e(clientRequest(userMessages("rejected n"), 1, 23), [ok(["r2"])], "fallback sample 2"),
    e(clientRequest(userMessages("no n support"), 1, 31), [ok(["s0"])], "supportsN false sample 0"),
    e(clientRequest(userMessages("no n support"), 1, 32), [ok(["s1"])], "supportsN false sample 1"),
    e(
      clientRequest(userMessages("flaky")),
      [
        { status: 429, error: "slow down", retryAfterS: 2 },
        { status: 500, error: "boom" },
        ok(["recovered"]),
      ],
      "429 with Retry-After, then 500, then success",
    ),
    e(clientRequest(userMessages("down")), [{ status: 503, error: "overloaded" }], "always 503"),
    e(clientRequest(userMessages("forbidden")), [{ status: 401, error: "bad key" }], "not retryable"),
    e(
      clientRequest(userMessages("slow")),
      [{ texts: ["too late"], delayMs: 5_000 }],
      "slower than the client timeout",
    ),
    e(
      clientRequest(userMessages("slow once")),
      [{ texts: ["too late"], delayMs: 5_000 }, ok(["in time"])],
      "times out once, then answers",
    ),
    e(clientRequest(IMAGE_MESSAGES, 1), [ok(["a blank pixel"], usage(85, 4))], "PNG as a data URL"),
  ];
}

function policyEntries(): FixtureEntry[] {
  return [
    fixtureEntry(
      policyRequest("malformed", MALFORMED.length),
      { texts: MALFORMED.map((c) => c.text), usage: usage(512, 300) },
      "malformed outputs, one per choice",
    ),
    fixtureEntry(
      policyRequest("wellformed", WELL_FORMED.length),
      { texts: WELL_FORMED.map((c) => c.text), usage: usage(512, 120) },
      "well-formed outputs, one per choice",
    ),
  ];
}

/** The committed fixture files: name → exact text. */
export function fixtureFiles(): Record<string, string> {
  const file = (entries: FixtureEntry[]): string => formatFixtureFile({ version: 1, entries } as FixtureFile);
  return { "client.json": file(clientEntries()), "policy.json": file(policyEntries()) };
}
