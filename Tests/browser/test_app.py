"""The web app (/app/) end to end, in headless Chromium, against a `seer serve --demo` it starts.

Run with `scripts/test-browser` (it installs Chromium, its driver and the Python packages when
missing). SEER_BIN names the `seer` binary (default: .build/debug/seer). SEER_WEBAPP_SCREENSHOTS=DIR
also saves a phone-size screenshot of each screen into DIR (docs/webapp keeps the committed ones).
"""

import json
import os
import re
import ssl
import subprocess
import tempfile
import threading
import urllib.request
from pathlib import Path

import axe_selenium_python
import pytest
from PIL import Image
from selenium import webdriver
from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException, TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import Select, WebDriverWait

ROOT = Path(__file__).resolve().parents[2]
PRODUCTS = ROOT / "TestImages" / "products"
PLATES = ROOT / "TestImages" / "plates"
AXE = Path(axe_selenium_python.__file__).parent / "node_modules" / "axe-core" / "axe.min.js"
WIDTH = 360
HEIGHT = 780
HOSTILE = '<img src=x onerror="document.title=\'pwned\'"><script>document.title=\'pwned\'</script>&amp;'
SHOTS = os.environ.get("SEER_WEBAPP_SCREENSHOTS")


def seer_binary():
    path = Path(os.environ.get("SEER_BIN", ROOT / ".build" / "debug" / "seer"))
    if not path.exists():
        pytest.exit(f"no seer binary at {path}: build it (swift build --product seer) or set SEER_BIN", returncode=1)
    return str(path)


class Server:
    """`seer serve --demo` on a free loopback port, its database in a temporary folder."""

    def __init__(self, tmp, extra=()):
        env = dict(os.environ, TMPDIR=tmp, SEER_LOG="info")
        self.process = subprocess.Popen(
            [seer_binary(), "serve", "--demo", "--port", "0", "--workers", "1", *extra],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        self.out_lines = []
        self.err_lines = []
        ready = threading.Event()

        def read(stream, lines, marker):
            for line in stream:
                lines.append(line.rstrip("\n"))
                if marker(line):
                    ready.set()

        threading.Thread(target=read, args=(self.process.stdout, self.out_lines, lambda l: l.startswith("app ")), daemon=True).start()
        threading.Thread(target=read, args=(self.process.stderr, self.err_lines, lambda l: False), daemon=True).start()
        if not ready.wait(60):
            self.process.kill()
            raise RuntimeError("seer serve --demo printed no app link:\n" + "\n".join(self.err_lines))
        self.keys = {line.split()[0]: line.split()[1] for line in self.out_lines if line.split()[0] in ("device", "user", "admin")}
        self.link = next(line[4:] for line in self.out_lines if line.startswith("app "))
        self.base = re.match(r"(https?://[^/]+)", self.link).group(1)

    def log(self):
        return "\n".join(self.err_lines)

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(20)
        except subprocess.TimeoutExpired:
            self.process.kill()


def y4m_of(png, path, frames=4):
    """A short Y4M video of a photo on a grey ground, for Chromium's fake camera."""
    image = Image.open(png).convert("RGB")
    ground = Image.new("RGB", (640, 480), (200, 200, 200))
    image.thumbnail((440, 440))
    ground.paste(image, ((640 - image.width) // 2, (480 - image.height) // 2))
    y, cb, cr = ground.convert("YCbCr").split()
    cb = cb.resize((320, 240))
    cr = cr.resize((320, 240))
    with open(path, "wb") as f:
        f.write(b"YUV4MPEG2 W640 H480 F10:1 Ip A1:1 C420jpeg\n")
        for _ in range(frames):
            f.write(b"FRAME\n" + y.tobytes() + cb.tobytes() + cr.tobytes())


@pytest.fixture(scope="module")
def tmp():
    with tempfile.TemporaryDirectory(prefix="seer-webapp-") as folder:
        yield folder


@pytest.fixture(scope="module")
def server(tmp):
    s = Server(tmp)
    yield s
    s.stop()


@pytest.fixture(scope="module")
def hostile_png(tmp):
    path = os.path.join(tmp, "hostile.png")
    subprocess.run([seer_binary(), "registry", "qr", HOSTILE, path], check=True)
    return path


@pytest.fixture(scope="module")
def browser(tmp):
    options = webdriver.ChromeOptions()
    options.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--hide-scrollbars",
                 "--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream",
                 f"--use-file-for-fake-video-capture={os.path.join(tmp, 'camera.y4m')}"):
        options.add_argument(flag)
    options.add_experimental_option("mobileEmulation", {"deviceMetrics": {"width": WIDTH, "height": HEIGHT, "pixelRatio": 2, "touch": True}})
    y4m_of(PRODUCTS / "authentic-jws.png", os.path.join(tmp, "camera.y4m"))
    driver = webdriver.Chrome(options=options, service=Service(os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")))
    driver.set_script_timeout(30)
    yield driver
    driver.quit()


def wait(driver, condition, seconds=30):
    # The app replaces whole screens: an element found a moment ago may be gone; look again.
    return WebDriverWait(driver, seconds, ignored_exceptions=(StaleElementReferenceException, NoSuchElementException)).until(condition)


def text_of(driver, selector, seconds=30):
    """The text of the first visible element matching `selector`, once it has some."""
    def found(d):
        element = d.find_element(By.CSS_SELECTOR, selector)
        return element.is_displayed() and element.text.strip() and element.text
    return wait(driver, found, seconds)


def go(driver, server, screen):
    # A fresh load each time (the tab's session storage stays): going to the address already shown
    # would not change the screen.
    driver.get("about:blank")
    driver.get(f"{server.base}/app/#/{screen}")
    wait(driver, lambda d: d.find_element(By.CSS_SELECTOR, "main h1").text.strip() != "Seer")


def click(driver, element):
    """Scrolls the element clear of the tab bar, as a person would, and taps it."""
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
    element.click()


def choose_file(driver, input_id, path):
    driver.find_element(By.ID, input_id).send_keys(str(path))


def shot(driver, name):
    if SHOTS:
        os.makedirs(SHOTS, exist_ok=True)
        driver.save_screenshot(os.path.join(SHOTS, f"{name}.png"))


def check_screen(driver, name):
    """No serious or critical axe-core violation, nothing wider than the 360-px screen; a screenshot."""
    driver.execute_script(AXE.read_text(encoding="utf-8"))
    result = driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "axe.run(document, {resultTypes: ['violations']}).then(r => done(r.violations), e => done([{id: 'axe-error', impact: 'critical', description: String(e), nodes: []}]));")
    serious = [v for v in result if v.get("impact") in ("serious", "critical")]
    assert not serious, f"{name}: " + json.dumps([{"id": v["id"], "impact": v["impact"], "help": v.get("help", v.get("description")), "nodes": [n.get("target") for n in v["nodes"]][:5]} for v in serious], indent=1)
    width = driver.execute_script("return document.documentElement.scrollWidth")
    assert width <= WIDTH, f"{name}: the page is {width} px wide at {WIDTH} px"
    overflowing = driver.execute_script(
        "return [...document.querySelectorAll('main *')].filter(e => { const r = e.getBoundingClientRect(); return r.width > 0 && (r.right > innerWidth + 1 || r.left < -1); }).map(e => e.tagName + '.' + e.className).slice(0, 5)")
    assert not overflowing, f"{name}: elements overflow the screen: {overflowing}"
    shot(driver, name)


def test_demo_link_signs_in_without_the_keys_reaching_the_server(browser, server):
    assert set(server.keys) == {"device", "user", "admin"}
    assert "#device=" in server.link and "&user=" in server.link
    browser.get(server.link)
    wait(browser, lambda d: d.find_element(By.CSS_SELECTOR, "main h1").text == "Home")
    assert "device=" not in browser.current_url and server.keys["device"] not in browser.current_url
    held = json.loads(browser.execute_script("return sessionStorage.getItem('seer.keys')"))
    assert held == {"device": server.keys["device"], "user": server.keys["user"]}
    assert browser.execute_script("return localStorage.getItem('seer.keys')") is None
    text_of(browser, "#total-scans")
    # The server logged the app's requests, and no key.
    log = server.log()
    assert "route=/app/{file}" in log, log[-2000:]
    for key in server.keys.values():
        assert key not in log


def test_assets_are_served_with_strict_headers(server):
    with urllib.request.urlopen(f"{server.base}/app/") as answer:
        headers = answer.headers
        body = answer.read().decode()
    policy = headers["Content-Security-Policy"]
    assert "default-src 'self'" in policy and "unsafe-inline" not in policy and "unsafe-eval" not in policy
    assert headers["Content-Type"].startswith("text/html")
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert "<script" in body and "<script>" not in body and "style=" not in body
    with urllib.request.urlopen(f"{server.base}/app/app.js") as answer:
        assert answer.headers["Content-Type"].startswith("text/javascript")
        etag = answer.headers["ETag"]
        assert answer.headers["Cache-Control"] == "no-cache"
    again = urllib.request.Request(f"{server.base}/app/app.js", headers={"If-None-Match": etag})
    try:
        urllib.request.urlopen(again)
        raise AssertionError("an unchanged file is answered 304")
    except urllib.error.HTTPError as error:
        assert error.code == 304
    try:
        urllib.request.urlopen(f"{server.base}/app/nothing.js")
        raise AssertionError("an unknown file is answered 404")
    except urllib.error.HTTPError as error:
        assert error.code == 404
    # The API's roles are unchanged: the app's files need no key, the API still does.
    try:
        urllib.request.urlopen(f"{server.base}/v1/stats")
        raise AssertionError("the API needs a key")
    except urllib.error.HTTPError as error:
        assert error.code == 401


def test_photo_verdict_report_and_statistics(browser, server):
    go(browser, server, "scan")
    check_screen(browser, "scan")
    choose_file(browser, "scan-photo", PRODUCTS / "authentic-link.png")
    assert text_of(browser, ".verdict-word") == "Authentic"
    assert "Radiance Serum 30 ml" in text_of(browser, ".verdict .product")
    assert "The brand's signature is valid." in text_of(browser, ".verdict .reasons")
    assert len(browser.find_elements(By.CSS_SELECTOR, "figure.photo svg polygon.mark.code")) == 1
    payload = browser.find_element(By.CSS_SELECTOR, ".marks .payload").text
    assert payload.startswith("https://id.example.com/01/09506000134352/")
    check_screen(browser, "verdict")
    click(browser, browser.find_element(By.XPATH, "//button[text()='Report counterfeit']"))
    wait(browser, EC.visibility_of_element_located((By.CSS_SELECTOR, "dialog")))
    browser.find_element(By.ID, "dialog-field").send_keys("Label peels off")
    click(browser, browser.find_element(By.CSS_SELECTOR, "dialog button.danger"))
    assert "Reported as counterfeit" in text_of(browser, "#toast .toast")
    go(browser, server, "home")
    wait(browser, lambda d: d.find_element(By.ID, "total-reported").text == "1")
    assert browser.find_element(By.ID, "total-scans").text == "1"
    authentic = browser.find_element(By.CSS_SELECTOR, "section[aria-label='By verdict'] li[data-key='authentic'] .count-value").text
    assert authentic == "1"
    assert "Radiance Serum 30 ml" in browser.find_element(By.CSS_SELECTOR, "section[aria-label='Recent scans']").text
    check_screen(browser, "home")


def test_history_search_suggestions_and_details(browser, server):
    go(browser, server, "history")
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, ".history-list .scan-item"))
    box = browser.find_element(By.ID, "history-search")
    box.send_keys("Radi")
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#search-suggestions option"))
    suggestions = [o.get_attribute("value") for o in browser.find_elements(By.CSS_SELECTOR, "#search-suggestions option")]
    assert any(s.lower().startswith("radi") for s in suggestions), suggestions
    box.clear()
    box.send_keys("Radiance")
    click(browser, browser.find_element(By.CSS_SELECTOR, "form.filters button[type=submit]"))
    wait(browser, lambda d: "Results for" in d.find_element(By.CSS_SELECTOR, ".history-list").text)
    items = browser.find_elements(By.CSS_SELECTOR, ".history-list .scan-item")
    assert items and all("Radiance Serum" in i.text for i in items)
    wait(browser, lambda d: any(c.text == "Radiance" for c in d.find_elements(By.CSS_SELECTOR, ".recent-searches .chip")))
    # The failed filter has no authentic scan.
    click(browser, browser.find_element(By.CSS_SELECTOR, "input[name=result][value=failed]"))
    wait(browser, lambda d: "No scans match." in d.find_element(By.CSS_SELECTOR, ".history-list").text)
    check_screen(browser, "history")
    click(browser, browser.find_element(By.CSS_SELECTOR, "input[name=result][value=all]"))
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, ".history-list .scan-item"))
    click(browser, browser.find_element(By.CSS_SELECTOR, ".history-list .scan-item"))
    wait(browser, lambda d: d.find_element(By.CSS_SELECTOR, "main h1").text.startswith("Scan "))
    assert text_of(browser, ".verdict-word") == "Authentic"
    assert "Label peels off" in text_of(browser, "section[aria-label='Counterfeit reports']")
    check_screen(browser, "details")


def test_plate_photo_and_preset_message(browser, server):
    go(browser, server, "plates")
    check_screen(browser, "plates")
    choose_file(browser, "plate-photo", PLATES / "uk.png")
    wait(browser, lambda d: d.find_element(By.CSS_SELECTOR, "main h1").text == "Check the plate", 60)
    assert browser.find_element(By.ID, "plate-text").get_attribute("value") == "LN68XKT"
    assert len(browser.find_elements(By.CSS_SELECTOR, ".plate-chars .char")) == 7
    assert len(browser.find_elements(By.CSS_SELECTOR, "figure.photo svg polygon.mark.plate")) >= 1
    check_screen(browser, "plate-check")
    click(browser, browser.find_element(By.CSS_SELECTOR, "form.check button[type=submit]"))
    wait(browser, lambda d: d.find_element(By.CSS_SELECTOR, "main h1").text == "Message")
    click(browser, browser.find_element(By.CSS_SELECTOR, "input[name=preset][value=lights]"))
    check_screen(browser, "plate-message")
    click(browser, browser.find_element(By.CSS_SELECTOR, "form.message button[type=submit]"))
    assert "delivered to the owner of LN68XKT" in text_of(browser, ".sent")


def test_manual_plate_custom_message_reaches_the_inbox(browser, server):
    go(browser, server, "plates")
    browser.find_element(By.ID, "manual-plate").send_keys("ab12 cde")
    click(browser, browser.find_element(By.CSS_SELECTOR, "form.manual button[type=submit]"))
    wait(browser, lambda d: d.find_element(By.CSS_SELECTOR, "main h1").text == "Check the plate")
    click(browser, browser.find_element(By.CSS_SELECTOR, "form.check button[type=submit]"))
    wait(browser, lambda d: d.find_element(By.CSS_SELECTOR, "main h1").text == "Message")
    note = "<b>Parked</b> in bay 4 & <script>x()</script>"
    browser.find_element(By.ID, "custom-text").send_keys(note)
    click(browser, browser.find_element(By.CSS_SELECTOR, "form.message button[type=submit]"))
    assert "AB12CDE" in text_of(browser, ".sent")
    go(browser, server, "plates/inbox")
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, ".inbox .message-text"))
    texts = [m.text for m in browser.find_elements(By.CSS_SELECTOR, ".inbox .message-text")]
    assert note in texts
    assert not browser.find_elements(By.CSS_SELECTOR, ".inbox b, .inbox script")
    check_screen(browser, "inbox")
    go(browser, server, "plates/join")
    check_screen(browser, "register")
    # The demo user key already acts for an owner: the API refuses a second registration.
    for field, value in (("join-name", "Sam Example"), ("join-email", "sam@example.com"), ("join-plate", "XY12 ZZZ")):
        browser.find_element(By.ID, field).send_keys(value)
    click(browser, browser.find_element(By.CSS_SELECTOR, "form.join button[type=submit]"))
    assert "already belongs" in text_of(browser, "form.join + div .error")


def test_charger_by_id_and_by_photo(browser, server):
    go(browser, server, "charger")
    browser.find_element(By.ID, "charger-id").send_keys("100001")
    click(browser, browser.find_element(By.CSS_SELECTOR, "form.charger button[type=submit]"))
    assert text_of(browser, ".charger-action") == "Begin charging"
    assert "Demo Street 1, bay 1" in browser.find_element(By.CSS_SELECTOR, ".charger-card").text
    check_screen(browser, "charger")
    choose_file(browser, "charger-photo", PRODUCTS / "charger-faulted.png")
    wait(browser, lambda d: d.find_element(By.CSS_SELECTOR, ".charger-action").text == "Charger out of order")


def test_hostile_payload_is_shown_as_text(browser, server, hostile_png):
    go(browser, server, "scan")
    choose_file(browser, "scan-photo", hostile_png)
    wait(browser, EC.visibility_of_element_located((By.CSS_SELECTOR, ".verdict-word")))
    shown = [e.text for e in browser.find_elements(By.CSS_SELECTOR, ".payload")]
    assert HOSTILE in shown, shown
    assert browser.title != "pwned"
    assert not browser.find_elements(By.CSS_SELECTOR, "main img[src='x'], main script, figure img:not([src^='blob:'])")
    scan_link = browser.find_element(By.XPATH, "//a[text()='Details']").get_attribute("href")
    browser.get(scan_link)
    wait(browser, lambda d: d.find_element(By.CSS_SELECTOR, "main h1").text.startswith("Scan "))
    wait(browser, lambda d: HOSTILE in [e.text for e in d.find_elements(By.CSS_SELECTOR, ".details .payload")])
    assert browser.title != "pwned" and not browser.find_elements(By.CSS_SELECTOR, "main img, main script")
    check_screen(browser, "hostile")


def test_camera_scans_until_a_code_is_read(browser, server):
    go(browser, server, "scan")
    click(browser, browser.find_element(By.XPATH, "//button[text()='Scan with the camera']"))
    try:
        word = text_of(browser, ".verdict-word", 60)
    except TimeoutException:
        status = browser.find_element(By.CSS_SELECTOR, ".camera-status").text
        raise AssertionError(f"the camera read nothing: {status}")
    assert word == "Authentic"
    assert "Ceramic Brake Pads" in browser.find_element(By.CSS_SELECTOR, ".verdict .product").text
    # The camera stops once a code is read.
    wait(browser, lambda d: d.execute_script("const v = document.querySelector('video'); return !v || !v.srcObject || v.srcObject.getTracks().every(t => t.readyState === 'ended')"))


def test_settings_and_signing_in_by_hand(browser, server):
    go(browser, server, "settings")
    click(browser, browser.find_element(By.CSS_SELECTOR, "input[name=mode][value=batch]"))
    Select(browser.find_element(By.ID, "period")).select_by_value("all")
    click(browser, browser.find_element(By.CSS_SELECTOR, "form.settings button[type=submit]"))
    assert "Settings saved" in text_of(browser, "#toast .toast")
    check_screen(browser, "settings")
    go(browser, server, "history")
    assert browser.find_element(By.ID, "history-period").get_attribute("value") == "all"
    go(browser, server, "scan")
    assert "Batch mode" in browser.find_element(By.CSS_SELECTOR, "main .hint").text
    choose_file(browser, "scan-photo", PRODUCTS / "authentic-unsigned.png")
    wait(browser, lambda d: d.find_element(By.CSS_SELECTOR, ".counter").text.startswith("1 scanned"))
    # Signed out, the API refuses; a wrong key is refused; the right one signs in again.
    go(browser, server, "settings")
    click(browser, browser.find_element(By.ID, "sign-out"))
    assert "not signed in" in text_of(browser, "#signed-in")
    go(browser, server, "home")
    assert "Sign in" in text_of(browser, "main .error")
    go(browser, server, "settings")
    browser.find_element(By.ID, "key-device").send_keys(server.keys["user"])
    click(browser, browser.find_element(By.CSS_SELECTOR, "form.keys button[type=submit]"))
    assert "not a device key" in text_of(browser, "#toast .toast.error")
    browser.find_element(By.ID, "key-device").clear()
    browser.find_element(By.ID, "key-device").send_keys(server.keys["device"])
    click(browser, browser.find_element(By.CSS_SELECTOR, "form.keys button[type=submit]"))
    wait(browser, lambda d: "Signed in" in d.find_element(By.CSS_SELECTOR, "#toast").text)
    go(browser, server, "home")
    wait(browser, lambda d: d.find_element(By.ID, "total-scans").text.isdigit())
    for key in server.keys.values():
        assert key not in server.log()


def test_https_with_a_certificate_the_user_provides(tmp):
    cert, key = os.path.join(tmp, "cert.pem"), os.path.join(tmp, "key.pem")
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
         "-keyout", key, "-out", cert, "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"],
        check=True, capture_output=True)
    secure = Server(tmp, ["--tls-cert", cert, "--tls-key", key])
    try:
        assert secure.link.startswith("https://127.0.0.1:") and "/app/#device=" in secure.link
        context = ssl.create_default_context(cafile=cert)
        with urllib.request.urlopen(f"{secure.base}/app/", context=context) as answer:
            assert answer.status == 200
            assert "default-src 'self'" in answer.headers["Content-Security-Policy"]
        request = urllib.request.Request(f"{secure.base}/v1/chargers/100001", headers={"Authorization": f"Bearer {secure.keys['user']}"})
        with urllib.request.urlopen(request, context=context) as answer:
            assert json.load(answer)["action"] == "beginCharging"
    finally:
        secure.stop()
    broken = subprocess.run([seer_binary(), "serve", "--demo", "--port", "0", "--tls-cert", key, "--tls-key", key], capture_output=True, text=True, timeout=60)
    assert broken.returncode == 1 and "cannot read a PEM certificate chain" in broken.stderr, broken.stderr[-500:]
