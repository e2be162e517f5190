/// The pages themselves (the frame and the parts they share are in Templates.swift).
extension Templates {
    static let mine = """
        {{> top}}
        {{#zone}}
        <section class="problem" aria-labelledby="zone-heading">
        <h2 id="zone-heading">The household has no time zone</h2>
        <p>{{text}}</p>
        <form method="post" action="{{base}}/zone">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <div class="field">
        <label for="zone">The household's time zone</label>
        <input id="zone" name="zone" list="zones" maxlength="128" required aria-describedby="zone-hint">
        <p class="hint" id="zone-hint">A name like Europe/Paris, America/New_York or Australia/Sydney.</p>
        <datalist id="zones">
        {{#zones}}<option value="{{.}}">{{/zones}}
        </datalist>
        </div>
        <button type="submit">Set the time zone</button>
        </form>
        </section>
        {{/zone}}
        {{#groups}}
        <section>
        <h2>{{heading}}</h2>
        {{> rows}}
        {{#more}}<p><a href="{{href}}">{{count}} more of yours: see them all in the household list</a></p>{{/more}}
        </section>
        {{/groups}}
        {{^groups}}<p>Nothing of yours is due this week.</p>{{/groups}}
        {{> bottom}}
        """

    static let tasks = """
        {{> top}}
        <form method="get" action="{{base}}/tasks" class="filters">
        <div class="field">
        <label for="which">Show</label>
        <select id="which" name="which">
        {{#whichOptions}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{text}}</option>{{/whichOptions}}
        </select>
        </div>
        <div class="field">
        <label for="tag">Tag</label>
        <input id="tag" name="tag" value="{{tag}}" maxlength="64">
        </div>
        <div class="field">
        <label for="assignee">Assigned to</label>
        <input id="assignee" name="assignee" value="{{assignee}}" maxlength="200">
        </div>
        <div class="field check">
        <input type="checkbox" id="overdue" name="overdue" value="1"{{#overdue}} checked{{/overdue}}>
        <label for="overdue">Overdue only</label>
        </div>
        <button type="submit">Show tasks</button>
        </form>
        <p>{{countText}}</p>
        {{> rows}}
        {{#next}}<p><a href="{{next}}">Next page</a></p>{{/next}}
        {{> bottom}}
        """

    static let task = """
        {{> top}}
        {{#task}}
        <dl class="details">
        {{#facts}}<dt>{{name}}</dt><dd>{{value}}</dd>
        {{/facts}}
        </dl>
        {{#rows}}{{> actions}}{{/rows}}
        {{#reopen}}
        <form method="post" action="{{base}}/t/{{id}}/reopen">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <button type="submit" class="secondary">Reopen</button>
        </form>
        {{/reopen}}
        {{#notes}}<h2>Notes</h2><p class="notes">{{notes}}</p>{{/notes}}
        <h2>Checklist</h2>
        {{> items}}
        <form method="post" action="{{base}}/t/{{id}}/items" class="additem">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <div class="field">
        <label for="text">New item</label>
        <input id="text" name="text" maxlength="200"{{#itemError}} aria-invalid="true" aria-describedby="text-error"{{/itemError}} value="{{itemText}}">
        {{#itemError}}<p class="error" id="text-error">{{itemError}}</p>{{/itemError}}
        </div>
        <button type="submit">Add item</button>
        </form>
        <h2>History</h2>
        <ol class="history">
        {{#history}}<li><span class="when">{{when}}</span> <span class="who">{{who}}</span>: {{what}}</li>
        {{/history}}
        </ol>
        {{#older}}<p><a href="{{older}}">Older history</a></p>{{/older}}
        {{/task}}
        {{> bottom}}
        """

    /// A text field with its label, hint and error (`AddPage.render`'s `field`).
    static let field = """
        <div class="field">
        <label for="{{name}}">{{label}}</label>
        <input id="{{name}}" name="{{name}}" value="{{value}}" maxlength="{{max}}"{{#required}} required{{/required}}{{#error}} aria-invalid="true" aria-describedby="{{name}}-error"{{/error}}{{#hint}}{{^error}} aria-describedby="{{name}}-hint"{{/error}}{{/hint}}>
        {{#hint}}{{^error}}<p class="hint" id="{{name}}-hint">{{hint}}</p>{{/error}}{{/hint}}
        {{#error}}<p class="error" id="{{name}}-error">{{error}}</p>{{/error}}
        </div>

        """

    /// The Add form: the due date picked (date, optional time) or in the CLI's words, the
    /// assignee chosen from the household's members.
    static let add = """
        {{> top}}
        <form method="post" action="{{base}}/add" class="addform">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <input type="hidden" name="form" value="{{form}}">
        {{#titleField}}{{> field}}{{/titleField}}
        {{#dueField}}
        <fieldset class="due">
        <legend>Due</legend>
        <div class="pickers">
        <div class="field">
        <label for="due-date">Date</label>
        <input type="date" id="due-date" name="due-date" value="{{date}}">
        </div>
        <div class="field">
        <label for="due-time">Time (optional)</label>
        <input type="time" id="due-time" name="due-time" value="{{time}}">
        </div>
        </div>
        {{> field}}
        </fieldset>
        {{/dueField}}
        <div class="field">
        <label for="assignee">Assigned to</label>
        <select id="assignee" name="assignee"{{#assigneeError}} aria-invalid="true" aria-describedby="assignee-error"{{/assigneeError}}>
        <option value=""{{#nobodySelected}} selected{{/nobodySelected}}>Nobody</option>
        {{#assignees}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{name}}</option>
        {{/assignees}}
        </select>
        {{#assigneeError}}<p class="error" id="assignee-error">{{assigneeError}}</p>{{/assigneeError}}
        </div>
        {{#tagsField}}{{> field}}{{/tagsField}}
        <button type="submit">Add task</button>
        </form>
        {{> bottom}}
        """

    static let lists = """
        {{> top}}
        {{#lists}}
        <section>
        <h2><a class="title" href="{{base}}/t/{{id}}">{{title}}</a></h2>
        {{> items}}
        </section>
        {{/lists}}
        {{^lists}}<p>No task has a checklist yet. Add items on a task's page.</p>{{/lists}}
        {{> bottom}}
        """

    static let changes = """
        {{> top}}
        <p>{{since}}</p>
        <ul class="changes">
        {{#changes}}<li><a class="title" href="{{base}}/t/{{id}}">{{title}}</a>: {{what}}</li>
        {{/changes}}
        </ul>
        {{^unread}}{{^changes}}<p>Nothing new from the others.</p>{{/changes}}{{/unread}}
        {{#seen}}
        <form method="post" action="{{base}}/changes/seen">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <input type="hidden" name="commit" value="{{commit}}">
        <button type="submit">Mark as seen</button>
        </form>
        {{/seen}}
        {{> bottom}}
        """

    static let sync = """
        {{> top}}
        <dl class="details">
        {{#facts}}<dt>{{name}}</dt><dd>{{value}}</dd>
        {{/facts}}
        </dl>
        {{#lastError}}<h2>Last problem</h2><p class="error">{{lastError}}</p><p>{{lastErrorAdvice}}</p>{{/lastError}}
        <form method="post" action="{{base}}/sync">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <button type="submit">Sync now</button>
        </form>
        {{> bottom}}
        """

    static let feed = """
        {{> top}}
        <p>A calendar app can show your chores and tasks of the next eight weeks from a private feed address. Anyone with the address can read your feed, and nothing else.</p>
        {{#feedURL}}
        <p>Your new feed address (copy it now: it is shown only this once):</p>
        <p><input id="feedurl" readonly value="{{feedURL}}" aria-label="Feed address"></p>
        {{/feedURL}}
        {{^feedURL}}<p>{{feedState}}</p>{{/feedURL}}
        <form method="post" action="{{base}}/feed/new">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <button type="submit">New feed address</button>
        </form>
        {{> bottom}}
        """

    /// `GET /phone` and the answer to `POST /phone/new` (`made`: the only time the password is
    /// shown).
    static let phone = """
        {{> top}}
        <p>Your phone's task app can show the household's tasks and tick them off: Reminders on an iPhone, Tasks.org or jtx Board on Android, and Thunderbird on a computer. Each device signs in with an app password of its own; removing one stops that device and nothing else.</p>
        {{#plainHTTP}}<p class="error">This server is reached without HTTPS, so phones cannot sign in to it from the network: they send app passwords only over HTTPS. Ask whoever runs the household's server to set it up.</p>{{/plainHTTP}}
        {{#made}}
        <section>
        <h2>Your new app password</h2>
        <p>Type or paste these into the app now: the password is shown only this once.</p>
        <div class="field">
        <label for="dav-address">Address</label>
        <input id="dav-address" readonly value="{{url}}">
        </div>
        <div class="field">
        <label for="dav-user">User</label>
        <input id="dav-user" readonly value="{{user}}">
        </div>
        <div class="field">
        <label for="dav-password">Password</label>
        <input id="dav-password" readonly value="{{password}}">
        </div>
        </section>
        {{/made}}
        <form method="post" action="{{base}}/phone/new">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <button type="submit">New app password</button>
        </form>
        <section>
        <h2>Setting up the app</h2>
        <h3>iPhone or iPad</h3>
        <ol>
        <li>Open Settings, then Calendar, Accounts, Add Account, Other (on newer systems: Settings, Apps, Calendar, Calendar Accounts, Add Account, Other).</li>
        <li>Choose Add CalDAV Account. Server: {{host}}. User name and password: the User and Password above.</li>
        <li>The household's task lists appear in Reminders.</li>
        </ol>
        <h3>Android</h3>
        <ol>
        <li>Install DAVx⁵ and add an account with "Login with URL and user name".</li>
        <li>Base URL: the Address above; user name and password: the User and Password above.</li>
        <li>In the new account, turn on the task lists. Tasks.org or jtx Board then shows them.</li>
        </ol>
        <h3>Thunderbird</h3>
        <ol>
        <li>Make a new calendar and choose On the Network.</li>
        <li>Username: the User above; Location: the Address above. Thunderbird finds the task lists and asks for the password.</li>
        </ol>
        </section>
        <section>
        <h2>Your devices with an app password</h2>
        {{#devices}}
        <ul class="devices">
        {{#list}}
        <li>
        <form method="post" action="{{base}}/phone/revoke">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <input type="hidden" name="device" value="{{user}}">
        <span>{{label}}, user {{user}}, last used {{used}}</span>
        <button type="submit" class="secondary" aria-label="Remove the app password of {{user}}">Remove</button>
        </form>
        </li>
        {{/list}}
        </ul>
        {{/devices}}
        {{^devices}}<p>None yet.</p>{{/devices}}
        </section>
        {{> bottom}}
        """
}
