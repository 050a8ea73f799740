import { type Action, type StateRecord, UserError } from "../../core/index.ts";
import type { ChatClient } from "../../llm/index.ts";
import type { ActionArgs } from "../worldbook/conditions.ts";
import type { Worldbook } from "../worldbook/schema.ts";
import {
  type Simulator,
  type SimulatorOptions,
  type SimulatorOptionsInput,
  SimulatorOptionsSchema,
  type StepContext,
} from "./contract.ts";
import { fullLlmSystem, fullRulesSystem } from "./full-system.ts";
import { drawOutcome, mergeOutcomes, type Outcome } from "./outcomes.ts";
import { indexWorldbook } from "./retrieve.ts";
import type { StepInputs } from "./step-context.ts";
import { copySystem, gatesSystem, retrievalSystem, rulesSystem } from "./systems.ts";
import { indexValidation } from "./validation.ts";

export interface SimulatorDeps {
  /** The chat client the LLM proposer talks to (required for `proposer: "llm"`). */
  llm?: ChatClient;
  /**
   * The observation contract: why the family could not show `state` as an observation (its state
   * viewer cannot render it, e.g. an impossible chess position), or undefined when it can. The
   * validation gate rejects such a proposal; the world-model environment passes its viewer's render.
   */
  observable?: (state: StateRecord, taskId: string) => string | undefined;
}

function parseOptions(input: SimulatorOptionsInput): SimulatorOptions {
  const parsed = SimulatorOptionsSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`);
  throw new UserError(
    "worldmodel.bad_options",
    `createSimulator(): options are invalid: ${issues.join("; ")}. Fix: see SimulatorOptionsSchema in src/worldmodel/runtime/contract.ts`,
    { cause: parsed.error },
  );
}

/** The simulator of one worldbook (see `Simulator`): every system of the evaluation, by options. */
export function createSimulator(
  book: Worldbook,
  input: SimulatorOptionsInput = {},
  deps: SimulatorDeps = {},
): Simulator {
  const options = parseOptions(input);
  if (options.proposer === "llm" && !deps.llm)
    throw new UserError(
      "worldmodel.no_llm",
      'createSimulator(): proposer "llm" needs a chat client. Fix: pass deps.llm (createChatClient) or use proposer "rules"',
    );
  const index = indexWorldbook(book);
  const validation = indexValidation(book);

  async function outcomes(
    state: Parameters<Simulator["predict"]>[0],
    action: Action,
    context: StepContext,
  ): Promise<Outcome[]> {
    const inputs: StepInputs = {
      book,
      index,
      validation,
      options,
      state,
      action,
      args: action as unknown as ActionArgs,
      context,
      memory: context.memory ?? [],
      ...(deps.observable ? { observable: deps.observable } : {}),
    };
    switch (options.system) {
      case "copy":
        return copySystem(inputs);
      case "retrieval":
        return retrievalSystem(inputs);
      case "rules":
        return rulesSystem(inputs);
      case "gates":
        return gatesSystem(inputs);
      case "full":
        return options.proposer === "llm" && deps.llm
          ? fullLlmSystem(inputs, deps.llm)
          : fullRulesSystem(inputs);
    }
  }

  return {
    options,
    book,
    async predict(state, action, context) {
      return mergeOutcomes(await outcomes(state, action, context));
    },
    async step(state, action, context, draw) {
      return drawOutcome(mergeOutcomes(await outcomes(state, action, context)), draw).step;
    },
  };
}
