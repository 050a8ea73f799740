import { LRUCache } from "lru-cache";
import { type Action, canonicalJson, type Observation, sha256Hex } from "../../core/index.ts";
import { checkReplay, stepAll } from "./replay.ts";
import type { WebEnvironment } from "./web-environment.ts";
import type { ReplayMismatchError } from "./web-errors.ts";

export interface BranchRequest {
  taskId: string;
  seed: number;
  prefix: ReadonlyArray<Action>;
  /** Recorded fingerprint of the prefix's state; default: the one recorded when it was parked. */
  expectedFingerprint?: string;
  onMismatch?: "throw" | "report";
}

/** A live environment standing at the end of `prefix`. It belongs to the caller until parked or discarded. */
export interface Branch {
  env: WebEnvironment;
  taskId: string;
  seed: number;
  prefix: Action[];
  observation: Observation | null;
  fingerprint: string;
  /** Steps of the prefix that came from a cached live context (not replayed). */
  reusedSteps: number;
  /** Steps replayed for this branch. */
  replayedSteps: number;
  ended: boolean;
  mismatch: ReplayMismatchError | null;
}

export interface ReplayBrancherOptions {
  /** Makes a new environment when no cached ancestor exists (e.g. createWebEnvironment with a shared pool). */
  create: () => Promise<WebEnvironment>;
  /** Live contexts kept in the LRU (default 4); each holds one browser context. */
  maxLive?: number;
  /** Recorded prefix fingerprints kept (default 10000). */
  maxRecorded?: number;
}

export interface ReplayBrancherStats {
  hits: number;
  misses: number;
  replayedSteps: number;
  reusedSteps: number;
  evictions: number;
  mismatches: number;
  live: number;
}

interface Parked {
  env: WebEnvironment;
  observation: Observation | null;
  ended: boolean;
}

/** Chained sha256 keys: key[k] identifies (taskId, seed, prefix[0..k)). */
export function prefixKeys(taskId: string, seed: number, prefix: ReadonlyArray<Action>): string[] {
  const keys = [sha256Hex(canonicalJson({ taskId, seed }))];
  for (const action of prefix) keys.push(sha256Hex(`${keys[keys.length - 1]}|${canonicalJson(action)}`));
  return keys;
}

/**
 * Branching by replay with a prefix cache. A browser context cannot be cloned, so a cached live
 * context is *consumed* by the branch that takes it: `branchFrom` removes the nearest cached ancestor
 * of the requested prefix from the LRU (or starts a fresh episode when none is cached), replays only
 * the missing suffix, checks the fingerprint against the recorded one and hands the environment to the
 * caller. The caller steps it further and `park`s it again (keyed by its new prefix) to make it
 * available to later branches, or `discard`s it. Evicted entries are closed.
 */
export class ReplayBrancher {
  private readonly options: ReplayBrancherOptions;
  private readonly live: LRUCache<string, Parked>;
  private readonly recorded: LRUCache<string, string>;
  private readonly closing: Promise<void>[] = [];
  private readonly counters = {
    hits: 0,
    misses: 0,
    replayedSteps: 0,
    reusedSteps: 0,
    evictions: 0,
    mismatches: 0,
  };

  constructor(options: ReplayBrancherOptions) {
    this.options = options;
    this.live = new LRUCache<string, Parked>({
      max: options.maxLive ?? 4,
      dispose: (value, _key, reason) => {
        if (reason === "evict" || reason === "set") {
          this.counters.evictions += 1;
          this.closing.push(value.env.close().catch(() => {}));
        }
      },
    });
    this.recorded = new LRUCache<string, string>({ max: options.maxRecorded ?? 10_000 });
  }

  stats(): ReplayBrancherStats {
    return { ...this.counters, live: this.live.size };
  }

  /** The fingerprint recorded for a prefix, if any. */
  recordedFingerprint(taskId: string, seed: number, prefix: ReadonlyArray<Action>): string | undefined {
    const keys = prefixKeys(taskId, seed, prefix);
    return this.recorded.get(keys[keys.length - 1] as string);
  }

  /** A live environment at the end of `request.prefix`, from the nearest cached ancestor. */
  async branchFrom(request: BranchRequest): Promise<Branch> {
    const keys = prefixKeys(request.taskId, request.seed, request.prefix);
    let from = -1;
    let parked: Parked | undefined;
    for (let k = request.prefix.length; k >= 0; k--) {
      const key = keys[k] as string;
      if (this.live.has(key)) {
        parked = this.live.get(key);
        this.live.delete(key);
        from = k;
        break;
      }
    }
    let env: WebEnvironment;
    let observation: Observation | null;
    let ended: boolean;
    if (parked) {
      this.counters.hits += 1;
      env = parked.env;
      observation = parked.observation;
      ended = parked.ended;
    } else {
      this.counters.misses += 1;
      env = await this.options.create();
      observation = await env.reset({ taskId: request.taskId, seed: request.seed });
      ended = false;
      from = 0;
    }
    const rest = request.prefix.slice(from);
    try {
      if (rest.length > 0) ({ observation, ended } = await stepAll(env, rest, observation));
      const fingerprint = await env.fingerprint();
      const finalKey = keys[keys.length - 1] as string;
      const expected = request.expectedFingerprint ?? this.recorded.get(finalKey);
      let mismatch: ReplayMismatchError | null;
      try {
        mismatch = checkReplay(
          { ...request, ...(expected === undefined ? {} : { expectedFingerprint: expected }) },
          request.prefix.length,
          fingerprint,
        );
      } catch (error) {
        this.counters.mismatches += 1;
        throw error;
      }
      if (mismatch) this.counters.mismatches += 1;
      else this.recorded.set(finalKey, fingerprint);
      this.counters.reusedSteps += from;
      this.counters.replayedSteps += rest.length;
      return {
        env,
        taskId: request.taskId,
        seed: request.seed,
        prefix: [...request.prefix],
        observation,
        fingerprint,
        reusedSteps: from,
        replayedSteps: rest.length,
        ended,
        mismatch,
      };
    } catch (error) {
      await env.close();
      throw error;
    }
  }

  /**
   * Returns a branch's environment to the cache, keyed by `prefix` (the actions it executed since
   * reset), and records its fingerprint for later replay checks.
   */
  async park(branch: {
    env: WebEnvironment;
    taskId: string;
    seed: number;
    prefix: ReadonlyArray<Action>;
    observation?: Observation | null;
    ended?: boolean;
  }): Promise<void> {
    const keys = prefixKeys(branch.taskId, branch.seed, branch.prefix);
    const key = keys[keys.length - 1] as string;
    const fingerprint = await branch.env.fingerprint();
    const known = this.recorded.get(key);
    if (known === undefined) this.recorded.set(key, fingerprint);
    this.live.set(key, {
      env: branch.env,
      observation: branch.observation ?? null,
      ended: branch.ended ?? false,
    });
  }

  /** Closes a branch's environment instead of parking it. */
  async discard(branch: { env: WebEnvironment }): Promise<void> {
    await branch.env.close();
  }

  /** Closes every cached environment. */
  async close(): Promise<void> {
    const envs = [...this.live.values()].map((p) => p.env);
    this.live.clear();
    await Promise.all([...envs.map((e) => e.close().catch(() => {})), ...this.closing]);
  }
}
