// Flat config. Deliberately not type-aware: tsc already checks types in `npm run typecheck`,
// and syntax-only rules keep `eslint .` to a couple of seconds.
import { builtinModules } from 'node:module';
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

// Bare builtin names ('fs', 'child_process', 'fs/promises') resolve to Node builtins just
// like their `node:` forms, so both spellings are refused. `builtinModules` comes from the
// running Node, so the list follows the Node version instead of a hand-kept copy.
const bareBuiltins = builtinModules.filter((name) => !name.startsWith('_'));

const nodeOnlyImports = {
  paths: [
    ...bareBuiltins.map((name) => ({
      name,
      message: 'Runtime-neutral code uses Web APIs only; Node builtins belong in src/node.',
    })),
    {
      name: '@modelcontextprotocol/sdk/client/stdio.js',
      message: 'The SDK stdio transport imports node:child_process; only src/node may use it.',
    },
  ],
  patterns: [
    {
      regex: '^node:',
      message: 'Runtime-neutral code uses Web APIs only; Node builtins belong in src/node.',
    },
    {
      // src/node is the one place stdio and the file journal live.
      regex: '^(\\.\\./)+(src/)?node(/|$)',
      message: 'Runtime-neutral code must not import the Node entry (src/node).',
    },
  ],
};

// What may not appear in code that ships to Workers and browsers. `no-eval`/`no-new-func`
// catch the spellings tied to the names; the selectors catch reaching the same things
// through globalThis, and dynamic import(), which no-restricted-imports ignores.
const neutralRules = {
  'no-eval': 'error',
  'no-implied-eval': 'error',
  'no-new-func': 'error',
  'no-restricted-globals': [
    'error',
    { name: 'Buffer', message: 'Use Uint8Array, TextEncoder and TextDecoder.' },
    { name: 'process', message: 'Pass configuration in; Workers and browsers have no process.' },
    { name: 'global', message: 'Use globalThis.' },
    { name: 'require', message: 'ESM only.' },
    { name: '__dirname', message: 'Not available outside Node CommonJS.' },
    { name: '__filename', message: 'Not available outside Node CommonJS.' },
    { name: 'setImmediate', message: 'Use queueMicrotask or setTimeout.' },
  ],
  'no-restricted-syntax': [
    'error',
    {
      selector:
        "MemberExpression[object.name='globalThis'][property.name=/^(process|Buffer|eval|Function|require)$/]",
      message: 'Node globals and code generation are not available to runtime-neutral code.',
    },
    {
      selector: "ImportExpression[source.value=/^node:/]",
      message: 'Runtime-neutral code uses Web APIs only; Node builtins belong in src/node.',
    },
  ],
  'no-restricted-imports': ['error', nodeOnlyImports],
};

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'dist/',
      'coverage/',
      '.wrangler/',
      'test/workerd/.bundle/',
      'examples/**/out/',
      '.docs-code/',
      'docs/api/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // Tooling, tests, scripts and examples run on Node.
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: 'module',
      globals: { ...globals.node },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' },
      ],
    },
  },
  {
    // Everything that runs in workerd or the browser: the core, the edge entry, the testing
    // helpers users load in Workers, and the test code that runs inside those runtimes.
    files: [
      'src/core/**/*.ts',
      'src/edge/**/*.ts',
      'src/testing/**/*.ts',
      'src/adapters/**/*.ts',
      'src/anthropic/**/*.ts',
      'src/openai/**/*.ts',
      'src/ai-sdk/**/*.ts',
      'test/core/**/*.ts',
      'test/fixtures/**/*.ts',
      'examples/servers/workbench.ts',
      'examples/worker/src/**/*.ts',
      'examples/browser/src/**/*.ts',
      'test/browser/**/*.ts',
      'test/workerd/worker.ts',
      'test/workerd/harness.ts',
      'test/workerd/expect.ts',
      'test/workerd/fixtures/**/*.ts',
    ],
    languageOptions: { globals: { ...globals.browser, ...globals.worker } },
    rules: neutralRules,
  },
  ...coreFloors(),
  {
    // The AI SDK entry runs a host's model object and needs nothing of the AI SDK at run time:
    // its types only, so an app that never installs `ai` still loads it. (The base rule above
    // keeps refusing Node builtins; this one only adds the AI SDK packages.)
    files: ['src/ai-sdk/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(ai|@ai-sdk/.+)$',
              allowTypeImports: true,
              message: '@rulvar/core/ai-sdk may import the AI SDK\'s types only (import type): nothing of it is loaded at run time.',
            },
          ],
        },
      ],
    },
  },
);

/**
 * src/core is layered, lowest first: the files at its root (errors, async), then each folder
 * below. A folder may import the root and the folders before it, never one after it, so that
 * the bus cannot come to depend on the engine built over it (or the chain on a transport).
 */
function coreFloors() {
  const floors = ['secrets', 'tools', 'schema', 'permissions', 'mcp', 'bus', 'model', 'journal', 'engine'];
  const restrict = (files, above, ignores = []) => ({
    files,
    ignores,
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: nodeOnlyImports.paths,
          patterns: [
            ...nodeOnlyImports.patterns,
            {
              // The core is what every entry shares; reaching into one would drag stdio into
              // the edge build, or edge-only code into Node.
              regex: '^(\\.\\./)+(src/)?(node|edge|testing)(/|$)',
              message: 'src/core must not import from src/node, src/edge or src/testing; they import the core.',
            },
            ...(above.length === 0
              ? []
              : [
                  {
                    regex: `^(\\.\\./|\\./)+(${above.join('|')})/`,
                    message: `Layering: src/core floors run ${floors.join(' → ')}; a floor imports only the ones before it.`,
                  },
                ]),
          ],
        },
      ],
    },
  });
  return [
    // index.ts is the barrel over every floor, not a floor.
    restrict(['src/core/*.ts'], floors, ['src/core/index.ts']),
    restrict(['src/core/index.ts'], []),
    ...floors.map((floor, i) => restrict([`src/core/${floor}/**/*.ts`], floors.slice(i + 1))),
  ];
}
