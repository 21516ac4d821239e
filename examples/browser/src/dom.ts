/**
 * The page's few DOM helpers. Rows are built from nodes and text, never from HTML strings:
 * tool names, descriptions and results come from an MCP server, and text cannot become markup.
 */
import type { Verdict } from '@rulvar/core';

type Child = Node | string;

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, attributes: Readonly<Record<string, string>> = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  node.append(...children);
  return node;
}

/** The element index.html marks with `data-testid`; the page and its test find things the same way. */
export function byTestId<T extends HTMLElement = HTMLElement>(id: string, within: ParentNode = document): T {
  const found = within.querySelector<T>(`[data-testid="${id}"]`);
  if (found === null) throw new Error(`the page has no [data-testid="${id}"]`);
  return found;
}

/** A verdict as a word with a colour: the word carries the meaning, the colour only repeats it. */
export function verdictBadge(verdict: Verdict, testId: string): HTMLElement {
  return el('span', { class: `badge ${verdict}`, 'data-testid': testId }, verdict);
}

/** A table cell holding `content`, tagged for the test. */
export function cell(testId: string, ...content: Child[]): HTMLTableCellElement {
  return el('td', { 'data-testid': testId }, ...content);
}

/** Shows a failure the page cannot recover from, instead of leaving it in the console alone. */
export function showPageError(error: unknown): void {
  const banner = byTestId('page-error');
  const { code, message } = error as { code?: string; message?: string };
  banner.textContent = `${code === undefined ? '' : `${code}: `}${message ?? String(error)}`;
  banner.hidden = false;
}
