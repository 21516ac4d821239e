/** The shared core suite against the Node entry, as `import … from '@rulvar/core'` gets it on Node. */
import { describe, expect, it } from 'vitest';
import { coreSuite } from '../core/suite.js';

coreSuite({ describe, it, expect, lib: await import('../../src/node/index.js'), runtime: 'node' });
