#!/usr/bin/env python3
"""Interop: a real browser (headless Chromium, driven by Selenium through chromedriver) consents.

The script runs a tiny callback server on 127.0.0.1 (ephemeral port), gets a request token whose
`oauth_callback` points at it (signed by oauthlib), opens the sandbox's authorize page in
Chromium, saves a screenshot of it (window 1000x800), signs in as alice (first with a wrong
password, which must show the page again with an `id="error"` element), clicks Authorize, and
waits until the browser lands on the callback. That URL (and the request the callback server
received) must carry the request token and a non-empty `oauth_verifier`, which oauthlib then
exchanges for alice's access token. A second run clicks Deny and must land on the callback with
`denied=`. Between the two, an `oob` run in the same (now signed-in) browser must show the
consent page without a login form and, after Authorize, a 7-digit PIN that oauthlib exchanges.

Usage: consent_browser.py SANDBOX_URL [SCREENSHOT]   (default: consent-page.png in the temp directory)
Chromium and chromedriver come from Debian's packages (`chromium`, `chromium-driver`); set
CHROMIUM / CHROMEDRIVER to use others. Prints one line per failed check and ends with
'browser: N passed, M failed'; exits 1 on any failure.
"""
import http.server
import os
import sys
import tempfile
import threading
import urllib.parse

import requests
from harness import Checks
from oauthlib import oauth1
from selenium import webdriver
from selenium.common.exceptions import TimeoutException, WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import WebDriverWait

if len(sys.argv) not in (2, 3):
    sys.exit("usage: consent_browser.py SANDBOX_URL [SCREENSHOT]")
BASE = sys.argv[1].rstrip("/")
# Not docs/consent-page.png by default: a run must not rewrite a tracked file.
SCREENSHOT = sys.argv[2] if len(sys.argv) == 3 else os.path.join(tempfile.gettempdir(), "consent-page.png")
CONSUMER = ("demo-consumer", "demo-consumer-secret")
FORM = "application/x-www-form-urlencoded"
WAIT = 15

CHECKS = Checks("browser")
check = CHECKS.check


class Callback(http.server.BaseHTTPRequestHandler):
    """The client application's callback: records each request path and says thanks."""
    received = []

    def do_GET(self):
        if self.path == "/favicon.ico":
            self.send_error(404)
            return
        Callback.received.append(self.path)
        body = b"<!doctype html><title>Callback</title><p id='done'>Back at the client.</p>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def request_token(callback):
    c = oauth1.Client(*CONSUMER, callback_uri=callback)
    uri, headers, body = c.sign(BASE + "/oauth/request_token", "POST", body="", headers={"Content-Type": FORM})
    r = requests.post(uri, headers=headers, data=body, allow_redirects=False, timeout=10)
    fields = dict(urllib.parse.parse_qsl(r.text))
    if not check(r.status_code == 200 and fields.get("oauth_token") and "oauth_token_secret" in fields,
                 f"request_token: expected 200 with a token, got {r.status_code}: {r.text[:200]!r}"):
        return None
    return fields["oauth_token"], fields["oauth_token_secret"]


def pin_flow(driver):
    """`oob`: the browser is signed in by now, so one click on Authorize shows the PIN page."""
    rt = request_token("oob")
    if rt is None:
        return
    driver.get(BASE + "/oauth/authorize?" + urllib.parse.urlencode({"oauth_token": rt[0]}))
    check(not driver.find_elements(By.ID, "username") and bool(driver.find_elements(By.ID, "allow")),
          f"oob: a signed-in browser must get the page without username and password "
          f"({driver.current_url}: {driver.page_source[:300]!r})")
    driver.find_element(By.ID, "allow").click()
    try:
        pin = WebDriverWait(driver, WAIT).until(
            expected_conditions.presence_of_element_located((By.ID, "pin"))).text.strip()
    except TimeoutException:
        pin = ""
    if check(len(pin) == 7 and pin.isdigit(),
             f"oob: expected the PIN page with <code id=\"pin\"> of 7 digits ({driver.current_url}: "
             f"{driver.page_source[:300]!r})"):
        access_token(*rt, pin)


def access_token(token, secret, verifier):
    c = oauth1.Client(*CONSUMER, resource_owner_key=token, resource_owner_secret=secret, verifier=verifier)
    uri, headers, body = c.sign(BASE + "/oauth/access_token", "POST", body="", headers={"Content-Type": FORM})
    r = requests.post(uri, headers=headers, data=body, allow_redirects=False, timeout=10)
    fields = dict(urllib.parse.parse_qsl(r.text))
    check(r.status_code == 200 and fields.get("oauth_token") and fields.get("screen_name") == "alice",
          f"access_token with the browser's verifier: expected 200 for alice, got {r.status_code}: {r.text[:200]!r}")


def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1000,800",
                     "--lang=en-US"):
        options.add_argument(argument)
    driver = webdriver.Chrome(options=options,
                              service=Service(os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")))
    driver.set_window_size(1000, 800)
    driver.set_page_load_timeout(WAIT)
    return driver


def fill_credentials(driver, password):
    """Types the credentials when the page asks for them (it does not once alice is signed in)."""
    fields = driver.find_elements(By.ID, "username")
    if fields:
        fields[0].clear()
        fields[0].send_keys("alice")
        field = driver.find_element(By.ID, "password")
        field.clear()
        field.send_keys(password)
    return bool(fields)


def lands_on(driver, callback_base):
    try:
        WebDriverWait(driver, WAIT).until(lambda d: d.current_url.startswith(callback_base))
        return True
    except TimeoutException:
        return False


def consent(driver, callback_base, *, deny, screenshot=None):
    callback = callback_base + "?client=browser"
    rt = request_token(callback)
    if rt is None:
        return
    run = "deny" if deny else "authorize"
    driver.get(BASE + "/oauth/authorize?" + urllib.parse.urlencode({"oauth_token": rt[0]}))
    if not check(bool(driver.find_elements(By.ID, "consent")) and bool(driver.find_elements(By.ID, "allow"))
                 and bool(driver.find_elements(By.ID, "deny")),
                 f"{run}: the authorize page has no form#consent with #allow and #deny "
                 f"({driver.current_url}: {driver.page_source[:300]!r})"):
        return
    if screenshot:
        os.makedirs(os.path.dirname(os.path.abspath(screenshot)), exist_ok=True)
        check(driver.save_screenshot(screenshot) and os.path.getsize(screenshot) > 0,
              f"screenshot of the consent page to {screenshot}")
    if not deny:
        asked = fill_credentials(driver, "not-wonderland")
        check(asked, "authorize: a fresh browser is not signed in, so the page must ask for username and password")
        driver.find_element(By.ID, "allow").click()
        try:
            WebDriverWait(driver, WAIT).until(expected_conditions.presence_of_element_located((By.ID, "error")))
            ok = not driver.current_url.startswith(callback_base) and bool(driver.find_elements(By.ID, "consent"))
        except TimeoutException:
            ok = False
        check(ok, f"authorize with a wrong password: expected the page again with an id=\"error\" element "
                  f"({driver.current_url})")
    fill_credentials(driver, "wonderland")
    Callback.received.clear()
    driver.find_element(By.ID, "deny" if deny else "allow").click()
    if not check(lands_on(driver, callback_base),
                 f"{run}: the browser did not land on the callback {callback_base} within {WAIT}s "
                 f"({driver.current_url}: {driver.page_source[:300]!r})"):
        return
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(driver.current_url).query, keep_blank_values=True)
    check(query.get("client") == ["browser"], f"{run}: the callback's own query was not kept: {driver.current_url}")
    check(len(Callback.received) == 1 and Callback.received[0] == urllib.parse.urlsplit(driver.current_url).path
          + "?" + urllib.parse.urlsplit(driver.current_url).query,
          f"{run}: the callback server received {Callback.received}, the browser shows {driver.current_url}")
    if deny:
        check(query.get("denied") == [rt[0]] and "oauth_verifier" not in query,
              f"deny: expected the callback with denied={rt[0]} and no verifier, got {driver.current_url}")
    else:
        verifier = query.get("oauth_verifier", [""])[0]
        if check(query.get("oauth_token") == [rt[0]] and verifier,
                 f"authorize: expected the callback with oauth_token={rt[0]} and an oauth_verifier, "
                 f"got {driver.current_url}"):
            access_token(*rt, verifier)


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Callback)
threading.Thread(target=server.serve_forever, daemon=True).start()
callback_base = f"http://127.0.0.1:{server.server_address[1]}/callback"
driver = None
try:
    driver = browser()
    consent(driver, callback_base, deny=False, screenshot=SCREENSHOT)
    pin_flow(driver)
    consent(driver, callback_base, deny=True)
except (WebDriverException, requests.RequestException) as error:
    check(False, f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else error!r}")
finally:
    if driver is not None:
        driver.quit()
    server.shutdown()

CHECKS.finish()
