import { describe, expect, it } from "vitest";
import { type Action, createRandom, type Observation } from "../../src/core/index.ts";
import { chessStateViewer, createChessEnvironment, createChessSuite } from "../../src/envs/chess/index.ts";
import { createFrozenLakeEnvironment, frozenLakeStateViewer } from "../../src/envs/frozenlake/index.ts";
import { stateViewerFamilies, stateViewerFor } from "../../src/envs/state-viewers.ts";
import { createTerminalEnvironment, terminalStateViewer } from "../../src/envs/terminal/index.ts";
import { webStateViewer } from "../../src/envs/web/index.ts";
import { checkRoundTrip } from "./state-views-check.ts";

const FROZEN_KEYS = ["text", "instruction", "stateKey", "legalActions", "data"] as const;

describe("state viewers registry", () => {
  it("has a viewer for every built-in family and none for others", () => {
    expect(stateViewerFamilies()).toEqual(["chess", "frozenlake", "terminal", "web"]);
    for (const family of stateViewerFamilies()) expect(stateViewerFor(family)?.family).toBe(family);
    expect(stateViewerFor("nope")).toBeUndefined();
  });
});

describe("FrozenLake state view", () => {
  it("renders every observation of random episodes back exactly, with and without the task", async () => {
    for (const showCoordinates of [false, true]) {
      const env = createFrozenLakeEnvironment({ showCoordinates });
      const random = createRandom("state-views", "frozenlake", showCoordinates ? 1 : 0);
      let seen = 0;
      for (const task of env.suite.list().slice(0, 6)) {
        for (let seed = 0; seed < 3; seed++) {
          let o: Observation = await env.reset({ taskId: task.id, seed, maxSteps: 12 });
          for (let i = 0; i < 40; i++) {
            const state = checkRoundTrip(frozenLakeStateViewer, o, FROZEN_KEYS, task);
            checkRoundTrip(frozenLakeStateViewer, o, FROZEN_KEYS);
            expect(state["agent.row"]).toBe(o.data?.row);
            expect(state["agent.col"]).toBe(o.data?.col);
            seen++;
            const moves = o.legalActions ?? [];
            const r = await env.step(moves[Math.floor(random.next() * moves.length)] as Action);
            o = r.observation;
            if (r.terminated || r.truncated) {
              const end = checkRoundTrip(frozenLakeStateViewer, o, FROZEN_KEYS, task);
              expect(end.done).toBe(true);
              break;
            }
          }
        }
      }
      expect(seen).toBeGreaterThan(20);
      await env.close();
    }
  });

  it("knows start from frozen with the task, and a moved agent renders a moved player", async () => {
    const env = createFrozenLakeEnvironment();
    const task = env.suite.get("4x4");
    const o = await env.reset({ taskId: "4x4", seed: 0 });
    const state = frozenLakeStateViewer.view(o, task);
    expect(state["cell.0.0"]).toBe("S");
    expect(state["cell.1.1"]).toBe("H");
    expect(state["cell.3.3"]).toBe("G");
    expect(frozenLakeStateViewer.view(o)["cell.0.0"]).toBeUndefined();
    const moved = frozenLakeStateViewer.render({ ...state, "agent.col": 1 }, o, task);
    expect(moved.text).not.toBe(o.text);
    const right = await env.step({ type: "move", direction: "right" });
    // Slippery ice: the view of where the player landed renders what the environment showed.
    const reached = frozenLakeStateViewer.render(
      {
        ...state,
        "agent.row": right.observation.data?.row as number,
        "agent.col": right.observation.data?.col as number,
      },
      o,
      task,
    );
    expect(reached.text).toBe(right.observation.text);
    expect(reached.stateKey).toBe(right.observation.stateKey);
    const inHole = frozenLakeStateViewer.render({ ...state, "agent.row": 1, "agent.col": 1 }, o, task);
    expect(inHole.text.endsWith("You fell into a hole.")).toBe(true);
    await env.close();
  });
});

const CHESS_KEYS = ["text", "instruction", "stateKey", "legalActions", "data"] as const;

describe("chess state view", () => {
  it("renders every observation of solution and random games back exactly", async () => {
    const env = createChessEnvironment({ opponent: "solution", offLineOpponent: "first-legal" });
    const suite = createChessSuite();
    const random = createRandom("state-views", "chess");
    let seen = 0;
    for (const task of suite.list().slice(0, 8)) {
      const moves = suite.puzzle(task.id).moves;
      for (const mode of ["solution", "random"] as const) {
        let o = await env.reset({ taskId: task.id, seed: 0 });
        for (let i = 1; i < 40; i += 2) {
          const state = checkRoundTrip(chessStateViewer, o, CHESS_KEYS);
          expect(state["legalMoves.count"]).toBe(o.data?.legalMoveCount);
          seen++;
          const legal = o.legalActions ?? [];
          const action: Action =
            mode === "solution" && i < moves.length
              ? { type: "uci", move: moves[i] as string }
              : (legal[Math.floor(random.next() * legal.length)] as Action);
          const r = await env.step(action);
          o = r.observation;
          if (r.terminated || r.truncated) {
            checkRoundTrip(chessStateViewer, o, CHESS_KEYS);
            break;
          }
        }
      }
    }
    expect(seen).toBeGreaterThan(10);
    await env.close();
  });

  it("a moved piece renders a changed board and FEN", async () => {
    const env = createChessEnvironment({ opponent: "solution", offLineOpponent: "first-legal" });
    const task = createChessSuite().list()[0];
    if (task === undefined) throw new Error("no chess task");
    const o = await env.reset({ taskId: task.id, seed: 0 });
    const state = chessStateViewer.view(o);
    const [square] = Object.entries(state).filter(([k, v]) => k.startsWith("square.") && v === "K")[0] ?? [];
    expect(square).toBeDefined();
    const after = await env.step(o.legalActions?.[0] as Action);
    const next = chessStateViewer.view(after.observation);
    const changed = chessStateViewer.render(next, o);
    expect(changed.text).not.toBe(o.text);
    expect(changed.stateKey).toBe(after.observation.stateKey);
    await env.close();
  });
});

const TERMINAL_KEYS = ["text", "instruction", "stateKey", "data"] as const;

describe("terminal state view", () => {
  it("renders every observation of oracle episodes back exactly", async () => {
    for (const config of [{}, { includeStateView: false, transcriptLength: 0 }]) {
      const env = createTerminalEnvironment(config);
      let seen = 0;
      for (const task of env.suite.list().slice(0, 6)) {
        let o = await env.reset({ taskId: task.id, seed: 1 });
        for (let i = 0; i < 30; i++) {
          const state = checkRoundTrip(terminalStateViewer, o, TERMINAL_KEYS);
          expect(state.cwd).toBe(o.data?.cwd);
          seen++;
          const action = await env.oracleAction();
          if (action === null) break;
          const r = await env.step(action);
          o = r.observation;
          if (r.terminated || r.truncated) {
            checkRoundTrip(terminalStateViewer, o, TERMINAL_KEYS);
            break;
          }
        }
      }
      expect(seen).toBeGreaterThan(6);
      await env.close();
    }
  });

  it("reads the command back from the text, and a changed file changes the state key", async () => {
    const env = createTerminalEnvironment();
    const task = env.suite.list()[0];
    if (task === undefined) throw new Error("no terminal task");
    await env.reset({ taskId: task.id, seed: 1 });
    const r = await env.step({ type: "shell", command: "echo 'a\nb' && printf x >&2; touch new.txt" });
    const state = terminalStateViewer.view(r.observation);
    expect(state.command).toBe("echo 'a\nb' && printf x >&2; touch new.txt");
    expect(state.stderr).toBe("x");
    const paths = state["fs.paths"] as string[];
    const file = paths.find((p) => p.endsWith("/new.txt"));
    expect(file).toBeDefined();
    const at = `fs.${String(file).replaceAll(".", "%2E")}`;
    expect(state[`${at}.kind`]).toBe("file");
    const edited = terminalStateViewer.render({ ...state, [`${at}.size`]: 3 }, r.observation);
    expect(edited.stateKey).not.toBe(r.observation.stateKey);
    expect(edited.text).toBe(r.observation.text);
    const cd = terminalStateViewer.render({ ...state, cwd: "/tmp" }, r.observation);
    expect(cd.text).toContain("cwd: /tmp");
    await env.close();
  });
});

describe("web state view (format edge cases)", () => {
  const axtree = [
    'text "Pick one: \\"a\\""',
    '[3] combobox "Size" value="M" options=["S","M","L"] focused',
    "  [4] checkbox checked checked",
    '  img "logo"',
    '[7] button "Menu" collapsed disabled',
    "… (12 more lines cut)",
  ].join("\n");
  const o: Observation = {
    text: `Instruction: Do it\nnow\n${axtree}`,
    instruction: "Do it\nnow",
    axtree,
    url: "/tasks/x/",
    title: "X",
    focused: '[3] combobox "Size" value="M" options=["S","M","L"] focused',
    data: { step: 2 },
  };
  const keys = ["text", "instruction", "axtree", "url", "title", "focused", "data"] as const;

  it("keeps lines it cannot write back raw, and renders all of them back", () => {
    const state = checkRoundTrip(webStateViewer, o, keys);
    expect(state.order).toEqual(["line:0", "el:3", "line:2", "line:3", "el:7", "line:5"]);
    expect(state["line:2"]).toBeUndefined();
    expect(state["line.2.raw"]).toBe("  [4] checkbox checked checked");
    expect(state["line.0.text"]).toBe('Pick one: "a"');
    expect(state["line.3.kind"]).toBe("img");
    expect(state["el.3.options"]).toEqual(["S", "M", "L"]);
    expect(state["el.7.expanded"]).toBe(false);
    expect(state.focus).toBe("3");
    expect(state.instruction).toBe("Do it\nnow");
  });

  it("a changed element renders a changed line and focus", () => {
    const state = webStateViewer.view(o);
    const r = webStateViewer.render({ ...state, "el.3.value": "L", "el.7.expanded": true }, o);
    expect(r.axtree?.split("\n")[1]).toBe('[3] combobox "Size" value="L" options=["S","M","L"] focused');
    expect(r.axtree?.split("\n")[4]).toBe('[7] button "Menu" expanded disabled');
    expect(r.focused).toBe('[3] combobox "Size" value="L" options=["S","M","L"] focused');
    const blurred = webStateViewer.render({ ...state, focus: null, "el.3.focused": false }, o);
    expect(blurred.focused).toBe("");
  });
});
