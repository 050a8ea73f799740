import {
  type Action,
  type Candidate,
  canonicalJson,
  type FingerprintOptions,
  fingerprintAction,
  INVALID_FINGERPRINT,
} from "../core/index.ts";

export interface Bucket {
  fingerprint: string;
  /** How many candidates fell in this bucket (agreement). */
  size: number;
  /** The most frequent exact action of the bucket (ties: smallest canonical JSON). */
  representative: Action;
  /** Raw text of the representative's first occurrence. */
  raw: string;
}

export interface Bucketing {
  /** Valid buckets ranked by size (desc), ties by fingerprint (asc). */
  buckets: Bucket[];
  /** Candidates that did not parse (the shared invalid bucket, never explored). */
  invalid: number;
}

/** Groups candidates by fingerprint and ranks the buckets by agreement with a stable tie-break. */
export function bucketCandidates(
  candidates: ReadonlyArray<Candidate>,
  options: FingerprintOptions,
): Bucketing {
  const groups = new Map<string, Map<string, { action: Action; raw: string; count: number }>>();
  let invalid = 0;
  for (const c of candidates) {
    const fp = fingerprintAction(c.action, options);
    if (fp === INVALID_FINGERPRINT || c.action === null) {
      invalid += 1;
      continue;
    }
    const exact = canonicalJson(c.action);
    let group = groups.get(fp);
    if (!group) {
      group = new Map();
      groups.set(fp, group);
    }
    const entry = group.get(exact);
    if (entry) entry.count += 1;
    else group.set(exact, { action: c.action, raw: c.raw, count: 1 });
  }
  const buckets: Bucket[] = [];
  for (const [fingerprint, group] of groups) {
    let best: { key: string; action: Action; raw: string; count: number } | undefined;
    let size = 0;
    for (const [key, e] of group) {
      size += e.count;
      if (!best || e.count > best.count || (e.count === best.count && key < best.key)) best = { key, ...e };
    }
    if (best) buckets.push({ fingerprint, size, representative: best.action, raw: best.raw });
  }
  buckets.sort(
    (a, b) => b.size - a.size || (a.fingerprint < b.fingerprint ? -1 : a.fingerprint > b.fingerprint ? 1 : 0),
  );
  return { buckets, invalid };
}
