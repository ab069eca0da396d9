import PresenterViews
/// The pages' one stylesheet, served as `/static/tickwire.css` (the Content-Security-Policy allows no inline
/// style). Dark mode follows the system.
enum Stylesheet {
    /// The CSS.
    static let css = """
        :root {
          --bg: #f7f7f5; --panel: #ffffff; --text: #1d1d1f; --muted: #6e6e73; --line: #e2e2e0;
          --accent: #0b63ce; --up: #137333; --down: #c5221f; --warn-bg: #fff4d6; --warn-line: #e0b64a;
          --fiat-bg: #eef4ff;
          font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
          color: var(--text); background: var(--bg);
        }
        @media (prefers-color-scheme: dark) {
          :root {
            --bg: #121214; --panel: #1c1c1f; --text: #ececef; --muted: #a0a0a8; --line: #2e2e33;
            --accent: #6aa8ff; --up: #5bd27a; --down: #ff7a70; --warn-bg: #3a2f10; --warn-line: #8a6d1e;
            --fiat-bg: #1a2438;
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
        .price-big { font-size: 2rem; font-weight: 700; }
        .chart { width: 100%; height: auto; background: var(--panel); border-radius: .5rem; }
        .chart .axis { stroke: var(--muted); stroke-width: 1; }
        .chart .guide { stroke: var(--line); stroke-dasharray: 4 4; }
        .chart .line { fill: none; stroke: var(--accent); stroke-width: 2; }
        .chart text { fill: var(--muted); font-size: 12px; }
        .chart .point { fill: transparent; stroke: none; }
        .chart .point:hover { fill: var(--accent); }
        .chart .extreme { fill: var(--accent); }
        form.inline { display: inline; }
        form.card { display: grid; grid-template-columns: repeat(auto-fill, minmax(10rem, 1fr)); gap: .6rem; align-items: end;
          background: var(--panel); padding: .8rem 1rem; border-radius: .5rem; }
        label { display: grid; gap: .2rem; font-size: .85rem; color: var(--muted); }
        input, select, button { font: inherit; padding: .35rem .5rem; border-radius: .4rem; border: 1px solid var(--line);
          background: var(--bg); color: var(--text); }
        button { background: var(--accent); color: var(--panel); border: none; cursor: pointer; }
        button.link { background: none; color: var(--accent); padding: 0 .2rem; }
        #total { font-size: 1.4rem; font-weight: 700; }
        footer.data-age { max-width: 72rem; margin: 0 auto; padding: 0 1.2rem 2rem; color: var(--muted); font-size: .85rem; }
        .live-status { font-size: .8rem; color: var(--muted); }
        """
}
