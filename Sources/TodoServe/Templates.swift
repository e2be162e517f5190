/// The pages' Mustache templates, compiled into the binary. Everything is written with
/// `{{…}}` (HTML-escaped): a test fails on a triple brace or `{{&`. Attributes are always
/// quoted; no template has a script or a `style` attribute (docs/THREAT-MODEL.md).
enum Templates {
    static let all: [String: String] = [
        "top": top, "bottom": bottom, "rows": rows, "actions": actions, "items": items, "message": message, "signin": signin, "mine": mine,
        "tasks": tasks, "task": task, "add": add, "lists": lists, "changes": changes, "sync": sync, "feed": feed,
        "phone": phone, "field": field,
    ]

    static let top = """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>{{pageTitle}} · {{household}}</title>
        <link rel="stylesheet" href="{{base}}/static/app.css">
        <link rel="manifest" href="{{base}}/manifest.webmanifest">
        <link rel="icon" href="{{base}}/static/icon.svg" type="image/svg+xml">
        <link rel="apple-touch-icon" href="{{base}}/static/icon-192.png">
        <meta name="theme-color" content="{{themeColor}}">
        </head>
        <body>
        <a class="skip" href="#content">Skip to content</a>
        {{#signedIn}}
        <header>
        <nav aria-label="Main">
        <ul>
        <li><a href="{{base}}/"{{#navMine}} aria-current="page"{{/navMine}}>Mine</a></li>
        <li><a href="{{base}}/tasks"{{#navTasks}} aria-current="page"{{/navTasks}}>All tasks</a></li>
        <li><a href="{{base}}/lists"{{#navLists}} aria-current="page"{{/navLists}}>Lists</a></li>
        <li><a href="{{base}}/add"{{#navAdd}} aria-current="page"{{/navAdd}}>Add</a></li>
        <li><a href="{{base}}/changes"{{#navChanges}} aria-current="page"{{/navChanges}}>Changes</a></li>
        <li><a href="{{base}}/sync"{{#navSync}} aria-current="page"{{/navSync}}>Sync</a></li>
        <li><a href="{{base}}/feed"{{#navFeed}} aria-current="page"{{/navFeed}}>Calendar</a></li>
        <li><a href="{{base}}/phone"{{#navPhone}} aria-current="page"{{/navPhone}}>Phone</a></li>
        </ul>
        </nav>
        </header>
        {{/signedIn}}
        <main id="content">
        <h1{{#titleClass}} class="title"{{/titleClass}}>{{pageTitle}}</h1>
        {{#notice}}<p class="notice" role="status">{{notice}}</p>{{/notice}}
        {{#undo}}
        <form method="post" action="{{base}}/undo" class="undo">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <input type="hidden" name="task" value="{{task}}">
        <input type="hidden" name="commit" value="{{commit}}">
        <input type="hidden" name="back" value="{{back}}">
        <button type="submit" class="secondary">Undo</button>
        </form>
        {{/undo}}
        {{#unreadable}}
        <section class="problem" aria-labelledby="unreadable-heading">
        <h2 id="unreadable-heading">Task files that cannot be read</h2>
        <p>{{intro}}</p>
        <ul>
        {{#files}}<li><code>{{path}}</code>: {{reason}}</li>
        {{/files}}
        </ul>
        <p>{{advice}}</p>
        </section>
        {{/unreadable}}

        """

    static let bottom = """
        </main>
        {{#signedIn}}
        <footer>
        <p>Signed in as {{member}} · household {{household}}</p>
        <form method="post" action="{{base}}/signout">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <button type="submit" class="secondary">Sign out</button>
        </form>
        </footer>
        {{/signedIn}}
        </body>
        </html>

        """

    /// A checklist: each item a toggle button in a form of its own (`aria-pressed`: checked),
    /// named by the item's text, which sends only that item's check or uncheck (`Pages.itemRows`).
    static let items = """
        <ul class="items">
        {{#items}}
        <li class="item{{#checked}} checked{{/checked}}">
        <form method="post" action="{{base}}/t/{{id}}/items/{{key}}/{{action}}">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <input type="hidden" name="back" value="{{back}}">
        <button type="submit" class="check" aria-pressed="{{#checked}}true{{/checked}}{{^checked}}false{{/checked}}"><span class="box" aria-hidden="true"></span><span class="itemtext">{{text}}</span></button>
        </form>
        </li>
        {{/items}}
        </ul>

        """

    /// A task's Done (and, for a chore, Skip) buttons; the context is `Pages.row`'s.
    static let actions = """
        {{#open}}
        <div class="actions">
        <form method="post" action="{{base}}/t/{{id}}/done">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <input type="hidden" name="back" value="{{back}}">
        {{#occurrence}}<input type="hidden" name="occurrence" value="{{occurrence}}">{{/occurrence}}
        <button type="submit" aria-label="Done: {{title}}">Done</button>
        </form>
        {{#chore}}
        <form method="post" action="{{base}}/t/{{id}}/skip">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <input type="hidden" name="back" value="{{back}}">
        <input type="hidden" name="occurrence" value="{{occurrence}}">
        <button type="submit" class="secondary" aria-label="Skip: {{title}}">Skip</button>
        </form>
        {{/chore}}
        </div>
        {{/open}}
        """

    /// A list of tasks with their buttons; each row's context is `Pages.row`'s.
    static let rows = """
        <ul class="tasks">
        {{#rows}}
        <li class="task{{#overdue}} overdue{{/overdue}}">
        <a class="title" href="{{base}}/t/{{id}}">{{title}}</a>
        <p class="facts">{{#due}}<span>{{due}}</span> {{/due}}{{#who}}<span>{{who}}</span> {{/who}}{{#items}}<span>{{items}}</span> {{/items}}{{#tags}}<span>{{tags}}</span>{{/tags}}</p>
        {{> actions}}
        </li>
        {{/rows}}
        </ul>

        """

    static let message = """
        {{> top}}
        {{#paragraphs}}<p>{{.}}</p>
        {{/paragraphs}}
        {{#link}}<p><a href="{{href}}">{{text}}</a></p>{{/link}}
        {{#button}}<form method="post" action="{{action}}"><button type="submit">{{label}}</button></form>{{/button}}
        {{> bottom}}
        """

    static let signin = """
        {{> top}}
        <p>Sign in as <strong>{{invitee}}</strong> on this device. The link works once: after this, this device stays signed in.</p>
        <form method="post" action="{{base}}/i">
        <input type="hidden" name="token" value="{{token}}">
        <button type="submit">Sign in</button>
        </form>
        {{> bottom}}
        """
}
