import { createMemoryStore } from "../../src/store/index.ts";
import { describeStoreConformance } from "../../src/testing/index.ts";

describeStoreConformance("memory", () => createMemoryStore());
