"""What the scripts that drive `todo-serve` share (scripts/browser-test.py,
scripts/serve-convergence.py, scripts/bench-serve.py): an isolated household, the server started
and stopped by its pid, an invite, and an HTTP session that signs in and submits the pages' forms
as a browser would (cookies, hidden `csrf`, no redirect followed unless asked).

Standard library only. Every wait has a timeout; failures raise Failed with a sentence that says
what went wrong."""

import base64
import html.parser
import json
import http.client
import os
import re
import select
import signal
import subprocess
import time
import urllib.parse

LISTENING = re.compile(r"^todo-serve: listening on http://127\.0\.0\.1:(\d+)/\s*$")


class Failed(Exception):
    pass


# ---------------------------------------------------------------------------------------------
# Households and commands


def member_env(root, name):
    """The environment of one member's machine under root/name: HOME, TODO_HOME, the state
    folder and git's configuration all inside it, nothing read from the account running this."""
    base = os.path.join(root, name)
    home = os.path.join(base, "home")
    os.makedirs(home, exist_ok=True)
    gitconfig = os.path.join(base, "gitconfig")
    with open(gitconfig, "w") as f:
        f.write(f"[user]\n\tname = {name}\n\temail = {name.lower()}@example.org\n"
                "[init]\n\tdefaultBranch = main\n[gc]\n\tauto = 0\n[maintenance]\n\tauto = false\n")
    return {
        "PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"),
        "HOME": home,
        "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
        "NO_COLOR": "1",
        "TODO_HOME": os.path.join(base, "todo"),
        "XDG_STATE_HOME": os.path.join(base, "state"),
        "XDG_CONFIG_HOME": os.path.join(base, "config"),
        "GIT_CONFIG_GLOBAL": gitconfig,
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_TERMINAL_PROMPT": "0",
    }


def run(cmd, env, timeout=120, check=True, cwd=None):
    """Run cmd; its stdout as text. A non-zero exit (with check) or a hang raises Failed."""
    try:
        p = subprocess.run(cmd, env=env, cwd=cwd, stdin=subprocess.DEVNULL, capture_output=True,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        raise Failed(f"`{' '.join(map(str, cmd))}` did not finish within {timeout} s")
    out = p.stdout.decode("utf-8", "replace")
    if check and p.returncode != 0:
        err = p.stderr.decode("utf-8", "replace").strip()
        raise Failed(f"`{' '.join(map(str, cmd))}` exited {p.returncode}: {err[:800]}")
    return out


def repository(env, household="home"):
    return os.path.join(env["TODO_HOME"], household)


def git(env, *args, timeout=60):
    return run(["git", "-C", repository(env)] + list(args), env, timeout=timeout)


# ---------------------------------------------------------------------------------------------
# The server


class Server:
    """`todo-serve --listen 127.0.0.1:0 …` started in its own process group; .port once it said
    it listens. stop() sends SIGTERM and returns the exit code (SIGKILL after `grace` s)."""

    def __init__(self, serve, env, args=(), log_path=None, timeout=60):
        self.log_path = log_path or os.path.join(env["HOME"], "todo-serve.log")
        self.log = open(self.log_path, "wb")
        cmd = [serve, "--listen", "127.0.0.1:0"] + list(args)
        self.proc = subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=self.log, start_new_session=True)
        self.pid = self.proc.pid
        self.port = None
        deadline = time.monotonic() + timeout
        line = b""
        while self.port is None:
            left = deadline - time.monotonic()
            if left <= 0:
                self.stop(grace=5)
                raise Failed(f"todo-serve printed no `listening on` line within {timeout} s "
                             f"(stderr: {self.stderr_tail()})")
            ready, _, _ = select.select([self.proc.stdout], [], [], left)
            if not ready:
                continue
            chunk = os.read(self.proc.stdout.fileno(), 4096)
            if not chunk:
                code = self.proc.wait(timeout=10)
                raise Failed(f"todo-serve exited {code} before listening (stderr: {self.stderr_tail()})")
            line += chunk
            for text in line.decode("utf-8", "replace").splitlines():
                m = LISTENING.match(text)
                if m:
                    self.port = int(m.group(1))
                    break
        self.base = f"http://127.0.0.1:{self.port}"

    def stderr_tail(self, size=1500):
        try:
            with open(self.log_path, "rb") as f:
                return f.read().decode("utf-8", "replace")[-size:].strip() or "nothing"
        except OSError:
            return "unreadable"

    def rss_kib(self):
        """(VmHWM, VmRSS) of the server process, in KiB, from /proc."""
        values = {}
        with open(f"/proc/{self.pid}/status") as f:
            for line in f:
                key, _, rest = line.partition(":")
                if key in ("VmHWM", "VmRSS"):
                    values[key] = int(rest.split()[0])
        return values.get("VmHWM"), values.get("VmRSS")

    def stop(self, grace=15):
        """SIGTERM, then the exit code; a server still running after `grace` s is killed and
        that is reported as None."""
        if self.proc.poll() is None:
            try:
                os.kill(self.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        try:
            code = self.proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            os.killpg(self.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)
            code = None
        if self.proc.stdout:
            self.proc.stdout.close()
        self.log.close()
        return code


def invite(serve, env, name, base_url, timeout=60):
    """`todo-serve invite NAME --base-url BASE`: the sign-in URL, its last line of stdout."""
    out = run([serve, "invite", name, "--base-url", base_url], env, timeout=timeout)
    lines = [line.strip() for line in out.splitlines() if line.strip()]
    if not lines or not re.match(re.escape(base_url.rstrip("/")) + r"/i/[A-Za-z0-9_.-]+$", lines[-1]):
        raise Failed(f"`todo-serve invite {name}` printed no sign-in link as its last line: {out!r}")
    return lines[-1]


def app_password(serve, env, name, base_url, timeout=60):
    """`todo-serve app-password NAME --json --base-url BASE`: (user, password) of a new device."""
    out = run([serve, "app-password", name, "--json", "--base-url", base_url], env, timeout=timeout)
    try:
        data = json.loads(out)
        return data["user"], data["password"]
    except (ValueError, KeyError):
        raise Failed(f"`todo-serve app-password {name} --json` printed no user and password: {out!r}")


def member_key(name):
    """A member's key in CalDAV addresses (docs/CALDAV.md): `m` and the FNV-1a-64 of the name."""
    h = 0xcbf29ce484222325
    for b in name.encode():
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return "m%016x" % h


class Phone:
    """A phone's task app: CalDAV requests with its app password (HTTP Basic), one connection."""

    def __init__(self, port, user, password, member, timeout=30):
        self.port, self.timeout = port, timeout
        self.auth = "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()
        self.home = f"/dav/{member_key(member)}/"

    def request(self, method, path, body=b"", headers=None):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=self.timeout)
        try:
            h = {"Authorization": self.auth, "Content-Length": str(len(body))}
            h.update(headers or {})
            conn.request(method, path, body=body, headers=h)
            r = conn.getresponse()
            return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read()
        finally:
            conn.close()


# ---------------------------------------------------------------------------------------------
# Pages


class Form:
    def __init__(self, action, method):
        self.action, self.method = action, method.lower()
        self.fields = {}  # name -> value (inputs with a name, last one wins)
        self.buttons = []  # (aria-label or text, name, value)


class PageParser(html.parser.HTMLParser):
    """The forms of a page, their inputs and buttons; and the text of elements with class
    `title`, `notice` and `error`."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.forms = []
        self.form = None
        self.button = None
        self.texts = {"title": [], "notice": [], "error": []}
        self.capture = []  # stack of (tag, class or None, buffer)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form":
            self.form = Form(a.get("action") or "", a.get("method") or "get")
            self.forms.append(self.form)
        elif tag in ("input", "textarea", "select") and self.form is not None and a.get("name"):
            if a.get("type") not in ("checkbox", "radio") or "checked" in a:
                self.form.fields[a["name"]] = a.get("value") or ""
        elif tag == "button" and self.form is not None:
            self.button = [a.get("aria-label"), a.get("name"), a.get("value"), ""]
        classes = (a.get("class") or "").split()
        kind = next((k for k in self.texts if k in classes), None)
        if tag not in ("input", "br", "img", "meta", "link"):
            self.capture.append((tag, kind, []))

    def handle_endtag(self, tag):
        if tag == "form":
            self.form = None
        elif tag == "button" and self.button is not None and self.form is not None:
            label, name, value, text = self.button
            self.form.buttons.append((label or " ".join(text.split()), name, value))
            self.button = None
        while self.capture:
            open_tag, kind, buf = self.capture.pop()
            if kind:
                self.texts[kind].append("".join(buf).strip())
            if open_tag == tag:
                break

    def handle_data(self, data):
        if self.button is not None:
            self.button[3] += data
        for _, kind, buf in self.capture:
            if kind:
                buf.append(data)


def parse(body):
    p = PageParser()
    p.feed(body)
    p.close()
    return p


class Response:
    def __init__(self, status, headers, body):
        self.status, self.headers, self.body = status, headers, body
        self._page = None

    @property
    def page(self):
        if self._page is None:
            self._page = parse(self.body)
        return self._page

    def header(self, name):
        return self.headers.get(name.lower())

    def form_with_button(self, label):
        """The form whose button is labelled `label` (aria-label, else its text)."""
        for form in self.page.forms:
            for button in form.buttons:
                if button[0] == label:
                    return form
        return None


class Session:
    """One device: its cookies, HTTP/1.1 keep-alive to the server. `source` is the
    local address to connect from (any 127.x.y.z: the server's per-client limits key on it)."""

    def __init__(self, port, source="127.0.0.1", timeout=30):
        self.port, self.source, self.timeout = port, source, timeout
        self.cookies = {}  # name -> value: the session, and a notice riding to the next page
        self.csrf = None
        self.conn = None

    @property
    def cookie(self):
        """The session cookie, `todo_session=VALUE`, or None."""
        value = self.cookies.get("todo_session")
        return f"todo_session={value}" if value else None

    @cookie.setter
    def cookie(self, text):
        if text:
            self.cookies["todo_session"] = text.split("=", 1)[1]
        else:
            self.cookies.pop("todo_session", None)

    def connect(self, source=None):
        if self.conn:
            self.conn.close()
        if source:
            self.source = source
        self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=self.timeout,
                                               source_address=(self.source, 0))

    def close(self):
        if self.conn:
            self.conn.close()
            self.conn = None

    def request(self, method, path, fields=None):
        body = None
        headers = {"Accept": "text/html"}
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        if fields is not None:
            body = urllib.parse.urlencode(fields).encode()
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        for attempt in (1, 2):
            if self.conn is None:
                self.connect()
            try:
                self.conn.request(method, path, body=body, headers=headers)
                r = self.conn.getresponse()
                data = r.read()
                break
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                # The server closed a kept-alive connection between two requests: once more on
                # a fresh one (only a request that was never answered is sent again).
                self.close()
                if attempt == 2:
                    raise
        hdrs = {k.lower(): v for k, v in r.getheaders()}
        for k, v in r.getheaders():
            if k.lower() == "set-cookie":
                pair, _, attributes = v.partition(";")
                name, _, value = pair.strip().partition("=")
                if not value or re.search(r"(?i)max-age=0\b", attributes):
                    self.cookies.pop(name, None)
                else:
                    self.cookies[name] = value
        if r.getheader("connection", "").lower() == "close":
            self.close()
        resp = Response(r.status, hdrs, data.decode("utf-8", "replace"))
        if "text/html" in (hdrs.get("content-type") or ""):
            m = re.search(r'name="csrf"\s+value="([^"]+)"|value="([^"]+)"\s+name="csrf"', resp.body)
            if m:
                self.csrf = m.group(1) or m.group(2)
        return resp

    def get(self, path):
        return self.request("GET", path)

    def post(self, path, fields=None):
        fields = dict(fields or {})
        if self.csrf and "csrf" not in fields:
            fields["csrf"] = self.csrf
        return self.request("POST", path, fields)

    def follow(self, response):
        """GET where a 303 points (the page a browser shows next, with its notice)."""
        location = response.header("location") or "/"
        return self.get(urllib.parse.urlsplit(location)._replace(scheme="", netloc="").geturl() or "/")

    def submit(self, form, extra=None):
        fields = dict(form.fields)
        fields.update(extra or {})
        return self.post(form.action, fields)

    def sign_in(self, invite_url):
        path = urllib.parse.urlsplit(invite_url).path
        page = self.get(path)
        if page.status != 200:
            raise Failed(f"GET {path} answered {page.status}, not the sign-in page")
        form = page.form_with_button("Sign in")
        if form is None:
            raise Failed(f"the sign-in page has no form with a `Sign in` button: {page.body[:500]}")
        done = self.submit(form)
        if done.status != 303 or not self.cookie:
            raise Failed(f"POST {form.action} answered {done.status}"
                         f"{' without a todo_session cookie' if not self.cookie else ''}, not 303 with a cookie")
        return done
