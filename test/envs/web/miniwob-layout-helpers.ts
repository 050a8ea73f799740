import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
/** A MiniWoB++-layout folder: `miniwob/<task>.html`, shared `core/` and `common/`, and `broken/` pages. */
export const FIXTURE_MINIWOB_LAYOUT = join(here, "..", "..", "fixtures", "miniwob-layout");
export const FIXTURE_MINIWOB_PAGES = join(FIXTURE_MINIWOB_LAYOUT, "miniwob");
export const MINIWOB_LAYOUT_TASKS = [
  "click-button",
  "click-checkboxes",
  "click-link",
  "enter-date",
  "enter-text",
  "use-autocomplete",
] as const;
