#!/usr/bin/env bash
# Installs what farm needs on a Debian machine: Debian packages when missing (as root),
# then the venv with farm and its test dependencies. Idempotent; quick when all is there.
set -euo pipefail
cd "$(dirname "$0")/.."

want_debs=()
command -v chromium >/dev/null 2>&1 || [ -x /usr/bin/chromium ] || want_debs+=(chromium)
# the same Chromium built for headless use: what farm launches for headless devices when it
# is there (farm falls back to chromium, so a failed install of it is only a warning)
nice_debs=()
[ -x /usr/lib/chromium/chromium-headless-shell ] || command -v chromium-headless-shell \
  >/dev/null 2>&1 || nice_debs+=(chromium-headless-shell)
# a CJK font and a colour emoji font: without them Chinese, Japanese and Korean text and emoji
# are boxes in every screenshot (browser and simulated phones) and OCR cannot read them
if ! command -v fc-list >/dev/null 2>&1 || [ -z "$(fc-list :lang=zh 2>/dev/null | head -1)" ]; then
  nice_debs+=(fonts-wqy-zenhei)
fi
if ! command -v fc-list >/dev/null 2>&1 || ! fc-list 2>/dev/null | grep -qi "emoji"; then
  nice_debs+=(fonts-noto-color-emoji)
fi
# Debian's adb: `adb devices` against real phones or farm's simulated adb server
command -v adb >/dev/null 2>&1 || want_debs+=(adb)
if [ "${FARM_NEED_REDIS:-1}" = 1 ] && ! command -v redis-server >/dev/null 2>&1; then
  want_debs+=(redis-server)
fi
# Prometheus + promtool and a Pushgateway: the metrics integration tests use real ones
command -v prometheus >/dev/null 2>&1 && command -v promtool >/dev/null 2>&1 \
  || want_debs+=(prometheus)
command -v prometheus-pushgateway >/dev/null 2>&1 || want_debs+=(prometheus-pushgateway)
# an Alertmanager (+ amtool) for the deploy tests that deliver an alert; they skip without it
command -v prometheus-alertmanager >/dev/null 2>&1 && command -v amtool >/dev/null 2>&1 \
  || nice_debs+=(prometheus-alertmanager)
all_debs=("${want_debs[@]}" "${nice_debs[@]}")
if [ ${#all_debs[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "bootstrap: installing Debian packages: ${all_debs[*]}"
    apt-get update -qq
    if [ ${#want_debs[@]} -gt 0 ]; then
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${want_debs[@]}" >/dev/null
    fi
    if [ ${#nice_debs[@]} -gt 0 ]; then
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${nice_debs[@]}" >/dev/null \
        || echo "bootstrap: could not install ${nice_debs[*]} (optional: farm falls back" \
             "to chromium; the Alertmanager tests skip; without the fonts CJK text and" \
             "emoji are boxes in screenshots)" >&2
    fi
  else
    echo "bootstrap: missing ${all_debs[*]} and cannot apt-get (not root?)" >&2
  fi
fi

PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  echo "bootstrap: creating .venv"
  "$PY" -m venv .venv
fi
stamp=.venv/.farm-installed
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
  echo "bootstrap: installing farm and its test tools into .venv (quiet: 2-3 min when new)"
  .venv/bin/pip install -q --disable-pip-version-check -e '.[test]' 2>&1 \
    | grep -v -E "^WARNING: Location .* is ignored" || true
  .venv/bin/python -c "import farm, playwright, PIL" 
  touch "$stamp"
fi
# farm's own bytecode, written now: farm is installed editable, and a shell that sets
# PYTHONDONTWRITEBYTECODE (CI images often do) would otherwise have every farm process (each
# worker, simulator and `farm run` the tests start) compile its ~80 modules again, ~0.15 s a
# start. Up-to-date files are skipped; a changed source is still recompiled on import.
.venv/bin/python -m compileall -q farm tests/support >/dev/null || true

# Playwright's own browser download only where no system Chromium exists.
if ! [ -x /usr/bin/chromium ] && ! command -v chromium >/dev/null 2>&1 \
   && [ -z "${FARM_CHROMIUM_PATH:-}" ]; then
  echo "bootstrap: no system Chromium; trying 'playwright install chromium'"
  .venv/bin/python -m playwright install chromium || echo "bootstrap: playwright install failed" >&2
fi
