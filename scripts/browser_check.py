#!/usr/bin/env python3
"""Drives the fleet's web page in headless Chromium (Debian's chromium and chromium-driver,
through Selenium from PyPI) and prints what it saw as one JSON object.

    python3 scripts/browser_check.py --url http://127.0.0.1:8080/ --token TOKEN \\
        --camera door --camera yard \\
        --add-name porch --add-block 'camera { name: "porch" source: "clip.mp4" }' \\
        --bad-block 'camera { name: "x"
      sauce: "y" }' [--screenshots docs/images]

It waits for one tile per --camera and samples each tile's image (drawn on a canvas and hashed)
until it changes; submits --add-block without the token (the page must show the 401), then
with it, and waits for the new tile and its image; submits --bad-block and reads the error the
page shows; opens the new camera's page, restarts it, removes it and waits for its tile to go;
opens the first camera's page, waits for --events rows of events and fetches their snapshot
links. With --screenshots it saves web-grid.png and web-camera.png (the first camera's page)
there at 1280×800. FrameFlowHTTPTests' WebUIBrowserTests runs it against a real fleet and checks the
JSON and the fleet; it exits 1 (with "error" in the JSON) when a step times out.
"""
import argparse
import json
import os
import shutil
import sys
import time

CHROMIUM = "/usr/bin/chromium"
DRIVER = "/usr/bin/chromedriver"

# The image's pixels hashed (FNV-1a over RGBA), with its natural size; null before a frame.
HASH_IMAGE = """
const img = arguments[0];
if (!img || !img.naturalWidth) return null;
const c = document.createElement("canvas");
c.width = img.naturalWidth;
c.height = img.naturalHeight;
const ctx = c.getContext("2d");
ctx.drawImage(img, 0, 0);
const d = ctx.getImageData(0, 0, c.width, c.height).data;
let h = 2166136261;
for (let i = 0; i < d.length; i++) { h ^= d[i]; h = Math.imul(h, 16777619); }
return [c.width, c.height, (h >>> 0).toString(16)];
"""

TILE_NAMES = "return Array.from(document.querySelectorAll('.tile')).map(t => t.dataset.camera);"
TILE = "return Array.from(document.querySelectorAll('.tile')).find(t => t.dataset.camera === arguments[0]) || null;"


def fail(message, result=None):
    out = dict(result or {})
    out["error"] = message
    print(json.dumps(out, ensure_ascii=False))
    sys.exit(1)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--url", required=True)
    p.add_argument("--token", required=True)
    p.add_argument("--camera", action="append", default=[], help="a camera the grid must show (repeat)")
    p.add_argument("--add-name", required=True)
    p.add_argument("--add-block", required=True)
    p.add_argument("--bad-block", required=True)
    p.add_argument("--events", type=int, default=0, help="events the first camera's page must list")
    p.add_argument("--screenshots", help="folder for web-grid.png and web-camera.png")
    p.add_argument("--timeout", type=float, default=15, help="seconds each step may wait")
    args = p.parse_args()

    for path, package in [(CHROMIUM, "chromium"), (DRIVER, "chromium-driver")]:
        if not shutil.which(path):
            fail(f"{path} is missing: install Debian's {package} (scripts/setup.sh test does)")
    try:
        from selenium import webdriver
        from selenium.common.exceptions import TimeoutException
        from selenium.webdriver.chrome.service import Service
        from selenium.webdriver.common.by import By
        from selenium.webdriver.support import expected_conditions
        from selenium.webdriver.support.ui import WebDriverWait
    except ImportError:
        fail("Selenium is missing: python3 -m pip install selenium (scripts/setup.sh test does)")

    os.environ["SE_OFFLINE"] = "true"  # Selenium Manager must not download anything
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for a in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,800",
              "--hide-scrollbars", "--force-device-scale-factor=1"]:
        options.add_argument(a)
    options.page_load_strategy = "eager"
    started = time.monotonic()
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    # The page's viewport itself 1280×800 (the window's size would include the browser's frame).
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride", {"width": 1280, "height": 800, "deviceScaleFactor": 1, "mobile": False})
    result = {"cameras": args.camera}

    def wait(what, condition, timeout=args.timeout):
        try:
            return WebDriverWait(driver, timeout, poll_frequency=0.1).until(lambda d: condition())
        except TimeoutException:
            fail(f"timed out after {timeout} s waiting for {what}", result)

    def tile(name):
        return driver.execute_script(TILE, name)

    def image_changes(images, what):
        """Samples each image until its pixels took two values; {name: {size, samples, changed}}."""
        seen = {name: [] for name in images}
        deadline = time.monotonic() + args.timeout
        while time.monotonic() < deadline:
            for name, img in images.items():
                h = driver.execute_script(HASH_IMAGE, img)
                if h and (not seen[name] or seen[name][-1] != h):
                    seen[name].append(h)
            if all(len({h[2] for h in s}) >= 2 for s in seen.values()):
                break
            time.sleep(0.25)
        return {
            name: {"size": s[-1][:2] if s else None, "distinct": len({h[2] for h in s}), "changed": len({h[2] for h in s}) >= 2}
            for name, s in seen.items()
        }

    def message(element_id, contains):
        wait(f"#{element_id} to say '{contains}'", lambda: contains in driver.find_element(By.ID, element_id).text)
        return driver.find_element(By.ID, element_id).text

    def submit_block(text):
        area = driver.find_element(By.ID, "add-text")
        area.clear()
        area.send_keys(text)
        driver.execute_script("document.getElementById('add-message').textContent = ''")
        driver.find_element(By.ID, "add-button").click()

    try:
        driver.get(args.url)
        wait("one tile per camera", lambda: sorted(driver.execute_script(TILE_NAMES)) == sorted(args.camera))
        result["tiles"] = driver.execute_script(TILE_NAMES)
        result["tile_titles"] = driver.execute_script(
            "return Array.from(document.querySelectorAll('.tile h2')).map(h => h.textContent);")
        result["images"] = image_changes({n: tile(n).find_element(By.TAG_NAME, "img") for n in args.camera}, "tiles")

        # Adding: refused without the token, then accepted with it.
        driver.find_element(By.CSS_SELECTOR, "#add summary").click()
        submit_block(args.add_block)
        result["unauthorized_message"] = message("add-message", "401")
        token = driver.find_element(By.ID, "token")
        token.send_keys(args.token)
        result["token_stored"] = driver.execute_script("return sessionStorage.getItem('frameflow-token');") == args.token
        submit_block(args.add_block)
        result["added_message"] = message("add-message", "added")
        wait("the added camera's tile", lambda: tile(args.add_name) is not None)
        added = tile(args.add_name)
        result["added_title"] = added.find_element(By.TAG_NAME, "h2").text
        result["added_image"] = image_changes({args.add_name: added.find_element(By.TAG_NAME, "img")}, "added")[args.add_name]
        # Nothing the server sent became markup: the name stayed text.
        result["injected_elements"] = driver.execute_script(
            "return document.querySelectorAll('.tile h2 img, .tile h2 b, img[src=\"x\"]').length;")

        # A bad block: the server's message, with its line and column, in the page.
        submit_block(args.bad_block)
        wait("the error of the bad block", lambda: "request:" in driver.find_element(By.ID, "add-message").text)
        result["bad_block_message"] = driver.find_element(By.ID, "add-message").text
        result["bad_block_is_error"] = "error" in driver.find_element(By.ID, "add-message").get_attribute("class")

        # The added camera's page: restart, then remove; its tile goes.
        added.find_element(By.CSS_SELECTOR, "h2 a").click()
        wait("the camera page", lambda: driver.find_element(By.ID, "camera-name").text == args.add_name)
        wait("the camera page's health", lambda: "state" in driver.find_element(By.ID, "camera-health").text)
        driver.find_element(By.ID, "restart-button").click()
        result["restart_message"] = message("camera-message", "restarted")
        driver.find_element(By.ID, "remove-button").click()
        WebDriverWait(driver, args.timeout).until(expected_conditions.alert_is_present())
        driver.switch_to.alert.accept()
        wait("the grid again", lambda: driver.execute_script("return location.hash;") == "#/")
        wait("the removed camera's tile to go", lambda: tile(args.add_name) is None)
        result["tiles_after_removal"] = driver.execute_script(TILE_NAMES)

        # The grid again, then the first camera's page with its events.
        image_changes({n: tile(n).find_element(By.TAG_NAME, "img") for n in args.camera}, "grid")
        if args.screenshots:
            os.makedirs(args.screenshots, exist_ok=True)
            driver.save_screenshot(os.path.join(args.screenshots, "web-grid.png"))
        tile(args.camera[0]).find_element(By.CSS_SELECTOR, "h2 a").click()
        wait("the first camera's page", lambda: driver.find_element(By.ID, "camera-name").text == args.camera[0])
        live = driver.find_element(By.ID, "camera-live")
        result["page_image"] = image_changes({"live": live}, "page")["live"]
        wait("the camera page's health", lambda: "frames" in driver.find_element(By.ID, "camera-health").text)
        if args.events:
            wait("the camera's events", lambda: len(driver.find_elements(By.CSS_SELECTOR, "#events tbody tr")) >= args.events)
        result["event_rows"] = [
            [c.text for c in row.find_elements(By.TAG_NAME, "td")] for row in driver.find_elements(By.CSS_SELECTOR, "#events tbody tr")
        ]
        # Each snapshot link answers with a JPEG.
        result["event_snapshots"] = driver.execute_async_script(
            """const done = arguments[arguments.length - 1];
            const links = Array.from(document.querySelectorAll('#events a'));
            Promise.all(links.map(a => fetch(a.href).then(r => r.arrayBuffer().then(b =>
                [r.status, r.headers.get('content-type'), b.byteLength]))))
              .then(done, e => done(String(e)));""")
        if args.screenshots:
            driver.save_screenshot(os.path.join(args.screenshots, "web-camera.png"))
            result["screenshots"] = [os.path.join(args.screenshots, f) for f in ("web-grid.png", "web-camera.png")]
    finally:
        driver.quit()
    result["seconds"] = round(time.monotonic() - started, 2)
    print(json.dumps(result, ensure_ascii=False))


if __name__ == "__main__":
    main()
