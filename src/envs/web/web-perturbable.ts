import {
  type Action,
  type ActionError,
  PerturbationEffectSchema,
  type PerturbationEvent,
  type PerturbationRefusal,
  type PerturbationStatus,
  UserError,
} from "../../core/index.ts";
import { firstElementId } from "./accessibility-text.ts";
import { performAction, playwrightMoveAndWheel } from "./actions.ts";
import type { Episode } from "./episode.ts";
import type { EpisodeIO } from "./episode-io.ts";
import { EpisodePerturbations } from "./perturbations.ts";
import { withTimeout } from "./web-errors.ts";

/**
 * The perturbable half of the web environment (core `Perturbable`): applying perturbation effects to
 * the live episode, advancing them a step, their status, the verifier digest, and routing an agent's
 * action through the perturbations (a native dialog, noise tabs) before the page gets it. The
 * environment delegates here; the browser side of each effect is perturbations.ts and page/noise.js.
 */
export class WebPerturbable {
  constructor(
    private readonly io: EpisodeIO,
    /** The task oracle's next action in the live episode (targets of occluders). */
    private readonly oracleAction: () => Promise<Action | null>,
  ) {}

  /** The episode's perturbations, created by the first one applied. */
  of(ep: Episode): EpisodePerturbations {
    if (!ep.noise) {
      ep.noise = new EpisodePerturbations(ep, {
        evalTask: (expression) => this.io.eval(ep, expression),
        defaultViewport: this.io.config.viewport,
        timeoutMs: this.io.config.actionTimeoutMs,
      });
    }
    return ep.noise;
  }

  /**
   * Applies a perturbation now (the noise layer calls this after the agent's action, so the next
   * observation shows it). Returns a refusal when it cannot apply here (nothing changed then).
   */
  async apply(ep: Episode, event: PerturbationEvent): Promise<PerturbationRefusal | null> {
    const parsed = PerturbationEffectSchema.safeParse(event.effect);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new UserError(
        "env.perturbation_invalid",
        `perturbation ${event.id}: ${issue?.path.join(".") || "effect"}: ${issue?.message}`,
      );
    }
    const effect = parsed.data;
    const noise = this.of(ep);
    if (effect.kind === "native_dialog" && !ep.frozen) await this.io.freeze(ep, await this.io.view(ep, true));
    const target =
      effect.kind === "widget" && effect.widget.layout === "occluder" ? await this.targetElement(ep) : null;
    const reason = await this.io.guard(ep, "applyPerturbation", () => noise.apply(event.id, effect, target));
    if (reason !== null && effect.kind === "native_dialog") ep.frozen = null;
    return reason === null ? null : { id: event.id, reason };
  }

  advance(ep: Episode): Promise<boolean> {
    const noise = ep.noise;
    return noise?.used
      ? this.io.guard(ep, "advancePerturbations", () => noise.advance())
      : Promise.resolve(false);
  }

  async status(ep: Episode): Promise<PerturbationStatus[]> {
    const noise = ep.noise;
    if (!noise) return [];
    const layer = ep.frozen ? ep.frozen.layerStatus : await this.io.readLayerStatus(ep, "perturbationStatus");
    return noise.status(layer);
  }

  /** sha256 of everything the task's verifier can read (see page/agent.js `verifierState`). */
  verifierDigest(ep: Episode): Promise<string> {
    if (ep.frozen) return Promise.resolve(ep.frozen.verifier);
    return this.io.guard(ep, "verifierDigest", () => this.io.readVerifierDigest(ep));
  }

  /**
   * Performs the agent's action: the perturbations take it first (keys for a native dialog, tab
   * switching, Escape for a widget), else the page the agent sees gets it, under the action deadline.
   */
  async act(ep: Episode, action: Action): Promise<ActionError | null> {
    const operation = `${action.type} action`;
    const deadline = this.io.actionDeadlineMs(action);
    const noise = ep.noise;
    const intercepted = noise ? await this.io.guard(ep, operation, () => noise.intercept(action)) : undefined;
    if (intercepted !== undefined) {
      if (noise && !noise.dialogOpen) ep.frozen = null;
      return intercepted;
    }
    const config = this.io.config;
    const page = noise ? noise.activePage : ep.handle.page;
    return this.io.guard(
      ep,
      operation,
      () =>
        performAction(
          {
            page,
            viewport: noise ? noise.currentViewport : config.viewport,
            scrollAmountPx: config.scrollAmountPx,
            evaluate: (expression) =>
              page === ep.handle.page
                ? this.io.eval(ep, expression)
                : withTimeout(page.evaluate(expression), config.actionTimeoutMs, "a page evaluation"),
            moveAndWheel: (x, y, deltaX, deltaY) =>
              page === ep.handle.page
                ? ep.handle.moveAndWheel(x, y, deltaX, deltaY)
                : playwrightMoveAndWheel(page, x, y, deltaX, deltaY),
          },
          action,
        ),
      deadline,
    );
  }

  /**
   * The element a targeted perturbation aims at: the one the task's oracle would act on next, else the
   * focused element, else the first visible interactive one.
   */
  private async targetElement(ep: Episode): Promise<string | null> {
    const oracle = await this.oracleAction().catch(() => null);
    const fromOracle =
      oracle && "elementId" in oracle && typeof oracle.elementId === "string" ? oracle.elementId : undefined;
    if (fromOracle !== undefined) return fromOracle;
    const view = await this.io.view(ep);
    return firstElementId(view.focused || view.axtree);
  }
}
