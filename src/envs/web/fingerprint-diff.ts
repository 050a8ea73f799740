import { canonicalJson, sha256Hex } from "../../core/index.ts";

/**
 * Which part of a web state fingerprint changed. The fingerprint is the sha256 of the canonical JSON
 * of its parts (web-snapshot.ts `fingerprintPartsOf`: url, axtree, focused, dom, globals, ended,
 * and noise/tab once perturbed); a hash alone cannot say what differs, so the parts' own digests are
 * kept beside it (`FingerprintMemo`) and compared when a replay reaches another state.
 */

/** The digest of each fingerprint part (sha256 of its canonical JSON). */
export type PartDigests = Record<string, string>;

/** The fingerprint of `parts`, as `fingerprint()` computes it. */
export function fingerprintOf(parts: Record<string, unknown>): string {
  return sha256Hex(canonicalJson(parts));
}

export function partDigests(parts: Record<string, unknown>): PartDigests {
  const out: PartDigests = {};
  for (const [key, value] of Object.entries(parts)) out[key] = sha256Hex(canonicalJson(value ?? null));
  return out;
}

/** The names of the parts whose digests differ (a part present on one side only counts), sorted. */
export function changedParts(expected: PartDigests, actual: PartDigests): string[] {
  const keys = new Set([...Object.keys(expected), ...Object.keys(actual)]);
  return [...keys].filter((k) => expected[k] !== actual[k]).sort();
}

/**
 * The part digests of the fingerprints an environment computed lately (bounded, oldest dropped):
 * lets a replay mismatch against a fingerprint recorded earlier name the parts that changed.
 */
export class FingerprintMemo {
  /** The parts themselves (never changed once read): their digests are computed only when asked. */
  private readonly parts = new Map<string, Record<string, unknown>>();

  constructor(private readonly capacity = 256) {}

  /** Remembers the parts of a fingerprint; returns the fingerprint. */
  remember(parts: Record<string, unknown>): string {
    const print = fingerprintOf(parts);
    this.parts.delete(print);
    this.parts.set(print, parts);
    while (this.parts.size > this.capacity) {
      const oldest = this.parts.keys().next().value as string;
      this.parts.delete(oldest);
    }
    return print;
  }

  get(print: string): PartDigests | undefined {
    const parts = this.parts.get(print);
    return parts ? partDigests(parts) : undefined;
  }
}
