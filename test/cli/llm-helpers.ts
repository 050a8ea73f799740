/** The environment that points the CLI's llm policy at a (replay) endpoint: no retries, so a miss fails at once. */
export function llmEnv(baseUrl: string, model = "test-model"): Record<string, string> {
  return {
    REHEARSAL_LLM_BASE_URL: baseUrl,
    REHEARSAL_LLM_MODEL: model,
    REHEARSAL_LLM_MAX_RETRIES: "0",
  };
}
