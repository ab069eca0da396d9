import PresenterViews
/// The pages' one stylesheet, served as `/static/tickwire.css` (the Content-Security-Policy allows no inline
/// style). Dark mode follows the system; the animations (a changed price flashing up or down, rows easing in
/// and out, the chart's line drawing in, the waiting pulse) are off when the reader asks for reduced motion.
enum Stylesheet {
    /// The CSS.
    static let css = """
        :root {
          --bg: #f7f7f5; --panel: #ffffff; --text: #1d1d1f; --muted: #6e6e73; --line: #e2e2e0;
          --accent: #0b63ce; --up: #137333; --down: #c5221f; --warn-bg: #fff4d6; --warn-line: #e0b64a;
          --fiat-bg: #eef4ff; --flash-up: rgba(19, 115, 51, .13); --flash-down: rgba(197, 34, 31, .12);
          font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
          color: var(--text); background: var(--bg);
        }
        @media (prefers-color-scheme: dark) {
          :root {
            --bg: #121214; --panel: #1c1c1f; --text: #ececef; --muted: #a0a0a8; --line: #2e2e33;
            --accent: #6aa8ff; --up: #5bd27a; --down: #ff7a70; --warn-bg: #3a2f10; --warn-line: #8a6d1e;
            --fiat-bg: #1a2438; --flash-up: rgba(91, 210, 122, .18); --flash-down: rgba(255, 122, 112, .18);
          }
        }
        * { box-sizing: border-box; }
        body { margin: 0; line-height: 1.45; }
        header.top { display: flex; flex-wrap: wrap; gap: .5rem 1.5rem; align-items: center; justify-content: space-between;
          padding: .6rem 1.2rem; background: var(--panel); border-bottom: 1px solid var(--line); }
        nav.pages a, nav.switch a { text-decoration: none; color: var(--accent); padding: .2rem .5rem; border-radius: .4rem; }
        nav.pages a[aria-current="page"], nav.switch a.selected { background: var(--accent); color: var(--panel); }
        .switches { display: flex; flex-wrap: wrap; gap: .5rem 1rem; }
        nav.switch { display: inline-flex; gap: .2rem; align-items: center; font-size: .9rem; }
        .switch-label { color: var(--muted); margin-right: .3rem; }
        main { max-width: 72rem; margin: 0 auto; padding: 1rem 1.2rem 2rem; }
        h1 { font-size: 1.5rem; margin: .5rem 0 1rem; }
        h2 { font-size: 1.15rem; margin: 1.5rem 0 .5rem; }
        .notices:empty { display: none; }
        .notices { background: var(--warn-bg); border: 1px solid var(--warn-line); border-radius: .5rem; padding: .3rem 1rem; margin-bottom: 1rem; }
        .notices ul { margin: .3rem 0; padding-left: 1.2rem; }
        table { width: 100%; border-collapse: collapse; background: var(--panel); border-radius: .5rem; overflow: hidden; }
        th, td { padding: .45rem .7rem; border-bottom: 1px solid var(--line); text-align: left; vertical-align: middle; }
        th { font-size: .8rem; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); }
        td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
        td.missing, .muted { color: var(--muted); }
        .small { font-size: 0.85em; }
        .up { color: var(--up); } .down { color: var(--down); } .flat { color: var(--muted); }
        .icon img { display: block; }
        .symbol { color: var(--muted); font-size: .85rem; }
        tr.fiat { background: var(--fiat-bg); }
        .badge { display: inline-block; font-size: .75rem; padding: .05rem .45rem; border-radius: 1rem; border: 1px solid var(--accent); color: var(--accent); margin-left: .4rem; }
        ul.books { list-style: none; padding: 0; display: grid; grid-template-columns: repeat(auto-fill, minmax(18rem, 1fr)); gap: .8rem; }
        li.book { background: var(--panel); border: 1px solid var(--line); border-radius: .6rem; padding: .8rem 1rem; min-width: 0; }
        li.book .max-price { overflow-wrap: anywhere; }
        li.book a { color: var(--text); font-weight: 600; text-decoration: none; }
        .highlight { display: block; font-size: 1.35rem; font-weight: 700; margin: .3rem 0; font-variant-numeric: tabular-nums; }
        .secondary { display: block; color: var(--muted); font-size: .85rem; }
        dl.figures { display: grid; grid-template-columns: max-content 1fr; gap: .3rem 1.2rem; background: var(--panel);
          padding: .8rem 1rem; border-radius: .5rem; }
        dl.figures dt { color: var(--muted); } dl.figures dd { margin: 0; font-variant-numeric: tabular-nums; }
        .price-big { font-size: 2rem; font-weight: 700; padding: 0 .3rem; border-radius: .4rem; }
        #coin > .coin-head { display: flex; flex-wrap: wrap; align-items: center; gap: .3rem .6rem; }
        .chart { width: 100%; height: auto; background: var(--panel); border-radius: .5rem; }
        .chart .axis { stroke: var(--muted); stroke-width: 1; }
        .chart .guide { stroke: var(--line); stroke-dasharray: 4 4; }
        .chart .join-guide { stroke: var(--muted); stroke-dasharray: 2 3; }
        .chart .line { fill: none; stroke: var(--accent); stroke-width: 2; stroke-linejoin: round; stroke-linecap: round;
          stroke-dasharray: 1 1; stroke-dashoffset: 0; animation: draw-line 1.4s cubic-bezier(.3, .1, .2, 1) both; }
        .chart text { fill: var(--muted); font-size: 12px; }
        .chart .point { fill: transparent; stroke: none; }
        .chart .point:hover { fill: var(--accent); }
        .chart .extreme { fill: var(--accent); }
        ul.returns { list-style: none; padding: 0; margin: 0 0 .8rem; display: grid; grid-template-columns: repeat(auto-fill, minmax(7rem, 1fr)); gap: .5rem; }
        ul.returns a { display: grid; gap: .1rem; padding: .5rem .7rem; background: var(--panel); border: 1px solid var(--line);
          border-radius: .5rem; text-decoration: none; color: var(--text); }
        ul.returns li.selected a { border-color: var(--accent); box-shadow: inset 0 0 0 1px var(--accent); }
        ul.returns .range { font-size: .8rem; color: var(--muted); }
        ul.returns .twr { font-size: 1.15rem; font-weight: 700; font-variant-numeric: tabular-nums; }
        dl.gain-totals { margin-bottom: .8rem; }
        form.inline { display: inline; }
        section.portfolios { display: flex; flex-wrap: wrap; gap: .5rem 1.2rem; align-items: end; margin: 0 0 1rem; }
        section.portfolios p { flex-basis: 100%; margin: 0; }
        nav.portfolio-switch { flex-wrap: wrap; font-size: 1rem; }
        nav.switch a .count { font-size: .75rem; opacity: .75; font-variant-numeric: tabular-nums; }
        form.new-portfolio { display: inline-flex; gap: .4rem; align-items: end; }
        h2 a, #back-to-portfolio { color: var(--accent); }
        form.card { display: grid; grid-template-columns: repeat(auto-fill, minmax(10rem, 1fr)); gap: .6rem; align-items: end;
          background: var(--panel); padding: .8rem 1rem; border-radius: .5rem; }
        label { display: grid; gap: .2rem; font-size: .85rem; color: var(--muted); }
        form.plugin-form input, form.plugin-form select { width: 100%; min-width: 0; }
        .plugin-section td { overflow-wrap: anywhere; } td.row-action { text-align: right; white-space: nowrap; }
        form.import { display: grid; gap: .6rem; background: var(--panel); padding: .8rem 1rem; border-radius: .5rem; margin-bottom: .8rem; }
        form.import textarea { font: .85rem/1.4 ui-monospace, SFMono-Regular, Menlo, monospace; padding: .5rem; border-radius: .4rem;
          border: 1px solid var(--line); background: var(--bg); color: var(--text); width: 100%; box-sizing: border-box; resize: vertical; }
        .import-actions { display: flex; gap: .8rem; align-items: end; flex-wrap: wrap; }
        tr.import-line .status { font-size: .75rem; padding: .05rem .45rem; border-radius: 1rem; border: 1px solid currentColor; }
        tr.status-new .status { color: var(--up); } tr.status-duplicate { color: var(--muted); }
        tr.status-error td { background: var(--flash-down); } tr.status-error .status, td.problem { color: var(--down); }
        form.import button { justify-self: start; } #import-file-note { margin: 0; } #import-file-note:empty { display: none; }
        tr.import-line td.day, tr.import-line td.kind { white-space: nowrap; }
        td.problem { font-size: .85rem; max-width: 28rem; } td.problem .column { font-weight: 700; }
        input, select, button { font: inherit; padding: .35rem .5rem; border-radius: .4rem; border: 1px solid var(--line);
          background: var(--bg); color: var(--text); }
        button { background: var(--accent); color: var(--panel); border: none; cursor: pointer; }
        button.link { background: none; color: var(--accent); padding: 0 .2rem; }
        #total { font-size: 1.4rem; font-weight: 700; }
        .visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
        section.depth { margin-bottom: 1.5rem; } .depth-figures { margin-bottom: .8rem; } #depth-choice { flex-wrap: wrap; margin-bottom: .6rem; }
        .ladder { display: grid; grid-template-columns: repeat(auto-fit, minmax(20rem, 1fr)); gap: .8rem; margin-bottom: .8rem; align-items: start; }
        .ladder caption, table.trades caption { text-align: left; font-weight: 600; padding: .4rem .7rem; }
        .ladder th, .ladder td { padding: .3rem .6rem; }
        th.depth-col, td.depth-cell { width: 24%; }
        .bar { display: block; height: .7rem; border-radius: .2rem; }
        table.bids .bar { background: var(--up); opacity: .45; } table.asks .bar { background: var(--down); opacity: .45; }
        td.side { font-weight: 600; }
        footer.data-age { max-width: 72rem; margin: 0 auto; padding: 0 1.2rem 2rem; color: var(--muted); font-size: .85rem; }
        .live-status { font-size: .8rem; color: var(--muted); }
        nav.pages a, nav.switch a, button { transition: background-color .15s ease, color .15s ease; }
        .waiting { background: var(--panel); border: 1px solid var(--line); border-radius: .6rem; padding: 1rem 1.2rem; }
        .waiting-head { display: flex; gap: .8rem; align-items: flex-start; }
        .pulse { flex: none; width: .7rem; height: .7rem; margin-top: .4rem; border-radius: 50%; background: var(--accent);
          animation: pulse 1.6s ease-in-out infinite; }
        ul.waits { list-style: none; margin: 0; padding: 0; display: grid; gap: .45rem; font-weight: 600; }
        .wait-state { display: block; font-weight: 400; font-size: .8rem; color: var(--muted); overflow-wrap: anywhere; }
        .placeholder { display: grid; gap: .6rem; margin-top: 1.2rem; }
        .placeholder span { display: block; height: .85rem; border-radius: .3rem; background-color: var(--line);
          background-image: linear-gradient(90deg, transparent 0, var(--panel) 50%, transparent 100%); background-size: 40% 100%;
          background-repeat: no-repeat; background-position: -40% 0; animation: shimmer 1.8s ease-in-out infinite; }
        .placeholder span:nth-child(2) { width: 88%; } .placeholder span:nth-child(3) { width: 94%; } .placeholder span:nth-child(4) { width: 72%; }
        .flash-up { animation: flash-up 1.2s ease-out; }
        .flash-down { animation: flash-down 1.2s ease-out; }
        .row-enter { animation: row-enter .5s ease-out both; }
        .row-leave { animation: row-leave .3s ease-in forwards; }
        @keyframes flash-up { from { background-color: var(--flash-up); color: var(--up); } to { background-color: transparent; } }
        @keyframes flash-down { from { background-color: var(--flash-down); color: var(--down); } to { background-color: transparent; } }
        @keyframes row-enter { from { opacity: 0; transform: translateY(-.35rem); } to { opacity: 1; transform: none; } }
        @keyframes row-leave { from { opacity: 1; } to { opacity: 0; transform: translateX(.6rem); } }
        @keyframes draw-line { from { stroke-dashoffset: 1; } to { stroke-dashoffset: 0; } }
        @keyframes pulse { 0%, 100% { opacity: .35; transform: scale(.75); } 50% { opacity: 1; transform: scale(1); } }
        @keyframes shimmer { from { background-position: -40% 0; } to { background-position: 140% 0; } }
        @media (prefers-reduced-motion: reduce) {
          *, *::before, *::after { animation: none !important; transition: none !important; }
        }
        """ + depthBarWidths

    /// The depth ladder's bar lengths, `.bar.w0` to `.bar.w100` (a class each, as the policy allows no inline style).
    static let depthBarWidths = (0...100).map { ".bar.w\($0) { width: \($0)%; }" }.joined(separator: " ") + "\n"
}
