import { describe, expect, it } from "vitest";
import {
  type CompletionTurn,
  formatWmAnswer,
  formatWmCall,
  formatWmError,
  maskAlignmentIssue,
  maskCompletion,
  stepMessages,
  TrlRlRecordSchema,
} from "../../src/rl/index.ts";

const move = '{"type":"move","direction":"down"}';
const answer = formatWmAnswer({
  observation: { text: "SFFF\nF🧊HF\nFFFG" },
  reward: 0,
  terminated: false,
  truncated: false,
  success: false,
});
/** A wm-lookahead step: two calls, one answered, one refused, then the committed action. */
const raw = [
  "I will look first. ",
  formatWmCall(move),
  "\n",
  answer,
  "\n",
  formatWmCall("not json"),
  "\n",
  formatWmError("the call is not an action"),
  `\nAction: ${move}`,
].join("");

/** Python-style code-point slicing. */
const slice = (text: string, [start, end]: readonly [number, number]) =>
  Array.from(text).slice(start, end).join("");

describe("loss masks", () => {
  it("splits a step into assistant policy text and user WM answers; joining gives the raw text back", () => {
    const messages = stepMessages(raw);
    expect(messages.map((m) => [m.role, m.source])).toEqual([
      ["assistant", "policy"],
      ["user", "wm_answer"],
      ["assistant", "policy"],
      ["user", "wm_answer"],
      ["assistant", "policy"],
    ]);
    expect(messages.map((m) => m.content).join("")).toBe(raw);
    expect(messages[1]?.content).toBe(answer);
    expect(messages[0]?.content.endsWith(`${formatWmCall(move)}\n`)).toBe(true); // the call is trainable
    for (const m of messages.filter((x) => x.source === "wm_answer"))
      expect(m.content).toMatch(/^<wm_answer>[\s\S]*<\/wm_answer>$/);
  });

  it("keeps a step without WM calls as one assistant message, and an unclosed answer injected", () => {
    expect(stepMessages(`Action: ${move}`)).toEqual([
      { role: "assistant", content: `Action: ${move}`, source: "policy" },
    ]);
    const unclosed = `${formatWmCall(move)}<wm_answer>\nSystem (WM): reward 0`;
    const m = stepMessages(unclosed);
    expect(m.map((x) => x.source)).toEqual(["policy", "wm_answer"]);
    expect(m.map((x) => x.content).join("")).toBe(unclosed);
    expect(stepMessages(answer).map((x) => x.source)).toEqual(["wm_answer"]);
  });

  it("masks only policy text and gives each message its code-point span in the flat text", () => {
    const turns: CompletionTurn[] = [
      { kind: "step", raw },
      { kind: "observation", text: "Observation: 🧊 at row 2" },
      { kind: "step", raw: `Action: ${move}` },
    ];
    const c = maskCompletion(turns);
    expect(c.sources).toEqual([
      "policy",
      "wm_answer",
      "policy",
      "wm_answer",
      "policy",
      "observation",
      "policy",
    ]);
    expect(c.mask).toEqual(c.sources.map((s) => s === "policy"));
    expect(c.messages.map((m) => m.role)).toEqual([
      "assistant",
      "user",
      "assistant",
      "user",
      "assistant",
      "user",
      "assistant",
    ]);
    // Every span covers its message (in code points: the emoji are one index each, as in Python).
    expect(c.spans.map((span) => slice(c.text, span))).toEqual(c.messages.map((m) => m.content));
    expect(c.text).toBe(`${raw}\nObservation: 🧊 at row 2\nAction: ${move}`);
    expect(c.text.length).toBeGreaterThan(Array.from(c.text).length); // UTF-16 and code points differ here
    // The step's raw text is one contiguous run of spans.
    const stepEnd = c.spans[4]?.[1] ?? 0;
    expect(slice(c.text, [0, stepEnd])).toBe(raw);
    expect(maskAlignmentIssue({ ...c })).toBeUndefined();
  });

  it("refuses a mask that marks an injected answer trainable or does not line up", () => {
    const c = maskCompletion([{ kind: "step", raw }]);
    const flipped = c.mask.map((m, i) => (i === 1 ? true : m));
    expect(maskAlignmentIssue({ ...c, mask: flipped })).toMatch(/only policy text is trainable/);
    expect(maskAlignmentIssue({ ...c, mask: c.mask.slice(1) })).toMatch(/one entry per completion message/);
    const shifted = c.spans.map(([s, e]) => [s + 1, e + 1] as [number, number]);
    expect(maskAlignmentIssue({ ...c, spans: shifted })).toMatch(/span/);
    const row = {
      prompt: [
        { role: "system", content: "s" },
        { role: "user", content: "u" },
      ],
      completion: c.messages,
      reward: 1,
      advantage: 0,
      group_id: "r:t",
      task_id: "t",
      trajectory_id: "tr",
      member: 0,
      success: true,
      length: 1,
      wm_calls: 2,
      reward_success: 1,
      reward_length: 0.5,
      reward_wm: 0.5,
      completion_mask: c.mask,
      completion_sources: c.sources,
      completion_text: c.text,
      completion_spans: c.spans,
    };
    expect(TrlRlRecordSchema.safeParse(row).success).toBe(true);
    expect(TrlRlRecordSchema.safeParse({ ...row, completion_mask: flipped }).success).toBe(false);
  });
});
