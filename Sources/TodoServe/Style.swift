/// The one style sheet (`/static/app.css`), compiled in. Phone first: one column, targets at
/// least 44×44 px, a visible focus ring; the colours are `Palette`'s, whose contrast a test checks.
enum Palette {
    static let text = "#1a1a1a"
    static let background = "#ffffff"
    static let accent = "#0b4f8a"
    static let onAccent = "#ffffff"
    static let muted = "#4a4a4a"
    static let error = "#a4000f"
    static let noticeText = "#0d3b1e"
    static let noticeBackground = "#e6f4ea"
    static let border = "#767676"
    static let focus = "#b35900"
    static let overdue = "#8a1c00"

    /// Pairs of (foreground, background) that carry text, and the ratio each must reach.
    static let textPairs: [(String, String, Double)] = [
        (text, background, 4.5), (accent, background, 4.5), (onAccent, accent, 4.5), (muted, background, 4.5),
        (error, background, 4.5), (noticeText, noticeBackground, 4.5), (overdue, background, 4.5),
        (border, background, 3), (focus, background, 3),
    ]
}

enum Style {
    static let css = """
        *,*::before,*::after{box-sizing:border-box}
        html{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;font-size:100%;line-height:1.5;color:\(Palette.text);background:\(Palette.background)}
        body{margin:0 auto;max-width:48rem;padding:0 1rem 2rem}
        a{color:\(Palette.accent)}
        a:focus,button:focus,input:focus,select:focus{outline:3px solid \(Palette.focus);outline-offset:2px}
        .skip{position:absolute;left:-999px;top:0;padding:.75rem 1rem;background:\(Palette.background)}
        .skip:focus{left:1rem}
        header nav ul{list-style:none;display:flex;flex-wrap:wrap;gap:.25rem;margin:0;padding:.5rem 0;border-bottom:1px solid \(Palette.border)}
        header nav a{display:inline-block;min-height:44px;min-width:44px;padding:.6rem .6rem;text-decoration:none}
        header nav a[aria-current=page]{font-weight:700;text-decoration:underline}
        h1{font-size:1.5rem;margin:1rem 0 .5rem}
        h2{font-size:1.2rem;margin:1.25rem 0 .5rem}
        ul.tasks,ul.items,ul.changes,ol.history{list-style:none;margin:0;padding:0}
        li.task{border-bottom:1px solid \(Palette.border);padding:.5rem 0}
        li.task .title{display:inline-block;min-height:44px;padding:.6rem 0;font-weight:600;overflow-wrap:anywhere}
        li.overdue .facts span:first-child{color:\(Palette.overdue);font-weight:600}
        .facts{margin:0;color:\(Palette.muted)}
        .facts span{margin-right:.75rem}
        .actions{display:flex;gap:.5rem;margin-top:.25rem}
        form{margin:0}
        button{font:inherit;min-height:44px;min-width:44px;padding:.5rem 1rem;border:2px solid \(Palette.accent);border-radius:.4rem;background:\(Palette.accent);color:\(Palette.onAccent);cursor:pointer}
        button.secondary{background:\(Palette.background);color:\(Palette.accent)}
        button.check{display:flex;align-items:center;gap:.75rem;width:100%;text-align:left;background:\(Palette.background);color:\(Palette.text);border:0;padding:.25rem .25rem}
        button.check .box{flex:none;width:1.5rem;height:1.5rem;border:2px solid \(Palette.border);border-radius:.25rem;display:inline-flex;align-items:center;justify-content:center}
        button.check[aria-pressed=true] .box{background:\(Palette.accent);border-color:\(Palette.accent)}
        button.check[aria-pressed=true] .box::after{content:"";width:.4rem;height:.8rem;border:solid \(Palette.onAccent);border-width:0 3px 3px 0;transform:translateY(-.1rem) rotate(45deg)}
        li.item form{padding:.25rem 0}
        li.item.checked .itemtext{text-decoration:line-through;color:\(Palette.muted)}
        fieldset.due{border:1px solid \(Palette.border);border-radius:.3rem;margin:.75rem 0;padding:0 .75rem}
        fieldset.due legend{font-weight:600;padding:0 .25rem}
        .pickers{display:flex;flex-wrap:wrap;gap:0 1rem}
        .pickers .field{flex:1 1 9rem}
        form.undo{margin:.5rem 0 1rem}
        .itemtext{overflow-wrap:anywhere}
        .field{margin:.75rem 0}
        .field label{display:block;font-weight:600}
        .field.check{display:flex;align-items:center;gap:.5rem}
        .field.check label{display:inline}
        .field.check input{width:24px;height:24px}
        input,select{font:inherit;min-height:44px;width:100%;padding:.4rem .5rem;border:1px solid \(Palette.border);border-radius:.3rem;color:\(Palette.text);background:\(Palette.background)}
        input[aria-invalid=true]{border:2px solid \(Palette.error)}
        .error{color:\(Palette.error);font-weight:600;margin:.25rem 0}
        .hint{color:\(Palette.muted);margin:.25rem 0}
        .notice{background:\(Palette.noticeBackground);color:\(Palette.noticeText);padding:.75rem 1rem;border-radius:.3rem}
        .notes{white-space:pre-wrap;overflow-wrap:anywhere}
        .title{overflow-wrap:anywhere}
        dl.details{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem}
        dl.details dt{font-weight:600}
        dl.details dd{margin:0;overflow-wrap:anywhere}
        ol.history li{padding:.25rem 0;border-bottom:1px solid \(Palette.border)}
        main,footer,ol.history li,ul.changes li{overflow-wrap:anywhere}
        .problem{border:2px solid \(Palette.error);border-radius:.3rem;padding:0 1rem;margin:1rem 0}
        .problem code{overflow-wrap:anywhere}
        footer{margin-top:2rem;padding-top:1rem;border-top:1px solid \(Palette.border);color:\(Palette.muted)}
        @media (min-width:40rem){.filters{display:grid;grid-template-columns:repeat(2,1fr);gap:0 1rem;align-items:end}}

        """
}
