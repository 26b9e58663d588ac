import { describe, expect, it } from 'vitest';
import { escapeHtml, html, SafeHtml } from '../../../src/http/status-page/html.ts';

describe('html', () => {
  it('escapes the five characters that matter in text and quoted attributes', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe('&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;');
  });

  it('escapes every interpolated string, in text and in attributes', () => {
    const name = '<img src=x onerror=alert(1)>';
    const out = html`<h3 title="${name}">${name}</h3>`.markup;
    expect(out).toBe('<h3 title="&lt;img src=x onerror=alert(1)&gt;">&lt;img src=x onerror=alert(1)&gt;</h3>');
    expect(html`<p title="${'" onmouseover="x'}"></p>`.markup).toBe('<p title="&quot; onmouseover=&quot;x"></p>');
  });

  it('passes nested html through once, escapes arrays item by item, and renders nothing for false, null and undefined', () => {
    const inner = html`<b>${'1 < 2'}</b>`;
    expect(html`<p>${inner}</p>`.markup).toBe('<p><b>1 &lt; 2</b></p>');
    expect(html`<ul>${['<x>', html`<li>ok</li>`]}</ul>`.markup).toBe('<ul>&lt;x&gt;<li>ok</li></ul>');
    expect(html`[${false}${null}${undefined}${true}${0}]`.markup).toBe('[0]');
  });

  it('trusts only SafeHtml, not strings that look like markup', () => {
    expect(html`${new SafeHtml('<hr>')}${'<hr>'}`.markup).toBe('<hr>&lt;hr&gt;');
  });
});
