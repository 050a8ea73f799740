import { FROZENLAKE_INSTRUCTION } from "../../envs/frozenlake/suite.ts";
import type { ChatMessage } from "../../llm/messages.ts";

export const ACTING_SYSTEM_PROMPT =
  `You are an agent playing FrozenLake. ${FROZENLAKE_INSTRUCTION} ` +
  "The grid shows P (you), _ (frozen), O (hole) and G (goal). Answer with one JSON action.";

/** The acting prompt: the grid, and the knowledge about the state when there is some to show. */
export function actingMessages(grid: string, knowledge: string | undefined): ChatMessage[] {
  const user = [`Map:\n${grid}`];
  if (knowledge !== undefined) user.push(`Knowledge about this state: ${knowledge}`);
  user.push("Your action:");
  return [
    { role: "system", content: ACTING_SYSTEM_PROMPT },
    { role: "user", content: user.join("\n") },
  ];
}
