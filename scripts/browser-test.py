#!/usr/bin/env python3
"""The web page in a real browser: Debian's Chromium, headless, at a phone's size (390×844),
driven through its WebDriver by selenium, against the built `todo-serve`; axe-core checks
every page.

    /usr/bin/python3 scripts/browser-test.py [--todo .build/debug/todo]
        [--serve .build/debug/todo-serve] [--screens DIR] [--keep]

A household of its own (Alice made it: a daily chore in turns of Kim and Alice, a shopping list,
a task titled `<script>alert(1)</script>` for Kim), the server on 127.0.0.1 (a free port, read
from its `listening on` line), an invite for Kim from `todo-serve invite`. In the browser, Kim
opens the link, signs in, ticks the chore done, takes it back with the notice's Undo and ticks it
again, checks a shopping item (a toggle that reads as one), adds an item to the list, submits a
due date the CLI would refuse (the message beside the field, what was typed kept), then adds the
task; adds another with the date and time pickers and the member select; completes the hostile
task and reopens it from its page; marks the changes seen; makes a feed address, shown once.
Every page is checked to run no script of its own (no `<script>` element, no alert, nothing in
the console at level SEVERE), to link the web app manifest, and to have no axe-core violation
(axe.min.js from PyPI's axe-playwright-python, run through WebDriver, which the page's CSP does
not stop); the hostile title shows as text; Tab from the top of "Mine" reaches every control, in
reading order, each with a visible focus; a task whose title is one long word does not scroll
sideways at 320 px. The manifest is fetched as a browser would (no cookie): valid JSON whose
icons are reachable PNGs of their stated size. Then the CLI and git judge: `todo list --all
--json`, `todo show`, `git log --format=%an/%ae`, `git fsck`. A screenshot of each page goes to
--screens (default .build/screens).

Exit 0 when every check passed; 1 with the failed check's sentence; 0 with a loud SKIPPED when
chromium, its driver, selenium or axe-playwright-python (for its axe.min.js) is missing (`sh scripts/deps.sh --test` installs them, as
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
import struct
import tempfile
import time
import traceback
import urllib.request
import zlib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "servers"))
from serve_client import Failed, Server, git, invite, member_env, run  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
WAIT = 20  # seconds any one wait in the browser may take
HOSTILE = "<script>alert(1)</script>"
CHORE = "Water the plants"
LIST = "Groceries"
LONG = "Supercalifragilistic" * 12  # one word of 240 letters
PICKED_DATE = "2031-12-24"
PICKED_TIME = "18:30"
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
    from selenium.webdriver.support.ui import Select, WebDriverWait
except ImportError:
    webdriver = None


def axe_source():
    """axe-core's axe.min.js as the axe-playwright-python wheel carries it, or None."""
    try:
        import axe_playwright_python
    except ImportError:
        return None
    path = os.path.join(os.path.dirname(axe_playwright_python.__file__), "axe.min.js")
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError:
        return None


def missing_browser():
    missing = []
    if not os.access(CHROMIUM, os.X_OK):
        missing.append("chromium (Debian package chromium)")
    if not os.access(CHROMEDRIVER, os.X_OK):
        missing.append("chromedriver (Debian package chromium-driver)")
    if webdriver is None:
        missing.append(f"selenium for {sys.executable} (PyPI package selenium)")
    if axe_source() is None:
        missing.append(f"axe.min.js for {sys.executable} (PyPI package axe-playwright-python)")
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
        self.axe = axe_source()
        self.axed = []

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

    def toggle(self, text):
        """The checklist item's toggle named `text`: a button with aria-pressed, or None."""
        for el in self.driver.find_elements(By.CSS_SELECTOR, "button.check[aria-pressed]"):
            if " ".join(el.text.split()) == text and el.is_displayed():
                return el
        return None

    def set_width(self, width):
        self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
            "width": width, "height": 844, "deviceScaleFactor": 1, "mobile": True})

    def run_axe(self, name):
        """axe-core on the page as it is: every rule of WCAG 2.x A and AA and best practice;
        0 violations."""
        d = self.driver
        if not d.execute_script("return typeof window.axe === 'object'"):
            d.execute_script(self.axe)
        result = d.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "axe.run(document, {resultTypes: ['violations']})"
            ".then(r => done(r.violations.map(v => [v.id, v.impact, v.help,"
            " v.nodes.slice(0, 3).map(n => n.target.join(' '))])))"
            ".catch(e => done([['axe-error', 'critical', String(e), []]]));")
        check(not result, f"{name}: axe-core finds {len(result)} violations: "
              + "; ".join(f"{v[0]} ({v[1]}): {v[2]} at {', '.join(v[3])}" for v in result))
        self.axed.append(name)

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
        manifest = d.find_elements(By.CSS_SELECTOR, "link[rel=manifest]")
        check(manifest and manifest[0].get_attribute("href").endswith("/manifest.webmanifest"),
              f"{name}: no <link rel=\"manifest\"> to /manifest.webmanifest")
        self.run_axe(name)
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
                # A browser may still ask for /favicon.ico by itself; the pages name their
                # icon, and the server need not have that one.
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
    long_word = add(LONG, "--note", "A note of one word: " + LONG)
    return chore, shopping, hostile, long_word


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


def notice_text(d):
    notice = d.find_elements(By.CSS_SELECTOR, "p.notice[role=status]")
    return notice[0].text.strip() if notice else ""


def check_manifest(base):
    """The manifest as a browser fetches it (no cookie): valid JSON, its icons reachable, each
    PNG whole (chunks' CRCs, zlib) and of the size the manifest states."""
    def fetch(path):
        with urllib.request.urlopen(base + path, timeout=WAIT) as r:
            return r.status, r.headers.get("Content-Type"), r.read()
    status, kind, body = fetch("/manifest.webmanifest")
    check(status == 200 and kind == "application/manifest+json",
          f"the manifest answers {status} {kind!r}, not 200 application/manifest+json")
    try:
        manifest = json.loads(body)
    except ValueError as e:
        raise Failed(f"the manifest is not valid JSON: {e}")
    for key in ("name", "short_name", "start_url", "display", "icons"):
        check(manifest.get(key), f"the manifest has no {key}")
    check(manifest["display"] == "standalone", f"the manifest's display is {manifest['display']!r}")
    sizes = set()
    for icon in manifest["icons"]:
        status, kind, data = fetch(icon["src"])
        check(status == 200 and kind == icon["type"], f"the icon {icon['src']} answers {status} {kind!r}")
        if kind != "image/png":
            continue
        check(data[:8] == b"\x89PNG\r\n\x1a\n", f"the icon {icon['src']} is not a PNG")
        i, idat, size = 8, b"", None
        while i < len(data):
            n, = struct.unpack(">I", data[i:i + 4])
            chunk, payload = data[i + 4:i + 8], data[i + 8:i + 8 + n]
            check(zlib.crc32(chunk + payload) == struct.unpack(">I", data[i + 8 + n:i + 12 + n])[0],
                  f"the icon {icon['src']}: chunk {chunk!r} has a bad CRC")
            if chunk == b"IHDR":
                size = struct.unpack(">II", payload[:8])
            elif chunk == b"IDAT":
                idat += payload
            i += 12 + n
        zlib.decompress(idat)
        check(size and f"{size[0]}x{size[1]}" == icon["sizes"],
              f"the icon {icon['src']} is {size}, not {icon['sizes']}")
        sizes.add(icon["sizes"])
    check({"192x192", "512x512"} <= sizes, f"the manifest's PNG icons are {sorted(sizes)}, not 192 and 512 px")
    say(f"manifest: valid JSON, {manifest['name']!r}, icons {sorted(sizes)} reachable and whole")


def browse(b, base, link, ids, todo, env):
    """Kim's visit; returns the new task's id, the picked task's id and how many commits Kim made."""
    chore, shopping, hostile, long_word = ids
    d = b.driver
    commits = 0

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
    if d.find_elements(By.ID, "zone-heading"):
        check(d.find_elements(By.CSS_SELECTOR, "form[action$='/zone'] input[name=zone]"),
              "Mine says the household has no time zone but offers no form to set one")
        say("Mine says the household has no time zone and offers to set one")
    controls = keyboard_walk(b, "mine")
    say(f"Mine: Tab reaches all {controls} controls in order, focus visible")

    # Tick the chore done, take it back with Undo, tick it again.
    b.click_and_wait_new_page(b.by_label(f"Done: {CHORE}"), "the page after Done")
    commits += 1
    check(b.path() == "/", f"after Done the browser is at {b.path()}, not back on Mine")
    check(notice_text(d), "no notice (p.notice role=status) after Done")
    check(b.by_label(f"Done: {CHORE}") is None, "the chore still has its Done button after Done")
    b.page_checks("mine-after-done")
    say(f"chore done: {notice_text(d)!r}")
    undo = b.by_text("button", "Undo")
    check(undo is not None, "the notice after Done has no Undo button")
    b.click_and_wait_new_page(undo, "the page after Undo")
    commits += 1
    check(notice_text(d) == "Undone.", f"after Undo the notice says {notice_text(d)!r}, not \"Undone.\"")
    check(b.by_label(f"Done: {CHORE}") is not None, "after Undo the chore has no Done button again")
    b.page_checks("mine-after-undo")
    b.click_and_wait_new_page(b.by_label(f"Done: {CHORE}"), "the page after Done again")
    commits += 1
    say("Undo took the chore's done back; done again")

    # The shopping list: check milk, a toggle that reads as one.
    b.click_and_wait_new_page(b.by_text("a", "Lists"), "the Lists page")
    check(b.path().startswith("/lists"), f"the Lists link went to {b.path()}")
    milk = b.toggle("milk")
    check(milk is not None, "Lists has no toggle button named \"milk\"")
    check(milk.get_attribute("aria-pressed") == "false", "milk's toggle is pressed before it was checked")
    b.page_checks("lists")
    b.click_and_wait_new_page(milk, "the page after checking milk")
    commits += 1
    b.wait(lambda dr: b.toggle("milk") and b.toggle("milk").get_attribute("aria-pressed") == "true",
           "milk's toggle pressed after checking it")
    check(b.toggle("eggs").get_attribute("aria-pressed") == "false", "eggs was checked too")
    check(notice_text(d), "no notice after checking milk")
    check(b.by_text("button", "Undo") is not None, "the notice after a tick has no Undo button")
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
    commits += 1
    b.wait(lambda dr: b.toggle("bread"), "a toggle for bread after adding the item")
    b.page_checks("task-after-item")
    say("added the item bread")

    # A task whose title is one long word: no sideways scroll at 320 px, history included.
    d.get(f"{base}/t/{long_word}")
    b.wait(lambda dr: dr.find_elements(By.CSS_SELECTOR, "ol.history li"), "the long word's history")
    b.set_width(320)
    try:
        width = d.execute_script("return [window.innerWidth, document.documentElement.scrollWidth]")
        check(width[0] == 320, f"the viewport is {width[0]} px wide, not 320")
        check(width[1] <= 320, f"the task page of a long word is {width[1]} px wide at 320 px: it scrolls sideways")
        b.shot("long-word-320")
    finally:
        b.set_width(390)
    say("a long unbroken word wraps at 320 px")

    # Add: a due date the CLI refuses first.
    b.click_and_wait_new_page(b.by_text("a", "Add"), "the Add page")
    check(b.path().startswith("/add"), f"the Add link went to {b.path()}")
    for name in ("title", "due", "due-date", "due-time", "assignee", "tags"):
        inputs = d.find_elements(By.NAME, name)
        check(inputs, f"Add has no field named {name}")
        field_id = inputs[0].get_attribute("id")
        check(field_id and d.find_elements(By.CSS_SELECTOR, f"label[for='{field_id}']"),
              f"Add: the {name} field has no <label for>")
    check(d.find_element(By.NAME, "due-date").get_attribute("type") == "date", "the due date is not an <input type=\"date\">")
    check(d.find_element(By.NAME, "due-time").get_attribute("type") == "time", "the due time is not an <input type=\"time\">")
    check(d.find_element(By.NAME, "assignee").tag_name == "select", "the assignee is not a <select>")
    options = [o.text for o in Select(d.find_element(By.NAME, "assignee")).options]
    check("Kim" in options and "Alice" in options, f"the assignee's options are {options}, not the household's members")
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
    check("todo(1)" not in message and "DATES" not in message, f"the page's message sends a member to the manual: {message!r}")
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
    commits += 1
    m = re.match(r"^/t/([0-9a-f]{32})", b.path())
    check(m, f"after Add task the browser is at {b.path()}, not the new task's page")
    new_id = m.group(1)
    check(notice_text(d), "no notice after adding the task")
    b.page_checks("added")
    say(f"added Buy stamps ({new_id[:8]})")

    # The pickers and the member select: a date and a time picked (set as the picker sets
    # them: the value is YYYY-MM-DD and HH:MM whatever the phone shows), Alice chosen.
    b.click_and_wait_new_page(b.by_text("a", "Add"), "the Add page again")
    d.find_element(By.NAME, "title").send_keys("Renew the passport")
    for name, value in (("due-date", PICKED_DATE), ("due-time", PICKED_TIME)):
        d.execute_script("arguments[0].value = arguments[1];"
                         "arguments[0].dispatchEvent(new Event('input', {bubbles: true}));"
                         "arguments[0].dispatchEvent(new Event('change', {bubbles: true}));",
                         d.find_element(By.NAME, name), value)
    Select(d.find_element(By.NAME, "assignee")).select_by_visible_text("Alice")
    b.click_and_wait_new_page(b.by_text("button", "Add task"), "the page after Add task with the pickers")
    commits += 1
    m = re.match(r"^/t/([0-9a-f]{32})", b.path())
    check(m, f"after Add task with the pickers the browser is at {b.path()}; it says {b.text()[:300]!r}")
    picked_id = m.group(1)
    say(f"added Renew the passport with the pickers ({picked_id[:8]})")

    # Done on the hostile task from Mine, then Reopen on its page.
    b.click_and_wait_new_page(b.by_text("a", "Mine"), "Mine")
    b.click_and_wait_new_page(b.by_label(f"Done: {HOSTILE}"), "the page after Done on the hostile task")
    commits += 1
    d.get(f"{base}/t/{hostile}")
    reopen = b.wait(lambda dr: b.by_text("button", "Reopen"), "the Reopen button on a done task's page")
    b.page_checks("task-done")
    b.click_and_wait_new_page(reopen, "the page after Reopen")
    commits += 1
    check(notice_text(d) == "Reopened.", f"after Reopen the notice says {notice_text(d)!r}")
    check(b.by_label(f"Done: {HOSTILE}") is not None, "the reopened task has no Done button")
    b.page_checks("task-reopened")
    say("reopened the hostile task from its page")

    # The other pages, each checked and photographed.
    for text, href in NAV:
        if href in ("/", "/lists", "/add"):
            continue
        b.click_and_wait_new_page(b.by_text("a", text), f"the {text} page")
        check(b.path().startswith(href), f"the {text} link went to {b.path()}")
        b.page_checks(text.lower().replace(" ", "-"))
        if href == "/changes":
            b.click_and_wait_new_page(b.by_text("button", "Mark as seen"), "the page after Mark as seen")
            check(notice_text(d) == "Marked as seen.", f"after Mark as seen the notice says {notice_text(d)!r}")
            check(b.by_text("button", "Mark as seen") is None, "Mark as seen is still offered with nothing new")
            b.page_checks("changes-seen")
            say("marked the changes seen")
        if href == "/feed":
            b.click_and_wait_new_page(b.by_text("button", "New feed address"), "the page after New feed address")
            check(b.path() == "/feed", f"after New feed address the browser is at {b.path()}, not /feed (a 303)")
            shown = d.find_elements(By.ID, "feedurl")
            check(shown and shown[0].get_attribute("value").endswith(".ics"), "the new feed address is not shown")
            b.page_checks("feed-new")
            d.refresh()
            b.wait(lambda dr: dr.execute_script("return document.readyState") == "complete", "the reloaded feed page")
            check(not d.find_elements(By.ID, "feedurl"), "a reload shows the feed address again")
            say("a new feed address is shown once, after a 303")
    b.click_and_wait_new_page(b.by_text("a", "Mine"), "Mine")
    b.page_checks("mine-at-end")
    say(f"axe-core: 0 violations on {len(b.axed)} pages")
    return new_id, picked_id, commits


def run_stderr(todo, env, args):
    p = subprocess.run([todo] + args, env=env, stdin=subprocess.DEVNULL, capture_output=True, timeout=60)
    check(p.returncode != 0, f"`todo {' '.join(args)}` accepted what the page refused")
    return p.stderr.decode("utf-8", "replace")


def judge(todo, env, ids, new_id, picked_id, commits):
    """The CLI and git see Kim's changes."""
    chore, shopping, hostile, long_word = ids
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
    check(picked_id in tasks, "`todo list --all --json` does not have the task added with the pickers")
    picked = tasks[picked_id]
    check(picked.get("due") == f"{PICKED_DATE}T{PICKED_TIME}",
          f"the task added with the pickers is due {picked.get('due')!r}, not {PICKED_DATE}T{PICKED_TIME}")
    check(picked.get("assignee") == "Alice", f"the task added with the member select is assigned to {picked.get('assignee')!r}")
    check(tasks[hostile].get("status") == "open", f"the reopened task is {tasks[hostile].get('status')!r}, not open")

    groceries = show_json(todo, env, shopping)
    items = {v[1]: v[0] for v in (groceries.get("items") or {}).values()}
    check(items.get("milk") == "checked",
          f"milk is not checked in `todo show --json`: {items}")
    check("bread" in items, f"bread is not on the list: {items}")
    shown = run([todo, "show", shopping], env)
    check(re.search(r"\[x\] milk", shown), f"`todo show` does not show milk checked:\n{shown}")

    plants = show_json(todo, env, chore)
    by_kim = [v for v in (plants.get("completions") or {}).values() if v[0] == "done" and v[1] == "Kim"]
    check(len(by_kim) == 1, f"the chore has not exactly one completion by Kim (done, undone, done): {plants.get('completions')}")
    shown = run([todo, "show", chore], env)
    check("done by Kim" in shown, f"`todo show` of the chore does not say \"done by Kim\":\n{shown}")

    authors = git(env, "log", "--format=%an <%ae>", "-n", str(commits)).split("\n")
    authors = [a for a in authors if a]
    check(all(a == "Kim <kim@home.todo.invalid>" for a in authors),
          f"the last {commits} commits are not all Kim's, with the placeholder email: {authors}")
    check(git(env, "log", "--format=%an").split().count("Kim") == commits,
          f"git log does not have exactly {commits} commits by Kim (done, undo, done, check, item, two adds, done, reopen)")
    git(env, "fsck", "--strict", "--no-progress")
    say(f"todo list, todo show and git log show Kim's {commits} changes; git fsck is clean")


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
        check_manifest(server.base)
        new_id, picked_id, commits = browse(browser, server.base, link, ids, args.todo, env)
        browser.quit()
        browser = None
        judge(args.todo, env, ids, new_id, picked_id, commits)
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
