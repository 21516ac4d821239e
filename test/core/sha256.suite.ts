/**
 * The in-place SHA-256 (src/core/tools/sha256.ts) that spawn keys use: its hex must be
 * WebCrypto's for the same text in every runtime, across the padding boundaries (55, 56, 63,
 * 64 and 119 bytes), past ASCII, for lone surrogates (both encode them as U+FFFD) and for a
 * text long enough to take many blocks; either side of the scratch it keeps between calls,
 * and a short text right after a long one (nothing of the long one may remain).
 */
import { sha256HexSync } from '../../src/core/tools/sha256.js';
import type { SuiteHarness } from './harness.js';

async function webCrypto(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, '0')).join('');
}

export function sha256Suite(h: SuiteHarness): void {
  h.describe('sha256HexSync', () => {
    h.it('the FIPS 180-4 examples', () => {
      h.expect(sha256HexSync('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
      h.expect(sha256HexSync('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
      h.expect(sha256HexSync('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')).toBe(
        '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
      );
    });

    h.it('equals WebCrypto at every padding boundary, past ASCII, for lone surrogates and long texts', async () => {
      const texts = [55, 56, 57, 63, 64, 65, 119, 120, 128].map((n) => 'a'.repeat(n));
      texts.push('ы€😀 mixed', '\ud800 lone \udfff', 'é'.repeat(28), '😀'.repeat(14), 'x'.repeat(100_000));
      // Either side of what the kept scratch holds (8 KB encoded), then short texts after long ones.
      texts.push('€'.repeat(2730), '€'.repeat(2731), '€'.repeat(4096), 'b'.repeat(8192), 'short', '€'.repeat(2000), 'a'.repeat(60));
      for (let n = 0; n < 200; n += 1) texts.push(Array.from({ length: n }, (_, i) => String.fromCharCode(32 + ((i * 7919 + n) % 0x2fff))).join(''));
      const mismatched: number[] = [];
      for (const [i, text] of texts.entries()) if (sha256HexSync(text) !== (await webCrypto(text))) mismatched.push(i);
      h.expect(mismatched).toEqual([]);
    });
  });
}
