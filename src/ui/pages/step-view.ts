import type { StepRecord, VerifierResult } from "../../core/index.ts";
import { fixed, list, pretty, record, verdict } from "../format.ts";
import { type Html, href, html } from "../html.ts";
import { table } from "../layout.ts";

/** The outcome of an episode or leaf: success/failure and the verifier's reason. */
export function outcomeCell(outcome: VerifierResult | undefined): Html {
  if (!outcome) return html`<span class="muted">-</span>`;
  return html`${verdict(outcome.success)} <span class="muted">${outcome.reason ?? ""}</span>`;
}

/** The noise events a step reports (`info.noise`: what fired and what was recovered there). */
export function noiseEvents(step: StepRecord): { fired: unknown[]; recovered: unknown[] } {
  const noise = record(step.info.noise);
  return { fired: list(noise.fired), recovered: list(noise.recovered) };
}

export function noiseCell(step: StepRecord): string {
  const { fired, recovered } = noiseEvents(step);
  const name = (e: unknown) => String(record(e).generator ?? record(e).kind ?? record(e).id ?? "event");
  return [...fired.map((e) => `fired ${name(e)}`), ...recovered.map((e) => `recovered ${name(e)}`)].join(
    ", ",
  );
}

export function actionText(step: StepRecord): string {
  return step.action ? JSON.stringify(step.action) : `unparsed: ${step.parseError?.message ?? step.raw}`;
}

/** One step in full: screenshot, observation (accessibility text), action, reward, noise events. */
export function stepDetail(step: StepRecord): Html {
  const shot = step.observation.screenshot;
  const { fired, recovered } = noiseEvents(step);
  const { noise: _noise, ...info } = step.info;
  const screenshot = shot
    ? html`<img class="screenshot" alt="screenshot of step ${step.index}" src="${href("/artefacts", shot.sha256)}" width="${shot.width}" height="${shot.height}">`
    : html`<p class="empty">no screenshot</p>`;
  const facts = table(
    ["action", "reward", "terminated", "truncated"],
    [[actionText(step), fixed(step.reward), String(step.terminated), String(step.truncated)]],
    { id: "step-facts" },
  );
  return html`<div class="step-grid"><div><h2>Observation</h2><pre class="observation">${step.observation.text}</pre>
${step.observation.url ? html`<p class="muted">url ${step.observation.url}</p>` : ""}
${facts}<h2>Model output</h2><pre class="raw">${step.raw}</pre>
${step.parseError ? html`<p class="bad">parse error: ${step.parseError.message}</p>` : ""}
<h2>Noise events</h2>${fired.length + recovered.length === 0 ? html`<p class="empty">none</p>` : html`<pre class="noise">${pretty({ fired, recovered })}</pre>`}
<details><summary>Step info</summary><pre>${pretty(info)}</pre></details></div>
<div><h2>Screenshot</h2>${screenshot}</div></div>`;
}

/** A compact table of steps: index (linked with `link` when given), action, reward, flags, noise. */
export function stepsTable(
  steps: ReadonlyArray<StepRecord>,
  link?: (index: number) => string,
  current?: number,
): Html {
  return table(
    ["step", "action", "reward", "end", "noise"],
    steps.map((s) => [
      s.index === current || !link
        ? html`<b>${s.index}</b>`
        : html`<a class="step-link" href="${link(s.index)}">${s.index}</a>`,
      actionText(s),
      fixed(s.reward),
      s.terminated ? "terminated" : s.truncated ? "truncated" : "",
      noiseCell(s),
    ]),
    { numeric: [0, 2], id: "steps" },
  );
}
