// Midscene's `javascript:` step (farm/devices/web/javascript.py).  __PRODUCER__ is
// replaced by an async function yielding the user's value.  Racing it against an in-page timer
// keeps a hung promise from blocking the device thread; a busy loop still blocks, and then the
// runner's watchdog kill()s the device.  The value comes back as a JSON string ({json}), as
// String(value) when it is not JSON-able ({str}), or as {error} / {timeout}.
async ([ms, code]) => {
  const produce = __PRODUCER__;
  const TIMEOUT = {};
  let timer;
  const expired = new Promise((_, reject) => { timer = setTimeout(() => reject(TIMEOUT), ms); });
  const run = async () => {
    let v = await produce();
    if (typeof v === 'function') v = await v();   // page.evaluate("() => ...") semantics
    return v;
  };
  let v;
  try {
    v = await Promise.race([run(), expired]);
  } catch (e) {
    if (e === TIMEOUT) return {timeout: true};
    if (e instanceof Error) return {error: (e.name && e.name !== 'Error' ? e.name + ': ' : '') + e.message};
    return {error: String(e)};
  } finally { clearTimeout(timer); }
  if (v === undefined) return {json: 'null'};
  if (typeof Node !== 'undefined' && v instanceof Node) return {str: String(v)};
  try {
    const j = JSON.stringify(v);
    return j === undefined ? {str: String(v)} : {json: j};
  } catch (e) { return {str: String(v)}; }
}
