import { statusIcon } from './status-colours.ts';

/** Where the script fetches the fresh fragment, relative to the page so that it works behind a path prefix. */
export const FRAGMENT_PATH = 'status/fragment';

const ICONS = JSON.stringify({ healthy: statusIcon('healthy'), degraded: statusIcon('degraded'), unhealthy: statusIcon('unhealthy') });

/**
 * The page's only script, inlined and allowed by its hash. It replaces <main> with a freshly rendered
 * fragment when the cached round goes stale (the fragment says when), so the server stays the only
 * renderer. A failed or overdue refresh greys the banner and says so: an old "healthy" must not linger
 * looking current.
 */
export const REFRESH_SCRIPT = `(() => {
  'use strict';
  const ICONS = ${ICONS};
  const FETCH_TIMEOUT_MS = 30000;
  const note = document.getElementById('refresh-state');
  const icon = document.querySelector('link[rel="icon"]');
  let timer = 0;
  let busy = false;
  let lastOk = Date.now();
  const main = () => document.getElementById('status');
  const interval = () => Number(main().dataset.nextRefreshMs) || 5000;
  const clock = () => new Date().toLocaleTimeString();
  function schedule(ms) { clearTimeout(timer); timer = setTimeout(refresh, ms); }
  function stale(why) {
    document.body.classList.add('stale');
    note.textContent = why + ': the status below may be out of date';
  }
  async function refresh() {
    if (busy || document.hidden) return;
    busy = true;
    try {
      const res = await fetch(${JSON.stringify(FRAGMENT_PATH)}, { cache: 'no-store', headers: { accept: 'text/html' }, signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
      if (!res.ok) throw new Error('HTTP ' + res.status);
      const template = document.createElement('template');
      template.innerHTML = await res.text();
      const next = template.content.getElementById('status');
      if (!next) throw new Error('unexpected answer');
      main().replaceWith(next);
      document.title = next.dataset.title;
      if (icon && ICONS[next.dataset.status]) icon.href = ICONS[next.dataset.status];
      document.body.classList.remove('stale');
      lastOk = Date.now();
      note.textContent = 'Live: updated ' + clock();
      schedule(interval());
    } catch (error) {
      stale('Refresh failed at ' + clock() + ' (' + (error && error.message ? error.message : error) + ')');
      schedule(Math.max(interval(), 2000));
    } finally {
      busy = false;
    }
  }
  setInterval(() => {
    const overdue = Date.now() - lastOk;
    if (!document.hidden && overdue > 2 * interval() + 10000) stale('No update for ' + Math.round(overdue / 1000) + ' s');
  }, 1000);
  document.addEventListener('visibilitychange', () => { if (!document.hidden) refresh(); });
  note.textContent = 'Live: refreshes when the cached round expires';
  schedule(interval());
})();`;
