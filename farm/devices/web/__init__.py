"""The browser device's parts (the device itself is farm/devices/browser.py).

scripts.py      every script farm runs in a page (the .js files beside it)
failures.py     Playwright errors mapped onto farm's: browser gone -> DeviceLost, else DeviceError
context.py      a case's browser context: Midscene's web options -> Playwright's
page_wait.py    waiting for the navigation an action started before the next page read
dom_read.py     the rendered DOM as a UITree (one evaluate, not walked again while unchanged)
capture.py      screenshots: the PNG a locator or model looks at, the JPEG for the report
javascript.py   Midscene's ``javascript:`` step
"""
