"""The user's login page of the near-miss tests: a form labelled "Username" and a same-origin
iframe (whose text the DOM read includes), and the case that types into "User name"."""

FORM = """<form onsubmit="event.preventDefault();
  document.getElementById('msg').textContent = 'Signed in as ' + document.getElementById('u').value">
<label for="u">Username</label><input id="u"> <button type="submit">Log in</button></form>
<div id="msg"></div>"""
# the user's page: a form and a same-origin iframe (whose text the DOM read includes)
FRAMED = f"""<!doctype html><html><body><h1>QA App</h1>{FORM}
<iframe src="frame.html" title="inner" width="300" height="80"></iframe></body></html>"""
FRAME = "<!doctype html><html><body><p>Inside frame</p></body></html>"
TYPO_CASE = """name: typo target
web:
  url: ${QA_URL}/framed.html
tasks:
  - name: t
    flow:
      - aiInput: User name
        value: x
"""
TYPO = 'no element matches "User name"; the closest on screen is "Username" (label)'
