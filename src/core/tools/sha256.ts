/**
 * SHA-256 (FIPS 180-4) in plain JavaScript, synchronous, for short texts.
 *
 * WebCrypto's `digest` is the reference and stays the path for long texts, but it is always a
 * promise and, in Node, a trip to the thread pool: about 40 µs on a quiet machine and several
 * times that under load, even for a few bytes. Keys an engine derives per spawn and per call
 * are a few hundred bytes, where this loop takes a few microseconds. Its output is checked
 * against WebCrypto's in every runtime (test/core/sha256.suite.ts).
 *
 * Bounded like everything else over hostile input: linear in the text's length, no recursion,
 * buffers kept from call to call (a long text gets its own).
 */

/** The first 32 bits of the fractional parts of the cube roots of the first 64 primes. */
const K = Int32Array.from([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

/** The first 32 bits of the fractional parts of the square roots of the first 8 primes. */
const INITIAL = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];

const encoder = new TextEncoder();
const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

/**
 * Where a text is encoded and padded, and the state and message schedule, kept from call to
 * call: the function is synchronous, so one call at a time uses them, and a spawn's keys
 * (two digests of a few hundred bytes each) then allocate nothing but the hex. A text that
 * may need more than SCRATCH_BYTES once encoded gets buffers of its own.
 */
const SCRATCH_BYTES = 8 * 1024;
const scratch = new Uint8Array(SCRATCH_BYTES + 72);
const state = new Int32Array(8);
const schedule = new Int32Array(64);

/** Lowercase hex SHA-256 of the UTF-8 bytes of `text`, as WebCrypto would give it. */
export function sha256HexSync(text: string): string {
  let bytes = scratch;
  let length: number;
  // A UTF-16 unit takes at most 3 UTF-8 bytes, so such a text always fits the scratch.
  if (text.length * 3 <= SCRATCH_BYTES) length = encoder.encodeInto(text, scratch).written;
  else {
    const encoded = encoder.encode(text);
    length = encoded.length;
    bytes = new Uint8Array(length + 72);
    bytes.set(encoded);
  }
  // The message, a 0x80 byte, zeros, and the bit length in the last 8 bytes of a 64-byte block.
  const end = Math.ceil((length + 9) / 64) * 64;
  bytes.fill(0, length, end);
  bytes[length] = 0x80;
  const bits = length * 8;
  writeUint32(bytes, end - 8, Math.floor(bits / 0x100000000));
  writeUint32(bytes, end - 4, bits >>> 0);

  state.set(INITIAL);
  for (let block = 0; block < end; block += 64) compress(state, schedule, bytes, block);
  let hex = '';
  for (const word of state) hex += `${HEX[(word >>> 24) & 0xff]}${HEX[(word >>> 16) & 0xff]}${HEX[(word >>> 8) & 0xff]}${HEX[word & 0xff]}`;
  return hex;
}

/** `value` big-endian at `at`. */
function writeUint32(bytes: Uint8Array, at: number, value: number): void {
  bytes[at] = value >>> 24;
  bytes[at + 1] = value >>> 16;
  bytes[at + 2] = value >>> 8;
  bytes[at + 3] = value;
}

/** One 64-byte block into the state `h`; `w` is scratch for the message schedule. */
function compress(h: Int32Array, w: Int32Array, bytes: Uint8Array, at: number): void {
  for (let t = 0, i = at; t < 16; t += 1, i += 4) {
    w[t] = ((bytes[i] as number) << 24) | ((bytes[i + 1] as number) << 16) | ((bytes[i + 2] as number) << 8) | (bytes[i + 3] as number);
  }
  for (let t = 16; t < 64; t += 1) {
    const x = w[t - 15] as number;
    const y = w[t - 2] as number;
    const s0 = ((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3);
    const s1 = ((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10);
    w[t] = ((w[t - 16] as number) + s0 + (w[t - 7] as number) + s1) | 0;
  }
  let a = h[0] as number;
  let b = h[1] as number;
  let c = h[2] as number;
  let d = h[3] as number;
  let e = h[4] as number;
  let f = h[5] as number;
  let g = h[6] as number;
  let k = h[7] as number;
  for (let t = 0; t < 64; t += 1) {
    const s1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
    const choose = (e & f) ^ (~e & g);
    const t1 = (k + s1 + choose + (K[t] as number) + (w[t] as number)) | 0;
    const s0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
    const majority = (a & b) ^ (a & c) ^ (b & c);
    k = g;
    g = f;
    f = e;
    e = (d + t1) | 0;
    d = c;
    c = b;
    b = a;
    a = (t1 + s0 + majority) | 0;
  }
  h[0] = (h[0] as number) + a;
  h[1] = (h[1] as number) + b;
  h[2] = (h[2] as number) + c;
  h[3] = (h[3] as number) + d;
  h[4] = (h[4] as number) + e;
  h[5] = (h[5] as number) + f;
  h[6] = (h[6] as number) + g;
  h[7] = (h[7] as number) + k;
}
