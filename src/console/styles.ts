// The console's style sheet, applied as a constructed sheet (no inline <style> for the CSP to allow).
export const STYLES = `
:root { color-scheme: light dark; --fg: #1d1f23; --muted: #5b616b; --bg: #fff; --line: #d6d9de; --accent: #1f5fbf;
  --ok: #17753a; --bad: #b3261e; --warn: #8a5a00; --wait: #5b616b; --bar: #5b8def; --bar-wait: #b9ccf5; }
@media (prefers-color-scheme: dark) {
  :root { --fg: #e6e8eb; --muted: #a3a9b3; --bg: #16181c; --line: #33373e; --accent: #8ab4ff;
    --ok: #6fd08f; --bad: #ff8a80; --warn: #ffcc66; --wait: #a3a9b3; --bar: #6f9cff; --bar-wait: #34487a; }
}
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.45 system-ui, sans-serif; color: var(--fg); background: var(--bg); }
header { display: flex; align-items: center; gap: 1.5rem; padding: .6rem 1.2rem; border-bottom: 1px solid var(--line); }
.brand { font-weight: 700; }
nav { display: flex; gap: 1rem; flex: 1; }
nav a[aria-current="page"] { font-weight: 700; text-decoration: underline; }
main { padding: 1rem 1.2rem 3rem; max-width: 90rem; }
main:focus { outline: none; }
a { color: var(--accent); }
h1 { font-size: 1.4rem; margin: .4rem 0 1rem; }
h2 { font-size: 1.1rem; margin: 1.6rem 0 .5rem; }
code, pre, time { font-family: ui-monospace, monospace; font-size: .9em; }
pre { margin: 0; white-space: pre-wrap; word-break: break-word; }
pre.json { background: color-mix(in srgb, var(--line) 35%, transparent); padding: .6rem; border-radius: 4px; max-height: 30rem; overflow: auto; }
table { border-collapse: collapse; width: 100%; }
caption { text-align: left; color: var(--muted); padding-bottom: .3rem; }
th, td { text-align: left; vertical-align: top; padding: .3rem .5rem; border-bottom: 1px solid var(--line); }
.crumbs { color: var(--muted); margin: 0; }
.facts { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; margin: 0; }
.facts dt { color: var(--muted); }
.facts dd { margin: 0; }
.status { font-weight: 600; }
.status-completed { color: var(--ok); }
.status-failed, .status-error, .status-timed_out { color: var(--bad); }
.status-running { color: var(--accent); }
.status-pending { color: var(--wait); }
.empty, .hint, .loading { color: var(--muted); }
.error { color: var(--bad); }
.filters { display: flex; align-items: center; gap: .6rem; margin-bottom: .8rem; }
.key-form { display: grid; gap: .5rem; max-width: 24rem; }
input, select, button { font: inherit; padding: .3rem .5rem; }
button.quiet { background: none; border: 1px solid var(--line); color: inherit; border-radius: 4px; }
ol.log { list-style: none; padding: 0; margin: 0; }
ol.log li { display: grid; grid-template-columns: max-content 4rem 1fr; gap: .6rem; padding: .15rem 0; border-bottom: 1px solid var(--line); }
.level { color: var(--muted); }
.level-warn .level, .level-warning, .level.level-warn { color: var(--warn); }
.level-error .level, .level.level-error { color: var(--bad); }
.event-text { font-family: ui-monospace, monospace; font-size: .9em; word-break: break-all; }
.waterfall td.url { max-width: 28rem; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.waterfall td.track { width: 30%; min-width: 10rem; }
.bar { height: .8rem; background: var(--bar); border-radius: 2px; min-width: 2px; margin-top: .2rem; }
.bar-waiting { height: 100%; background: var(--bar-wait); border-radius: 2px 0 0 2px; }
.bar-error { background: var(--bad); }
video { width: 100%; max-width: 60rem; max-height: 70vh; background: #000; }
.live-view iframe { width: 100%; height: 40rem; border: 1px solid var(--line); }
ol.pages, ul.pages { display: flex; flex-wrap: wrap; gap: .4rem; list-style: none; padding: 0; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
`;
