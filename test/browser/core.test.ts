/**
 * The shared core suite in real Chromium (vitest browser mode), against the edge entry that
 * the `browser` export condition selects.
 */
import { describe, expect, it } from 'vitest';
import { coreSuite } from '../core/suite.js';

coreSuite({ describe, it, expect, lib: await import('../../src/edge/index.js'), runtime: 'chromium' });
