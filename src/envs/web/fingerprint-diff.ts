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
 * The fingerprint of `parts` with the digest of each part, each part serialised once: the canonical
 * JSON of the parts object is its parts' canonical JSON under their sorted keys (`fingerprintOf`
 * itself where a key is an array index, which JSON orders first).
 */
export function fingerprintWithDigests(parts: Record<string, unknown>): {
  print: string;
  digests: PartDigests;
} {
  const digests: PartDigests = {};
  const fields: string[] = [];
  let indexKey = false;
  for (const key of Object.keys(parts).sort()) {
    // Undefined (a missing part) is left out of the parts' JSON; its digest is null's.
    const text = canonicalJson(parts[key]) as string | undefined;
    digests[key] = sha256Hex(text ?? "null");
    if (text !== undefined) fields.push(`${JSON.stringify(key)}:${text}`);
    if (/^(0|[1-9]\d*)$/.test(key)) indexKey = true;
  }
  return { print: indexKey ? fingerprintOf(parts) : sha256Hex(`{${fields.join(",")}}`), digests };
}

/**
 * The part digests of the fingerprints an environment computed lately (bounded, oldest dropped):
 * lets a replay mismatch against a fingerprint recorded earlier name the parts that changed. Only
 * the digests are kept, not the parts (an axtree and a DOM dump each).
 */
export class FingerprintMemo {
  private readonly digests = new Map<string, PartDigests>();

  constructor(private readonly capacity = 256) {}

  /** Remembers the part digests of a fingerprint; returns the fingerprint. */
  remember(parts: Record<string, unknown>): string {
    const { print, digests } = fingerprintWithDigests(parts);
    this.digests.delete(print);
    this.digests.set(print, digests);
    while (this.digests.size > this.capacity) {
      const oldest = this.digests.keys().next().value as string;
      this.digests.delete(oldest);
    }
    return print;
  }

  get(print: string): PartDigests | undefined {
    return this.digests.get(print);
  }
}
