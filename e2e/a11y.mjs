// Accessibility checks for the end-to-end tests: axe-core (node_modules,
// pinned in package.json) injected into the page and run against WCAG 2.0 /
// 2.1 A and AA. Serious and critical violations fail; minor and moderate
// ones are counted in the summary line.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
let axeSource;
const source = () => (axeSource ??= readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8'));

export const WCAG_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];
const BLOCKING = new Set(['serious', 'critical']);

/** Runs axe on the page as it is now; returns its violations (all impacts). */
export async function axeViolations(page) {
  if (!(await page.evaluate(() => typeof window.axe === 'object'))) {
    await page.addScriptTag({ content: source() });
  }
  return page.evaluate(async (tags) => {
    const result = await window.axe.run(document, {
      runOnly: { type: 'tag', values: tags },
      resultTypes: ['violations'],
    });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      helpUrl: v.helpUrl,
      nodes: v.nodes.map((n) => ({
        target: n.target.map(String).join(' '),
        html: n.html,
        summary: n.failureSummary,
      })),
    }));
  }, WCAG_TAGS);
}

/** One violation, readably: rule, impact, help and its first few nodes. */
export function describe(v, max = 4) {
  const nodes = v.nodes
    .slice(0, max)
    .map((n) => {
      const why = (n.summary || '').split('\n').slice(1, 3).join(' ').trim();
      return `    - ${n.target}\n      ${n.html.replace(/\s+/g, ' ').slice(0, 240)}${why ? `\n      ${why.slice(0, 300)}` : ''}`;
    })
    .join('\n');
  const more = v.nodes.length > max ? `\n    … and ${v.nodes.length - max} more` : '';
  return `  [${v.impact}] ${v.id}: ${v.help} (${v.nodes.length} node${v.nodes.length === 1 ? '' : 's'})\n${nodes}${more}`;
}

/**
 * Checks the page with axe, prints `label: N serious/critical, M minor/moderate`
 * and returns { label, blocking, other, message }. With `soft`, does not
 * assert (the caller collects the messages); otherwise fails on any serious or
 * critical violation with every one of them in the message.
 */
export async function checkA11y(page, label, { soft = false } = {}) {
  const violations = await axeViolations(page);
  const blocking = violations.filter((v) => BLOCKING.has(v.impact));
  const other = violations.filter((v) => !BLOCKING.has(v.impact));
  const count = (vs) => vs.reduce((n, v) => n + v.nodes.length, 0);
  console.log(
    `a11y ${label}: ${blocking.length} serious/critical (${count(blocking)} nodes), ` +
      `${other.length} minor/moderate (${count(other)} nodes)` +
      (violations.length ? ` [${violations.map((v) => `${v.id}:${v.impact}`).join(', ')}]` : ''),
  );
  const message = blocking.length
    ? `${label}: ${blocking.length} serious/critical accessibility violation(s)\n${blocking.map((v) => describe(v)).join('\n')}`
    : '';
  if (other.length) console.log(other.map((v) => describe(v, 2)).join('\n'));
  if (!soft) assert.equal(blocking.length, 0, message);
  return { label, blocking, other, message };
}
