import type { Action, Observation, PageWidget, PerturbationEffect } from "../core/index.ts";
import { createRandom } from "../core/index.ts";
import { parseAxLine } from "../envs/web/accessibility-text.ts";
import { generatorByName } from "./catalog.ts";
import type { NoiseEventRecord } from "./noisy-environment.ts";

/** Ids of noise-layer elements start here (see src/envs/web/page/noise.js). */
const NOISE_ID_BASE = 900000;

/** Buttons of the noise layer in the observation's accessibility text. */
function noiseButtons(observation: Observation): Array<{ id: string; name: string }> {
  const out: Array<{ id: string; name: string }> = [];
  for (const raw of (observation.axtree ?? observation.text).split("\n")) {
    const line = parseAxLine(raw);
    if (line?.kind === "element" && line.element.role === "button" && Number(line.element.id) > NOISE_ID_BASE)
      out.push({ id: line.element.id, name: line.element.name });
  }
  return out;
}

function widgetChain(w: PageWidget | undefined): PageWidget[] {
  const out: PageWidget[] = [];
  for (let cur = w; cur; cur = cur.followUp) out.push(cur);
  return out;
}

/**
 * The generator's own recovery, as the next action to take (null: nothing to do now). It knows
 * what fired (privileged), so it is the reference recovery for tests and for recovery demonstrations
 * — not a policy. Widgets: press a button that closes (or advances) the widget, else Escape when it
 * closes on Escape, else drag its handle away, else wait for it to expire. Dialogs: Escape. Tabs:
 * Control+1. Scroll jumps: scroll back. A shrunk window: wait.
 */
export function recoveryAction(event: NoiseEventRecord, observation: Observation): Action | null {
  const generator = generatorByName(event.generator);
  if (!generator || event.refused) return null;
  const effect: PerturbationEffect = generator.build(createRandom("noise-event", event.seed));
  switch (effect.kind) {
    case "native_dialog":
      return { type: "key", keys: "Escape" };
    case "tab":
      return effect.focus === false ? null : { type: "key", keys: "Control+1" };
    case "scroll_jump":
      return { type: "scroll", direction: effect.dy > 0 ? "up" : "down", amount: Math.abs(effect.dy) };
    case "viewport":
      return { type: "wait", ms: 200 };
    case "widget": {
      const chain = widgetChain(effect.widget);
      if (chain[0]?.layout === "spacer") return null;
      const buttons = noiseButtons(observation);
      for (const w of chain) {
        for (const b of w.buttons ?? []) {
          if ((b.effect ?? "close") === "none") continue;
          const hit = buttons.find((x) => x.name === b.label);
          if (hit) return { type: "click", elementId: hit.id };
        }
      }
      if (chain.some((w) => w.closeOnEscape)) return { type: "key", keys: "Escape" };
      const handle = buttons.find((x) => x.name.startsWith("Move "));
      if (handle) {
        const vp = (observation.data?.viewport ?? { width: 800, height: 600 }) as {
          width: number;
          height: number;
        };
        return { type: "drag", from: { elementId: handle.id }, to: { x: 5, y: vp.height - 5 } };
      }
      if (chain.some((w) => w.autoCloseAfter !== undefined)) return { type: "wait", ms: 200 };
      return null;
    }
  }
}
