import { hash } from "node:crypto";
import { sha256Head } from "./sha256-head.ts";

/** sha256 hex of a string or bytes. Stable across processes and machines. */
export function sha256Hex(input: string | Uint8Array): string {
  return hash("sha256", input, "hex");
}

/** The stable key used for every derived seed: parts joined with '|'. */
export function seedKey(...parts: ReadonlyArray<string | number>): string {
  return parts.map(String).join("|");
}

/** A 32-bit unsigned seed from the sha256 of `parts.join('|')` (e.g. taskId|rollout|purpose). */
export function stableSeed(...parts: ReadonlyArray<string | number>): number {
  // In-process for short keys (see sha256Head): the same digest's first word.
  return sha256Head(seedKey(...parts))[0];
}

/**
 * JSON with object keys sorted, so that equal values always give equal text (used for fingerprints,
 * content hashes and byte-identical exports).
 */
export function canonicalJson(value: unknown): string {
  // A scalar has no keys to sort (the common case in worldbook builds, once per state field).
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value instanceof Uint8Array) return Buffer.from(value).toString("base64");
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[key];
      if (v !== undefined) out[key] = sortKeys(v);
    }
    return out;
  }
  return value;
}
