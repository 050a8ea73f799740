import { hash } from "node:crypto";

// SHA-256 (FIPS 180-4) round constants.
const K = new Int32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
  0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
  0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
  0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
  0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
  0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
  0xc67178f2,
]);
const H = new Int32Array([
  0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
]);
const W = new Int32Array(64);

/** A message this long (in bytes) or shorter fits SHA-256's one padded 64-byte block. */
const ONE_BLOCK = 55;

/**
 * The first four 32-bit big-endian words of `sha256(text)` (UTF-8), unsigned: exactly what
 * `hash("sha256", text, "buffer").readUInt32BE(0, 4, 8, 12)` gives. Seeds are derived per episode and
 * per rollout, where the native one-shot hash costs about three times this in-process compression of
 * a short ASCII key (one block, no call into C++); longer or non-ASCII keys go to the native hash.
 */
export function sha256Head(text: string): [number, number, number, number] {
  const n = text.length;
  if (n > ONE_BLOCK) return nativeHead(text);
  W.fill(0, 0, 16);
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c > 0x7f) return nativeHead(text);
    W[i >> 2] = (W[i >> 2] as number) | (c << (24 - (i & 3) * 8));
  }
  W[n >> 2] = (W[n >> 2] as number) | (0x80 << (24 - (n & 3) * 8));
  W[15] = n * 8;
  for (let t = 16; t < 64; t++) {
    const w15 = W[t - 15] as number;
    const w2 = W[t - 2] as number;
    const s0 = ((w15 >>> 7) | (w15 << 25)) ^ ((w15 >>> 18) | (w15 << 14)) ^ (w15 >>> 3);
    const s1 = ((w2 >>> 17) | (w2 << 15)) ^ ((w2 >>> 19) | (w2 << 13)) ^ (w2 >>> 10);
    W[t] = ((W[t - 16] as number) + s0 + (W[t - 7] as number) + s1) | 0;
  }
  let a = H[0] as number;
  let b = H[1] as number;
  let c = H[2] as number;
  let d = H[3] as number;
  let e = H[4] as number;
  let f = H[5] as number;
  let g = H[6] as number;
  let h = H[7] as number;
  for (let t = 0; t < 64; t++) {
    const s1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
    const t1 = (h + s1 + ((e & f) ^ (~e & g)) + (K[t] as number) + (W[t] as number)) | 0;
    const s0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
    const t2 = (s0 + ((a & b) ^ (a & c) ^ (b & c))) | 0;
    h = g;
    g = f;
    f = e;
    e = (d + t1) | 0;
    d = c;
    c = b;
    b = a;
    a = (t1 + t2) | 0;
  }
  return [
    (a + (H[0] as number)) >>> 0,
    (b + (H[1] as number)) >>> 0,
    (c + (H[2] as number)) >>> 0,
    (d + (H[3] as number)) >>> 0,
  ];
}

function nativeHead(text: string): [number, number, number, number] {
  const digest = hash("sha256", text, "buffer");
  return [digest.readUInt32BE(0), digest.readUInt32BE(4), digest.readUInt32BE(8), digest.readUInt32BE(12)];
}
