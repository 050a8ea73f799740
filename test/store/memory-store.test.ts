import { createMemoryStore } from "../../src/store/index.ts";
import { describeStoreConformance } from "../conformance/store-conformance.ts";

describeStoreConformance("memory", () => createMemoryStore());
