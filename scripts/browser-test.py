#!/usr/bin/env python3
"""The web page in a real browser: Debian's Chromium, headless, at a phone's size (390×844),
driven through its WebDriver by selenium, against the built `todo-serve`.

    /usr/bin/python3 scripts/browser-test.py [--todo .build/debug/todo]
        [--serve .build/debug/todo-serve] [--screens DIR] [--keep]

A household of its own (Alice made it: a daily chore in turns of Kim and Alice, a shopping list,
a task titled `<script>alert(1)</script>` for Kim), the server on 127.0.0.1 (a free port, read
from its `listening on` line), an invite for Kim from `todo-serve invite`. In the browser, Kim
opens the link, signs in, ticks the chore done, checks a shopping item, adds an item to the list,
submits a due date the CLI would refuse (the message beside the field, what was typed kept), then
adds the task; every page is checked to run no script (no `<script>` element, no alert, nothing
in the console at level SEVERE) and the hostile title to show as text; Tab from the top of
"Mine" reaches every control, in reading order, each with a visible focus. Then the CLI and git
judge: `todo list --all --json`, `todo show`, `git log --format=%an/%ae`, `git fsck`. A
screenshot of each page goes to --screens (default .build/screens).

Exit 0 when every check passed; 1 with the failed check's sentence; 0 with a loud SKIPPED when
chromium, its driver or selenium is missing (`sh scripts/deps.sh --test` installs them, as
`make test` does). The server is stopped with SIGTERM at the end, failure or not, and must exit 0.
"""

import argparse
import datetime
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import traceback

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "servers"))
from serve_client import Failed, Server, git, invite, member_env, run  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
WAIT = 20  # seconds any one wait in the browser may take
HOSTILE = "<script>alert(1)</script>"
CHORE = "Water the plants"
LIST = "Groceries"
NAV = [("Mine", "/"), ("All tasks", "/tasks"), ("Lists", "/lists"), ("Add", "/add"),
       ("Changes", "/changes"), ("Sync", "/sync"), ("Calendar", "/feed"), ("Phone", "/phone")]

try:
    from selenium import webdriver
    from selenium.common.exceptions import NoAlertPresentException, TimeoutException
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait
except ImportError:
    webdriver = None


def missing_browser():
    missing = []
    if not os.access(CHROMIUM, os.X_OK):
        missing.append("chromium (Debian package chromium)")
    if not os.access(CHROMEDRIVER, os.X_OK):
        missing.append("chromedriver (Debian package chromium-driver)")
    if webdriver is None:
        missing.append(f"selenium for {sys.executable} (PyPI package selenium)")
    return missing


def check(condition, message):
    if not condition:
        raise Failed(message)


def say(message):
    print(f"browser-test: {message}", flush=True)


class Browser:
    """One headless Chromium with the page's checks that hold on every page."""

    def __init__(self, screens):
        options = Options()
        options.binary_location = CHROMIUM
        for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                    "--window-size=390,844", "--hide-scrollbars", "--force-device-scale-factor=1",
                    "--no-first-run", "--disable-extensions", "--disable-background-networking"):
            options.add_argument(arg)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        self.driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
        # Chromium keeps a window at least 500 px wide whatever --window-size says: the phone's
        # viewport is set the way its DevTools' device mode does it.
        self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
            "width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True})
        self.driver.set_page_load_timeout(WAIT)
        self.driver.set_script_timeout(WAIT)
        self.screens = screens
        self.shots = []
        self.console = []

    def quit(self):
        try:
            self.driver.quit()
        except Exception:  # a browser that died already: nothing left to stop
            pass

    def wait(self, condition, what):
        try:
            return WebDriverWait(self.driver, WAIT).until(lambda d: condition(d))
        except TimeoutException:
            raise Failed(f"waited {WAIT} s for {what}; the page is {self.path()} "
                         f"and says: {self.text()[:400]!r}")

    def path(self):
        """The address bar's path, without the query (a notice may ride on it: `/?n=done`)."""
        return "/" + self.driver.current_url.split("/", 3)[-1].split("?", 1)[0].split("#", 1)[0]

    def text(self):
        try:
            return self.driver.find_element(By.TAG_NAME, "body").text
        except Exception:
            return ""

    def by_label(self, label):
        """The button whose aria-label is `label` (present and shown), or None."""
        for el in self.driver.find_elements(By.CSS_SELECTOR, "button[aria-label]"):
            if el.get_attribute("aria-label") == label and el.is_displayed():
                return el
        return None

    def by_text(self, tag, text):
        for el in self.driver.find_elements(By.TAG_NAME, tag):
            if " ".join(el.text.split()) == text and el.is_displayed():
                return el
        return None

    def click_and_wait_new_page(self, element, what):
        """Click, then wait until the old page is gone and the new one is loaded."""
        old = self.driver.find_element(By.TAG_NAME, "html")
        element.click()

        def loaded(d):
            try:
                old.tag_name  # raises once the page it belonged to is gone
                return False
            except Exception:
                return d.execute_script("return document.readyState") == "complete"
        self.wait(loaded, what)

    def page_checks(self, name, status=None):
        """What every page must show: lang, the skip link to <main id="content">, the nav, no
        script at all, no alert, nothing SEVERE in the console. Then a screenshot."""
        d = self.driver
        width = d.execute_script("return [window.innerWidth, document.documentElement.scrollWidth]")
        check(width[0] == 390, f"{name}: the viewport is {width[0]} px wide, not 390")
        check(width[1] <= 390, f"{name}: the page is {width[1]} px wide at 390 px: it scrolls sideways")
        check(d.find_element(By.TAG_NAME, "html").get_attribute("lang") == "en",
              f"{name}: <html> has no lang=\"en\"")
        check(not d.find_elements(By.TAG_NAME, "script"),
              f"{name}: the page has a <script> element (it must have none: a title or note got through unescaped?)")
        try:
            alert = d.switch_to.alert
            text = alert.text
            alert.dismiss()
            raise Failed(f"{name}: an alert opened ({text!r}): a script ran")
        except NoAlertPresentException:
            pass
        if name != "sign-in":
            skip = [a for a in d.find_elements(By.CSS_SELECTOR, "a[href='#content']")
                    if " ".join(a.get_attribute("textContent").split()) == "Skip to content"]
            check(skip, f"{name}: no \"Skip to content\" link to #content")
            check(d.find_elements(By.CSS_SELECTOR, "main#content"), f"{name}: no <main id=\"content\">")
            for text, href in NAV:
                links = [a for a in d.find_elements(By.TAG_NAME, "a")
                         if " ".join(a.text.split()) == text]
                check(links, f"{name}: no nav link \"{text}\"")
                check(any(a.get_attribute("href").rstrip("/").endswith(href.rstrip("/")) or
                          (href == "/" and a.get_attribute("href").endswith("/")) for a in links),
                      f"{name}: the \"{text}\" link does not go to {href}")
            check("Ask for a new sign-in link" not in self.text(),
                  f"{name}: the page asks for a new sign-in link (the session cookie was refused)")
        self.read_console(name, status)
        self.shot(name)

    def read_console(self, name, status=None):
        for entry in self.driver.get_log("browser"):
            self.console.append((name, entry))
            message = entry.get("message") or ""
            if re.match(r"^\S+/favicon\.ico - Failed to load resource", message):
                # The browser asks for /favicon.ico by itself; the pages name no icon, and the
                # server need not have one.
                continue
            if status and f"the server responded with a status of {status} " in message:
                # The page itself came with the status the contract gives it (a refused form:
                # 422); Chromium logs any 4xx document.
                continue
            if entry.get("level") == "SEVERE":
                raise Failed(f"{name}: the browser console has an error: {entry.get('message')}")

    def shot(self, name):
        path = os.path.join(self.screens, f"{len(self.shots) + 1:02d}-{name}.png")
        self.driver.save_screenshot(path)
        self.shots.append(path)


def make_household(todo, env):
    """Alice's household: (chore id, list id, hostile task id)."""
    run([todo, "init", "--name", "Alice", "--email", "alice@example.org"], env)

    def add(*args):
        out = run([todo, "add", "--json"] + list(args), env)
        return json.loads(out)["id"]
    chore = add(CHORE, "--every", "day", "--rotate", "Kim,Alice", "--from", "today")
    shopping = add(LIST, "--item", "milk", "--item", "eggs", "--item", "oat milk", "--tag", "shopping")
    hostile = add(HOSTILE, "--due", "today", "--assign", "Kim")
    add("Call the plumber", "--due", "tomorrow", "--assign", "Kim", "--tag", "home")
    return chore, shopping, hostile


def show_json(todo, env, task_id):
    return json.loads(run([todo, "show", task_id, "--json"], env))


def skip_link(el):
    """The "Skip to content" link, which a page may show only while it has the focus."""
    return el.tag_name == "a" and (el.get_attribute("href") or "").endswith("#content")


def keyboard_walk(b, name):
    """Tab from the top of a freshly loaded page: every control (links, buttons, fields) is
    reached, the first reached in reading order, each with a visible focus indicator."""
    d = b.driver
    d.get(d.current_url)
    b.wait(lambda dr: dr.execute_script("return document.readyState") == "complete", f"{name} to load again")
    controls = [el for el in d.find_elements(
        By.CSS_SELECTOR, "a[href], button, input:not([type=hidden]), select, textarea, [tabindex]")
        if (el.is_displayed() or skip_link(el)) and el.is_enabled() and el.get_attribute("tabindex") != "-1"]
    check(controls, f"{name}: no control to reach with Tab")
    order = {el.id: i for i, el in enumerate(controls)}
    describe = {el.id: f"<{el.tag_name}> {(el.get_attribute('aria-label') or el.text or el.get_attribute('name') or '').strip()[:60]!r}"
                for el in controls}
    reached = []
    no_ring = []
    body = d.find_element(By.TAG_NAME, "body")
    for _ in range(len(controls) + 5):
        ActionChains(d).send_keys(Keys.TAB).perform()
        el = d.switch_to.active_element
        if el == body or el.id in reached:
            break
        if el.id not in order:
            # Focus went somewhere the list of controls does not name (a focusable element
            # of another kind): allowed, but said.
            say(f"{name}: Tab also stops at <{el.tag_name}>")
            reached.append(el.id)
            continue
        reached.append(el.id)
        ring = (el.value_of_css_property("outline-style") not in ("none", "") and
                el.value_of_css_property("outline-width") not in ("0px", "")) or \
            el.value_of_css_property("box-shadow") not in ("none", "")
        if not ring:
            no_ring.append(describe[el.id])
    missing = [describe[el.id] for el in controls if el.id not in reached]
    check(not missing, f"{name}: Tab never reaches {len(missing)} of {len(controls)} controls: " + ", ".join(missing[:8]))
    seen = [order[i] for i in reached if i in order]
    check(seen == sorted(seen), f"{name}: Tab goes out of reading order: "
          + ", ".join(describe[i] for i in reached[:12] if i in order))
    first = controls[0]
    check(skip_link(first) and seen and seen[0] == 0,
          f"{name}: the first Tab stop is not the \"Skip to content\" link")
    check(not no_ring, f"{name}: no visible focus (outline or box-shadow) on " + ", ".join(no_ring[:8]))
    small = []
    for el in controls:
        if el.tag_name == "button":
            r = el.rect
            if r["height"] < 44 or r["width"] < 44:
                small.append(f"{describe[el.id]} {r['width']:.0f}×{r['height']:.0f}")
    check(not small, f"{name}: buttons smaller than 44×44 px: " + ", ".join(small[:8]))
    return len(controls)


def browse(b, base, link, ids, todo, env):
    chore, shopping, hostile = ids
    d = b.driver

    # Sign in from the invite link: the GET shows a button, the POST signs in and goes to "/".
    d.get(link)
    b.wait(lambda dr: b.by_text("button", "Sign in"), "the Sign in button")
    b.page_checks("sign-in")
    b.click_and_wait_new_page(b.by_text("button", "Sign in"), "the page after Sign in")
    check(b.path() == "/", f"after Sign in the browser is at {b.path()}, not / (Mine); the page says: "
          f"{' '.join(b.text().split())[:300]!r}")
    check("/i/" not in d.current_url, "the invite token is still in the address bar")
    cookie = d.get_cookie("todo_session")
    check(cookie is not None, "no todo_session cookie after signing in")
    check(cookie.get("httpOnly"), "the todo_session cookie is not HttpOnly")
    check((cookie.get("sameSite") or "").lower() in ("lax", "strict"), f"the todo_session cookie has SameSite={cookie.get('sameSite')}")
    say("signed in as Kim")

    # Mine: the hostile title is text; the chore is Kim's today.
    b.page_checks("mine")
    titles = [" ".join(el.text.split()) for el in d.find_elements(By.CSS_SELECTOR, ".title")]
    check(HOSTILE in titles, f"Mine does not show the title {HOSTILE!r} as text (titles: {titles})")
    check(b.by_label(f"Done: {CHORE}") is not None, f"Mine has no \"Done: {CHORE}\" button (Kim's turn today)")
    controls = keyboard_walk(b, "mine")
    say(f"Mine: Tab reaches all {controls} controls in order, focus visible")

    # Tick the chore done.
    b.click_and_wait_new_page(b.by_label(f"Done: {CHORE}"), "the page after Done")
    check(b.path() == "/", f"after Done the browser is at {b.path()}, not back on Mine")
    notice = d.find_elements(By.CSS_SELECTOR, "p.notice[role=status]")
    check(notice and notice[0].text.strip(), "no notice (p.notice role=status) after Done")
    b.page_checks("mine-after-done")
    say(f"chore done: {notice[0].text.strip()!r}")

    # The shopping list: check milk.
    b.click_and_wait_new_page(b.by_text("a", "Lists"), "the Lists page")
    check(b.path().startswith("/lists"), f"the Lists link went to {b.path()}")
    check(b.by_label("Check: milk") is not None, "Lists has no \"Check: milk\" button")
    b.page_checks("lists")
    b.click_and_wait_new_page(b.by_label("Check: milk"), "the page after Check: milk")
    b.wait(lambda dr: b.by_label("Uncheck: milk"), "\"Uncheck: milk\" after checking it")
    check(d.find_elements(By.CSS_SELECTOR, "p.notice[role=status]"), "no notice after checking milk")
    b.page_checks("lists-after-check")
    say("checked milk")

    # The list's own page: add an item.
    d.get(f"{base}/t/{shopping}")
    b.wait(lambda dr: dr.find_elements(By.NAME, "text"), "the New item field on the task page")
    field = d.find_element(By.NAME, "text")
    label = d.find_elements(By.CSS_SELECTOR, f"label[for='{field.get_attribute('id')}']")
    check(label and " ".join(label[0].text.split()) == "New item", "the item field has no label \"New item\"")
    b.page_checks("task")
    field.send_keys("bread")
    b.click_and_wait_new_page(b.by_text("button", "Add item"), "the page after Add item")
    b.wait(lambda dr: b.by_label("Check: bread"), "\"Check: bread\" after adding the item")
    b.page_checks("task-after-item")
    say("added the item bread")

    # Add: a due date the CLI refuses first.
    b.click_and_wait_new_page(b.by_text("a", "Add"), "the Add page")
    check(b.path().startswith("/add"), f"the Add link went to {b.path()}")
    for name in ("title", "due", "assignee", "tags"):
        inputs = d.find_elements(By.NAME, name)
        check(inputs, f"Add has no field named {name}")
        field_id = inputs[0].get_attribute("id")
        check(field_id and d.find_elements(By.CSS_SELECTOR, f"label[for='{field_id}']"),
              f"Add: the {name} field has no <label for>")
    b.page_checks("add")
    d.find_element(By.NAME, "title").send_keys("Buy stamps")
    d.find_element(By.NAME, "due").send_keys("frydai")
    d.find_element(By.NAME, "tags").send_keys("post")
    b.click_and_wait_new_page(b.by_text("button", "Add task"), "the page after a refused Add")
    error = d.find_elements(By.ID, "due-error")
    check(error and error[0].is_displayed() and error[0].text.strip(),
          "a refused due date shows no message in #due-error")
    check("error" in (error[0].get_attribute("class") or "").split(), "#due-error has no class error")
    due = d.find_element(By.NAME, "due")
    check(due.get_attribute("aria-invalid") == "true", "the refused due field has no aria-invalid=\"true\"")
    check(due.get_attribute("aria-describedby") == "due-error", "the refused due field is not aria-describedby=\"due-error\"")
    check(due.get_attribute("value") == "frydai", f"the refused due field lost what was typed: {due.get_attribute('value')!r}")
    title_value = d.find_element(By.NAME, "title").get_attribute("value")
    check(title_value == "Buy stamps", f"the typed title was not kept: {title_value!r}")
    check(d.find_element(By.NAME, "tags").get_attribute("value") == "post", "the typed tags were not kept")
    gap = error[0].rect["y"] - (due.rect["y"] + due.rect["height"])
    check(-200 < gap < 120, f"the message is not beside the due field ({gap:.0f} px below it)")
    message = error[0].text.strip()
    cli_err = run_stderr(todo, env, ["add", "Buy stamps", "--due", "frydai"])
    first_sentence = re.split(r"(?<=[.:])\s", message)[0].rstrip(".:")
    check(first_sentence and first_sentence in cli_err,
          f"the page's message {message!r} is not the CLI's ({cli_err.strip()!r})")
    b.page_checks("add-refused", status=422)
    say(f"refused due date: {message!r}, kept the typed title")

    # Then a date the CLI accepts.
    due.clear()
    due.send_keys("tomorrow")
    b.click_and_wait_new_page(b.by_text("button", "Add task"), "the page after Add task")
    m = re.match(r"^/t/([0-9a-f]{32})", b.path())
    check(m, f"after Add task the browser is at {b.path()}, not the new task's page")
    new_id = m.group(1)
    check(d.find_elements(By.CSS_SELECTOR, "p.notice[role=status]"), "no notice after adding the task")
    b.page_checks("added")
    say(f"added Buy stamps ({new_id[:8]})")

    # The other pages, each checked and photographed.
    for text, href in NAV:
        if href in ("/", "/lists", "/add"):
            continue
        b.click_and_wait_new_page(b.by_text("a", text), f"the {text} page")
        check(b.path().startswith(href), f"the {text} link went to {b.path()}")
        b.page_checks(text.lower().replace(" ", "-"))
    b.click_and_wait_new_page(b.by_text("a", "Mine"), "Mine")
    b.page_checks("mine-at-end")
    return new_id


def run_stderr(todo, env, args):
    p = subprocess.run([todo] + args, env=env, stdin=subprocess.DEVNULL, capture_output=True, timeout=60)
    check(p.returncode != 0, f"`todo {' '.join(args)}` accepted what the page refused")
    return p.stderr.decode("utf-8", "replace")


def judge(todo, env, ids, new_id):
    """The CLI and git see Kim's changes."""
    chore, shopping, hostile = ids
    today = run(["date", "+%Y-%m-%d"], env).strip()
    tasks = {t["id"]: t for t in json.loads(run([todo, "list", "--all", "--json"], env))}
    check(new_id in tasks, "`todo list --all --json` does not have the task added on the page")
    added = tasks[new_id]
    check(added["title"] == "Buy stamps", f"the added task's title is {added['title']!r}")
    check(added.get("createdBy") == "Kim", f"the added task was created by {added.get('createdBy')!r}, not Kim")
    tomorrow = (datetime.date.fromisoformat(today) + datetime.timedelta(days=1)).isoformat()
    check((added.get("due") or "").startswith(tomorrow), f"the added task is due {added.get('due')!r}, not {tomorrow}")
    check(added.get("tags") == ["post"], f"the added task's tags are {added.get('tags')!r}")
    listed = run([todo, "list"], env)
    check("Buy stamps" in listed, "`todo list` does not show Buy stamps")

    groceries = show_json(todo, env, shopping)
    items = {v[1]: v[0] for v in (groceries.get("items") or {}).values()}
    check(items.get("milk") == "checked",
          f"milk is not checked in `todo show --json`: {items}")
    check("bread" in items, f"bread is not on the list: {items}")
    shown = run([todo, "show", shopping], env)
    check(re.search(r"\[x\] milk", shown), f"`todo show` does not show milk checked:\n{shown}")

    plants = show_json(todo, env, chore)
    by_kim = [v for v in (plants.get("completions") or {}).values() if v[0] == "done" and v[1] == "Kim"]
    check(by_kim, f"the chore has no completion by Kim: {plants.get('completions')}")
    shown = run([todo, "show", chore], env)
    check("done by Kim" in shown, f"`todo show` of the chore does not say \"done by Kim\":\n{shown}")

    authors = git(env, "log", "--format=%an <%ae>", "-n", "4").split("\n")
    authors = [a for a in authors if a]
    check(all(a == "Kim <kim@home.todo.invalid>" for a in authors),
          f"the last four commits are not all Kim's, with the placeholder email: {authors}")
    check(git(env, "log", "--format=%an").split().count("Kim") == 4,
          "git log does not have exactly four commits by Kim (done, check, item, add)")
    git(env, "fsck", "--strict", "--no-progress")
    say("todo list, todo show and git log show Kim's four changes; git fsck is clean")


def main():
    root_dir = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--todo", default=os.path.join(root_dir, ".build/debug/todo"))
    parser.add_argument("--serve", default=os.path.join(root_dir, ".build/debug/todo-serve"))
    parser.add_argument("--screens", default=os.path.join(root_dir, ".build/screens"),
                        help="folder for a screenshot of each page, made if missing (default .build/screens)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary household")
    args = parser.parse_args()

    missing = missing_browser()
    if missing:
        bar = "*" * 78
        print(f"{bar}\nbrowser-test: SKIPPED, the web page was NOT tested in a browser: missing "
              f"{', '.join(missing)}.\nInstall them with `sh scripts/deps.sh --test` (as root).\n{bar}",
              file=sys.stderr, flush=True)
        return 0
    for binary in (args.todo, args.serve):
        if not os.access(binary, os.X_OK):
            print(f"browser-test: no executable at {binary}: build it first "
                  "(swift build --product todo --product todo-serve)", file=sys.stderr)
            return 1

    tmp = tempfile.mkdtemp(prefix="todo-browser.")
    screens = os.path.abspath(args.screens)
    os.makedirs(screens, exist_ok=True)
    for old in os.listdir(screens):
        if re.match(r"^\d\d-[a-z-]+\.png$", old):
            os.remove(os.path.join(screens, old))
    env = member_env(tmp, "Alice")
    server = browser = None
    failure = None
    try:
        ids = make_household(args.todo, env)
        env_serve = dict(env, TODO_SERVE_TODO=os.path.abspath(args.todo))
        server = Server(args.serve, env_serve, ["--sync-every", "0"])
        say(f"todo-serve listens on port {server.port} (pid {server.pid})")
        link = invite(args.serve, env_serve, "Kim", server.base)
        browser = Browser(screens)
        new_id = browse(browser, server.base, link, ids, args.todo, env)
        browser.quit()
        browser = None
        judge(args.todo, env, ids, new_id)
    except Failed as e:
        failure = str(e)
    except Exception:
        failure = "unexpected error:\n" + traceback.format_exc()
    finally:
        if browser:
            try:
                browser.shot("at-failure")
            except Exception:
                pass
            browser.quit()
        if server:
            code = server.stop()
            if code != 0 and failure is None:
                failure = (f"todo-serve exited {code} on SIGTERM, not 0"
                           + (" (killed after 15 s)" if code is None else "")
                           + f"; its stderr: {server.stderr_tail()}")
            elif failure and server.stderr_tail() != "nothing":
                failure += f"\n(todo-serve's stderr: {server.stderr_tail()})"
    say(f"screenshots in {screens}: {len(os.listdir(screens))}")
    if args.keep:
        say(f"kept {tmp}")
    else:
        shutil.rmtree(tmp, ignore_errors=True)
    if failure:
        print(f"browser-test: FAILED: {failure}", file=sys.stderr, flush=True)
        return 1
    print("browser-test: 1 passed, 0 failed", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
