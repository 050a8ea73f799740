import { defineConfig } from "vitest/config";

// `npx vitest run --config examples/vitest.config.ts`: runs the example conformance suite, with
// "rehearsal" resolved to the sources of this checkout (the `rehearsal-source` export condition).
export default defineConfig({
  resolve: { conditions: ["rehearsal-source"] },
  ssr: { resolve: { conditions: ["rehearsal-source"], externalConditions: ["rehearsal-source"] } },
  test: { root: "examples", include: ["*.test.ts"], testTimeout: 60_000 },
});
