import { describe, expect, it } from "vitest";
import {
  type Action,
  createRandom,
  type HistoryEntry,
  type Observation,
  type PolicyContext,
  type Task,
} from "../../src/core/index.ts";
import { createHeuristicWebPolicy } from "../../src/policies/heuristic-web/heuristic-web-policy.ts";
import { recoveryAction } from "../../src/policies/heuristic-web/recovery.ts";

const task: Task = {
  id: "t",
  instruction: "",
  family: "web",
  seed: 0,
  split: "train",
  verifier: { kind: "page" },
  tags: [],
};

const LOGIN_INS = 'Enter the username "kofi54" and the password "paRE496sa" and press Log in.';
const LOGIN = `text "${LOGIN_INS.replace(/"/g, '\\"')}"
[11] div "Username Password"
  [14] textbox "Username" value=""
  [16] textbox "Password" value=""
  [17] button "Log in"`;

function obs(axtree: string, extra: Partial<Observation> = {}, instruction = LOGIN_INS): Observation {
  return {
    text: `Instruction: ${instruction}\n${axtree}`,
    axtree,
    instruction,
    data: { viewport: { width: 800, height: 600 } },
    ...extra,
  };
}

const entry = (observation: Observation, action: Action | null): HistoryEntry => ({
  observation,
  action,
  raw: JSON.stringify(action),
});

/** A context whose first observation is the clean page, then `steps`, now at `current`. */
function ctx(
  current: Observation,
  steps: HistoryEntry[] = [],
  first: Observation = obs(LOGIN),
): PolicyContext {
  const history = [entry(first, { type: "type", text: "kofi54", elementId: "14" }), ...steps];
  return { task, observation: current, history, stepIndex: history.length };
}

const greedy = { n: 4, temperature: 0, random: createRandom("r") };

describe("recoveryAction", () => {
  it("presses Escape on a native browser dialog", () => {
    const o = obs(LOGIN, {
      data: { nativeDialog: { type: "confirm", message: "Leave site?" } },
    });
    expect(recoveryAction(ctx(o))).toEqual({ type: "key", keys: "Escape" });
    const failed = obs(LOGIN, { error: { code: "native_dialog_open", message: "a dialog is open" } });
    expect(recoveryAction(ctx(failed))).toEqual({ type: "key", keys: "Escape" });
  });

  it("switches back to the task tab when another tab took the focus, not for a background tab", () => {
    const foreign = obs('[3] textbox "Note" value="Agenda: bud"', {
      data: {
        tabs: [
          { index: 1, title: "Task", active: false },
          { index: 2, title: "Notes", active: true },
        ],
      },
    });
    expect(recoveryAction(ctx(foreign))).toEqual({ type: "key", keys: "Control+1" });
    const background = obs(LOGIN, {
      data: {
        tabs: [
          { index: 1, title: "Task", active: true },
          { index: 2, title: "Notes", active: false },
        ],
      },
    });
    expect(recoveryAction(ctx(background))).toBeNull();
  });

  it("does nothing on a clean page", () => {
    expect(recoveryAction(ctx(obs(LOGIN)))).toBeNull();
    expect(recoveryAction({ task, observation: obs(LOGIN), history: [], stepIndex: 0 })).toBeNull();
  });

  it("closes a new modal with No thanks, never Subscribe", () => {
    const o = obs(`${LOGIN}
text "Join our newsletter"
text "Get 10% off your next order."
[901001] button "Subscribe"
[901002] button "No thanks"`);
    expect(recoveryAction(ctx(o))).toEqual({ type: "click", elementId: "901002" });
  });

  it("prefers the close-type button and skips buttons that do nothing", () => {
    const o = obs(`${LOGIN}
text "Version 3.4 is available"
[901001] button "Restart now"
[901002] button "Later"`);
    expect(recoveryAction(ctx(o))).toEqual({ type: "click", elementId: "901002" });
    const survey = obs(`${LOGIN}
text "How are we doing?"
[901001] button "1"
[901002] button "5"
[901003] button "Skip"`);
    expect(recoveryAction(ctx(survey))).toEqual({ type: "click", elementId: "901003" });
  });

  it("leaves the task's own dialog buttons alone (present from the first observation)", async () => {
    const ins = 'Close the dialog box by clicking "OK".';
    const page = `text "${ins.replace(/"/g, '\\"')}"
text "Unsaved changes"
[5] button "Close"
text "Do you want to continue?"
[7] button "Cancel"
[8] button "OK"`;
    const first = obs(page, {}, ins);
    const context = { task, observation: obs(page, {}, ins), history: [entry(first, null)], stepIndex: 1 };
    expect(recoveryAction(context)).toBeNull();
    expect(recoveryAction({ ...context, history: [] })).toBeNull();
    const proposal = await createHeuristicWebPolicy().propose(context, greedy);
    expect(proposal.candidates[0]?.action).toEqual({ type: "click", elementId: "8" });
  });

  it("does not treat a new button the instruction names as noise", () => {
    const ins = 'Fill in the form, then click "Done".';
    const first = obs('[3] textbox "Name" value=""', {}, ins);
    const now = obs('[3] textbox "Name" value="x"\n[4] button "Done"', {}, ins);
    expect(
      recoveryAction({ task, observation: now, history: [entry(first, null)], stepIndex: 1 }),
    ).toBeNull();
  });

  it("presses Escape for a modal that only Escape closes", () => {
    const o = obs(`${LOGIN}
text "Keyboard shortcuts"
text "Ctrl+K search · Ctrl+S save · Esc close"`);
    expect(recoveryAction(ctx(o))).toEqual({ type: "key", keys: "Escape" });
  });

  it("waits for a toast that goes away by itself, but not a third time in a row", () => {
    const o = obs(`${LOGIN}\ntext "Saving…"`);
    expect(recoveryAction(ctx(o))).toEqual({ type: "wait", ms: 500 });
    const wait: Action = { type: "wait", ms: 500 };
    expect(recoveryAction(ctx(o, [entry(o, wait)]))).toEqual(wait);
    expect(recoveryAction(ctx(o, [entry(o, wait), entry(o, wait)]))).toBeNull();
    const offline = obs(`${LOGIN}\ntext "You are offline. Reconnecting…"`);
    expect(recoveryAction(ctx(offline))).toEqual(wait);
  });

  it("drags a movable window toward the bottom-left corner, once", () => {
    const o = obs(`${LOGIN}
[901001] button "Move Terminal"
[901002] textbox "Terminal text" value="$ npm run build"`);
    const drag: Action = { type: "drag", from: { elementId: "901001" }, to: { x: 10, y: 590 } };
    expect(recoveryAction(ctx(o))).toEqual(drag);
    expect(recoveryAction(ctx(o, [entry(o, drag)]))).toBeNull();
  });

  it("closes the second pop-up of a compositional widget after the first", () => {
    const banner = obs(`${LOGIN}
text "New features are here"
[901001] button "Got it"`);
    expect(recoveryAction(ctx(banner))).toEqual({ type: "click", elementId: "901001" });
    const popup = obs(`${LOGIN}
text "Try the new editor"
text "Switch any time in settings."
[901021] button "Close"`);
    const steps = [entry(banner, { type: "click", elementId: "901001" })];
    expect(recoveryAction(ctx(popup, steps))).toEqual({ type: "click", elementId: "901021" });
  });

  it("handles the topmost widget first and escalates to Escape after clicks that do nothing", () => {
    const o = obs(`${LOGIN}
text "Sync complete"
[901001] button "Dismiss"
text "Cookie settings"
text "Choose which cookies we may use."
[901021] button "Manage"
[901022] button "Accept"`);
    const accept: Action = { type: "click", elementId: "901022" };
    expect(recoveryAction(ctx(o))).toEqual(accept);
    expect(recoveryAction(ctx(o, [entry(o, accept)]))).toEqual(accept);
    expect(recoveryAction(ctx(o, [entry(o, accept), entry(o, accept)]))).toEqual({
      type: "key",
      keys: "Escape",
    });
  });
});

describe("heuristic policy with recovery", () => {
  const modal = obs(`${LOGIN}
text "Join our newsletter"
[901001] button "Subscribe"
[901002] button "No thanks"`);

  it("returns the recovery action as every candidate, deterministically", async () => {
    const policy = createHeuristicWebPolicy();
    expect(policy.name).toBe("heuristic");
    const a = await policy.propose(ctx(modal), { n: 8, temperature: 1, random: createRandom("a") });
    const b = await policy.propose(ctx(modal), { n: 8, temperature: 1, random: createRandom("b") });
    expect(a.candidates).toHaveLength(8);
    for (const c of a.candidates) {
      expect(c.action).toEqual({ type: "click", elementId: "901002" });
      expect(c.raw).toBe(JSON.stringify(c.action));
    }
    expect(b).toEqual(a);
    expect(recoveryAction(ctx(modal))).toEqual(recoveryAction(ctx(modal)));
  });

  it("never recovers with recovery: false, and is named heuristic-norecovery", async () => {
    const policy = createHeuristicWebPolicy({ recovery: false });
    expect(policy.name).toBe("heuristic-norecovery");
    const dialog = obs(LOGIN, { data: { nativeDialog: { type: "alert", message: "Hi" } } });
    for (const o of [modal, dialog]) {
      const p = await policy.propose(ctx(o), greedy);
      for (const c of p.candidates) {
        expect(c.action).not.toEqual({ type: "key", keys: "Escape" });
        expect(c.action).not.toEqual({ type: "click", elementId: "901002" });
      }
    }
  });

  it("acts exactly as without recovery when nothing interrupts", async () => {
    const on = createHeuristicWebPolicy();
    const off = createHeuristicWebPolicy({ recovery: false });
    const o = obs(LOGIN);
    const options = { n: 16, temperature: 1 };
    const a = await on.propose(ctx(o), { ...options, random: createRandom("same") });
    const b = await off.propose(ctx(o), { ...options, random: createRandom("same") });
    expect(a).toEqual(b);
  });
  it("compares with the first view of the task page, not with a noise tab shown at reset", () => {
    const foreignFirst = obs('[3] textbox "Note" value="Hi Kofi"', {
      data: {
        viewport: { width: 800, height: 600 },
        tabs: [
          { index: 1, title: "Task", active: false },
          { index: 2, title: "Draft", active: true },
        ],
      },
    });
    const page = `${LOGIN}\n[20] button "Close"`;
    const now = obs(page, {
      data: {
        viewport: { width: 800, height: 600 },
        tabs: [
          { index: 1, title: "Task", active: true },
          { index: 2, title: "Draft", active: false },
        ],
      },
    });
    const context: PolicyContext = {
      task,
      observation: now,
      history: [entry(foreignFirst, { type: "key", keys: "Control+1" })],
      stepIndex: 1,
    };
    // The task's own "Close" is not an interruption: the page is seen for the first time.
    expect(recoveryAction(context)).toBeNull();
  });

  it("dismisses an interruption already present in the first view when its button is unmistakable", () => {
    const first = obs(
      `${LOGIN}\ntext "Join our newsletter"\n[901001] button "Subscribe"\n[901002] button "No thanks"`,
    );
    const context: PolicyContext = { task, observation: first, history: [], stepIndex: 0 };
    expect(recoveryAction(context)).toEqual({ type: "click", elementId: "901002" });
    // An ordinary "OK" or "Close" in the first view stays the page's own.
    const plain = obs(`${LOGIN}\ntext "Notice"\n[901001] button "OK"`);
    expect(recoveryAction({ task, observation: plain, history: [], stepIndex: 0 })).toBeNull();
  });
});
