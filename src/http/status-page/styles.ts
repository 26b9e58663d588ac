import { STATUS_COLOURS } from './status-colours.ts';

/** The page's whole stylesheet, inlined (clusters are often offline) and allowed by its hash in the CSP. */
export const STYLES = `
:root{color-scheme:light dark;--bg:#f6f7f9;--card:#fff;--text:#1d2330;--muted:#5d6675;--line:#d9dde3;
--ok:${STATUS_COLOURS.healthy};--warn:${STATUS_COLOURS.degraded};--bad:${STATUS_COLOURS.unhealthy};
--track:#e6e9ee;--alloc:#9fb3c8;--used:#2f6db3;--font:system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
@media (prefers-color-scheme:dark){:root{--bg:#12151b;--card:#1b2029;--text:#e4e7ec;--muted:#9aa3b2;--line:#2c333f;--track:#2a303a;--alloc:#4f6680;--used:#5d9be0}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--text);font:15px/1.45 var(--font)}
.top,main,footer{max-width:1200px;margin:0 auto;padding:0 16px}
.top{display:flex;flex-wrap:wrap;align-items:baseline;justify-content:space-between;gap:4px 16px;padding-top:12px}
.top h1{font-size:1.1rem;margin:0}
.muted,#refresh-state{color:var(--muted);font-size:.85rem;margin:0}
h2{font-size:1rem;margin:0 0 8px}
code{font:.85em ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;overflow-wrap:anywhere}
.verdict{margin:12px 0 16px;padding:14px 18px;border-radius:10px;color:#fff;background:var(--bad)}
.verdict-healthy{background:var(--ok)}.verdict-degraded{background:var(--warn)}.verdict-unhealthy{background:var(--bad)}
.verdict-title{font-size:1.6rem;margin:0 0 2px;letter-spacing:.01em}
.verdict-facts{margin:0 0 6px;font-weight:600}
.reasons{list-style:none;margin:8px 0 0;padding:0}
.reason{background:rgba(0,0,0,.16);border-radius:6px;padding:8px 10px;margin-top:6px;overflow-wrap:anywhere}
.reason p{margin:0}
.reason-code{font:600 .8rem ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
.reason-severity{font-size:.75rem;text-transform:uppercase;border:1px solid rgba(255,255,255,.6);border-radius:4px;padding:0 4px}
.hint{font-size:.85rem;opacity:.92;margin-top:2px!important}
.no-reasons{margin:0}
.members{margin-bottom:16px}
.member-grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(300px,1fr));gap:12px}
.member{background:var(--card);border:1px solid var(--line);border-left:5px solid var(--ok);border-radius:8px;padding:10px 14px;min-width:0}
.member-unhealthy,.member-unknown{border-left-color:var(--warn)}.member-unreachable,.member-unstarted{border-left-color:var(--bad)}
.member-head{display:flex;flex-wrap:wrap;align-items:center;gap:6px}
.member-head h3{margin:0;font-size:1.05rem;overflow-wrap:anywhere}
.badge{display:inline-block;font-size:.72rem;font-weight:700;text-transform:uppercase;letter-spacing:.03em;border-radius:999px;padding:1px 8px;color:#fff;background:var(--muted)}
.badge-leader{background:#6f42c1}.badge-learner{background:#0b7285}.badge-alarm{background:var(--bad)}
.state{margin:4px 0;font-weight:600}
.dot{display:inline-block;width:9px;height:9px;border-radius:50%;margin-right:6px;background:var(--ok)}
.state-unhealthy .dot,.state-unknown .dot{background:var(--warn)}.state-unreachable .dot,.state-unstarted .dot{background:var(--bad)}
.error{margin:4px 0;color:var(--bad);font-size:.85rem;overflow-wrap:anywhere}
.facts{display:grid;grid-template-columns:auto 1fr;gap:2px 12px;margin:6px 0;font-size:.88rem}
.facts dt{color:var(--muted)}.facts dd{margin:0;min-width:0;overflow-wrap:anywhere}
.db-text{margin:6px 0 3px;font-size:.82rem;color:var(--muted)}
.bar{display:block;width:100%;height:12px;border-radius:3px;overflow:hidden}
.bar-track{fill:var(--track)}.bar-allocated{fill:var(--alloc)}.bar-in-use{fill:var(--used)}.bar-quota{fill:var(--text)}
.db-high .bar-in-use{fill:var(--warn)}.db-critical .bar-in-use,.db-critical .bar-allocated{fill:var(--bad)}
.db-critical .db-text{color:var(--bad);font-weight:600}
.alarms,.endpoints{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:10px 14px;margin-bottom:12px}
.alarms p,.endpoints p{margin:0}.alarms ul,.endpoints ul{margin:0;padding-left:18px;overflow-wrap:anywhere}
.alarms-active{border-color:var(--bad)}
.checked{color:var(--muted);font-size:.85rem;margin:0 0 16px}
.timeline{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:10px 14px;margin-bottom:12px}
.tl-row{display:grid;grid-template-columns:8em minmax(0,1fr);gap:2px 10px;align-items:center;margin:2px 0}
.tl-name{font-size:.85rem;overflow-wrap:anywhere}.tl-strip{display:flex;gap:1px;height:14px}
.tl-summary{grid-column:2;font-size:.78rem;color:var(--muted);overflow-wrap:anywhere}
.tl-marks .tl-strip{height:12px}.mark{flex:1;font-size:.6rem;line-height:12px;text-align:center;color:#6f42c1}
.slot{flex:1;min-width:2px;border-radius:1px;background:var(--track)}
.tl-legend .slot{display:inline-block;width:10px;height:10px;vertical-align:middle;margin-left:8px}
.slot-healthy{background:var(--ok)}.slot-degraded{background:var(--warn)}.slot-unreachable{background:var(--bad)}.slot-none{background:var(--track)}
.badge-safe{background:var(--ok)}.badge-unsafe{background:var(--muted)}.badge-down{background:var(--muted)}
.fleet{border-collapse:collapse;width:100%;background:var(--card)}.fleet th,.fleet td{text-align:left;padding:6px 10px;border-bottom:1px solid var(--line);vertical-align:top}
.badge-healthy{background:var(--ok)}.badge-degraded{background:var(--warn)}.badge-unhealthy{background:var(--bad)}
footer{color:var(--muted);font-size:.8rem;padding-bottom:24px}
footer a{color:inherit}
body.stale .verdict{background:#6b7280}
body.stale #refresh-state{color:var(--bad);font-weight:700}
@media (max-width:520px){body{font-size:14px}.verdict{padding:12px 14px;border-radius:8px}.verdict-title{font-size:1.35rem}.member-grid{grid-template-columns:1fr}}
`;
