/**
 * Unit tests for the 2026-07-28 revision's pure rules: src/core/mcp/modern/param-headers.ts
 * (which arguments a tool's `x-mcp-header` annotations mirror into `Mcp-Param-*` headers,
 * which annotations leave the tool out, and how a value is written) and
 * src/core/mcp/modern/revision.ts (the envelope, the errors only a modern server sends, the
 * versions a refusal offers). The suites drive these through real v2 servers, a case each;
 * here each rule meets each of its edges.
 */
import { describe, expect, it } from 'vitest';
import { headerValue, paramHeaders, planParamHeaders } from '../../src/core/mcp/modern/param-headers.js';
import {
  ENVELOPE,
  HEADER_MISMATCH,
  LEGACY,
  listVersions,
  META_VERSION,
  MODERN,
  MODERN_ERRORS,
  offeredVersions,
  PROTOCOL_OPTIONS,
  UNSUPPORTED_VERSION,
} from '../../src/core/mcp/modern/revision.js';

const prop = (type: string, header: unknown) => ({ type, 'x-mcp-header': header });

describe('planParamHeaders: which annotations are honoured', () => {
  it('properties reached through properties alone, at any depth, each with its path', () => {
    const plan = planParamHeaders({
      type: 'object',
      properties: {
        region: prop('string', 'Region'),
        count: prop('integer', 'Count'),
        dry: prop('boolean', 'Dry-Run'),
        nested: { type: 'object', properties: { zone: prop('string', 'Zone') } },
        plain: { type: 'string' },
      },
    });
    expect('headers' in plan && [...plan.headers].sort((a, b) => a.name.localeCompare(b.name))).toEqual([
      { path: ['count'], name: 'Count' },
      { path: ['dry'], name: 'Dry-Run' },
      { path: ['region'], name: 'Region' },
      { path: ['nested', 'zone'], name: 'Zone' },
    ]);
  });

  it('a schema without annotations plans no headers; so does one that is no object', () => {
    expect(planParamHeaders({ type: 'object', properties: { a: { type: 'string' } } })).toEqual({ headers: [] });
    expect(planParamHeaders(undefined)).toEqual({ headers: [] });
    expect(planParamHeaders([prop('string', 'A')])).toEqual({ headers: [] });
  });

  it.each([
    ['the root itself', prop('string', 'A')],
    ['a property under items', { type: 'array', items: { type: 'object', properties: { a: prop('string', 'A') } } }],
    ['a prefixItems entry', { type: 'array', prefixItems: [prop('string', 'A')] }],
    ['an anyOf branch', { anyOf: [prop('string', 'A')] }],
    ['an allOf branch property', { allOf: [{ properties: { a: prop('string', 'A') } }] }],
    ['an if', { if: prop('string', 'A') }],
    ['a not', { not: prop('string', 'A') }],
    ['additionalProperties', { type: 'object', additionalProperties: prop('string', 'A') }],
    ['a $defs entry', { $defs: { d: prop('string', 'A') } }],
    ['a patternProperties entry', { patternProperties: { '^a': prop('string', 'A') } }],
    ['a property inside a $defs entry', { $defs: { d: { properties: { a: prop('string', 'A') } } } }],
  ])('an annotation on %s leaves the tool out', (_name, schema) => {
    expect(planParamHeaders(schema)).toEqual({ invalid: 'its x-mcp-header "A" is not on a property reached through properties alone' });
  });

  it.each([
    ['empty', ''],
    ['with a space', 'My Header'],
    ['with a colon', 'A:B'],
    ['non-ASCII', 'Régión'],
    ['a number', 7],
    ['null', null],
  ])('a name that is %s is no HTTP token', (_name, header) => {
    const plan = planParamHeaders({ properties: { a: prop('string', header) } });
    expect(plan).toEqual({ invalid: `its x-mcp-header ${JSON.stringify(String(header))} is not a non-empty HTTP token` });
  });

  it('every token character is accepted', () => {
    const name = "!#$%&'*+-.^_`|~09AZaz";
    expect(planParamHeaders({ properties: { a: prop('string', name) } })).toEqual({ headers: [{ path: ['a'], name }] });
  });

  it.each(['number', 'object', 'array', 'null'])('a %s property cannot carry a header', (type) => {
    expect(planParamHeaders({ properties: { a: prop(type, 'A') } })).toEqual({ invalid: 'its x-mcp-header "A" is not on a string, integer or boolean property' });
  });

  it('a property with no type, or a list of types, cannot carry one either', () => {
    expect(planParamHeaders({ properties: { a: { 'x-mcp-header': 'A' } } })).toHaveProperty('invalid');
    expect(planParamHeaders({ properties: { a: prop(['string'] as unknown as string, 'A') } })).toHaveProperty('invalid');
  });

  it('names must be unique without regard to case', () => {
    const plan = planParamHeaders({ properties: { a: prop('string', 'Region'), b: prop('string', 'REGION') } });
    expect(plan).toEqual({ invalid: expect.stringMatching(/^its x-mcp-header "(Region|REGION)" repeats another$/) as unknown });
  });

  it('a long bad name is quoted cut to 80 characters', () => {
    const long = `${'a'.repeat(100)} b`;
    expect(planParamHeaders({ properties: { a: prop('string', long) } })).toEqual({ invalid: `its x-mcp-header "${'a'.repeat(80)}" is not a non-empty HTTP token` });
  });
});

describe('paramHeaders: one call', () => {
  const plan = [
    { path: ['region'], name: 'Region' },
    { path: ['n', 'count'], name: 'Count' },
    { path: ['dry'], name: 'Dry' },
  ];

  it('strings, safe integers and booleans go out as mcp-param-{name}; the rest is omitted', () => {
    expect(paramHeaders(plan, { region: 'eu', n: { count: 3 }, dry: false })).toEqual([
      ['mcp-param-Region', 'eu'],
      ['mcp-param-Count', '3'],
      ['mcp-param-Dry', 'false'],
    ]);
    expect(paramHeaders(plan, { region: null, n: { count: 1.5 }, dry: 'yes' })).toEqual([['mcp-param-Dry', 'yes']]);
    expect(paramHeaders(plan, { n: { count: 2 ** 53 } })).toEqual([]);
    expect(paramHeaders(plan, { n: 'not an object', region: ['eu'] })).toEqual([]);
    expect(paramHeaders(plan, undefined)).toEqual([]);
  });

  it('inherited members are not arguments', () => {
    const args = Object.create({ region: 'inherited' }) as Record<string, unknown>;
    expect(paramHeaders(plan, args)).toEqual([]);
  });

  it('values are written with headerValue', () => {
    expect(paramHeaders(plan, { region: ' eu' })).toEqual([['mcp-param-Region', '=?base64?IGV1?=']]);
  });
});

describe('headerValue', () => {
  it('printable ASCII without surrounding white space goes as it is, inner spaces included', () => {
    expect(headerValue('a b~')).toBe('a b~');
    expect(headerValue(' ')).toBe('=?base64?IA==?=');
    expect(headerValue('eu ')).toBe(`=?base64?${btoa('eu ')}?=`);
    expect(headerValue(' eu')).toBe(`=?base64?${btoa(' eu')}?=`);
    expect(headerValue('')).toBe('');
  });

  it('each control character, DEL and non-ASCII is base64 of the UTF-8', () => {
    expect(headerValue('a\x1fb')).toBe(`=?base64?${btoa('a\x1fb')}?=`);
    expect(headerValue('a\x7fb')).toBe(`=?base64?${btoa('a\x7fb')}?=`);
    expect(headerValue('\tx')).toBe(`=?base64?${btoa('\tx')}?=`);
    expect(headerValue('x\t')).toBe(`=?base64?${btoa('x\t')}?=`);
    expect(headerValue('é')).toBe('=?base64?w6k=?=');
  });

  it('only a value that both starts and ends like the sentinel is encoded for it', () => {
    expect(headerValue('=?base64?x')).toBe('=?base64?x');
    expect(headerValue('x?=')).toBe('x?=');
    expect(headerValue('=?base64??=')).toBe(`=?base64?${btoa('=?base64??=')}?=`);
  });

  it('a value past one 32 KiB chunk of bytes is encoded whole', () => {
    const text = `${'é'.repeat(0x8000)}z`;
    const encoded = headerValue(text);
    const decoded = new TextDecoder().decode(Uint8Array.from(atob(encoded.slice(9, -2)), (c) => c.charCodeAt(0)));
    expect(decoded).toBe(text);
  });
});

describe('revision: the two eras', () => {
  it('the options, the versions and the envelope every modern request carries', () => {
    expect(PROTOCOL_OPTIONS).toEqual(['auto', '2026-07-28', '2025-11-25']);
    expect([MODERN, LEGACY]).toEqual(['2026-07-28', '2025-11-25']);
    expect(META_VERSION).toBe('io.modelcontextprotocol/protocolVersion');
    expect(ENVELOPE).toEqual({
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {},
      'io.modelcontextprotocol/clientInfo': { name: '@rulvar/core', version: expect.any(String) as unknown },
    });
    expect(Object.isFrozen(ENVELOPE) && Object.isFrozen(ENVELOPE['io.modelcontextprotocol/clientCapabilities'])).toBe(true);
  });

  it('only the three modern error codes say a server is modern', () => {
    expect([...MODERN_ERRORS].sort()).toEqual([-32022, -32021, -32020].sort());
    expect([UNSUPPORTED_VERSION, HEADER_MISMATCH]).toEqual([-32022, -32020]);
    expect(MODERN_ERRORS.has(-32601)).toBe(false);
  });

  it('offeredVersions reads a list of at most 32 strings, each cut to 40 characters', () => {
    expect(offeredVersions({ supported: ['2026-07-28'] })).toEqual(['2026-07-28']);
    expect(offeredVersions({ supported: [] })).toEqual([]);
    expect(offeredVersions({ supported: ['x'.repeat(50)] })).toEqual(['x'.repeat(40)]);
    expect(offeredVersions({ supported: Array.from({ length: 32 }, () => 'v') })).toHaveLength(32);
  });

  it.each([
    ['33 versions', { supported: Array.from({ length: 33 }, () => 'v') }],
    ['a number among them', { supported: ['2026-07-28', 7] }],
    ['a string in place of a list', { supported: '2026-07-28' }],
    ['no supported member', {}],
    ['null data', null],
    ['a string as data', 'supported'],
  ])('%s offers nothing', (_name, data) => {
    expect(offeredVersions(data)).toBeUndefined();
  });

  it('listVersions quotes each version, or says there is none to name', () => {
    expect(listVersions(['2026-07-28', 'a"b'])).toBe('"2026-07-28", "a\\"b"');
    expect(listVersions([])).toBe('none it would name');
    expect(listVersions(undefined)).toBe('none it would name');
  });
});
