/** Which environment family the demo runs on, with its model-free policy and default tasks. */
export interface DemoProfile {
  env: "web" | "terminal";
  policy: "heuristic" | "template";
  /** The default task ids (loaded when the demo starts). */
  tasks: () => Promise<string[]>;
  /** How the tasks are named in progress lines ("web tasks"). */
  label: string;
}

export const WEB_DEMO: DemoProfile = {
  env: "web",
  policy: "heuristic",
  tasks: async () => [
    "click-checkboxes",
    "login-user",
    "enter-password",
    "settings-toggles",
    "shop-buy",
    "form-wizard",
  ],
  label: "web tasks",
};

/** The terminal suite (every task, both tiers) with the command-template policy. */
export const TERMINAL_DEMO: DemoProfile = {
  env: "terminal",
  policy: "template",
  tasks: async () => {
    const { createTerminalSuite } = await import("../envs/terminal/index.ts");
    return createTerminalSuite()
      .list()
      .map((t) => t.id);
  },
  label: "terminal tasks",
};
