// Midscene's `javascript:` step (farm/devices/web/javascript.py).  Called with ``stringify``
// (scripts.py's STRINGIFY_JS) and ``produce``, an async function of the suite's source yielding
// the user's value, made outside this closure (in the page's global scope): the user's code
// sees the page's own globals, never this function's names (`code.value` of an <input
// id="code">, the page's own `run()`).  Racing it against an in-page timer keeps a hung
// promise from blocking the device thread; a busy loop still blocks, and then the runner's
// watchdog kill()s the device.  The value comes back as a JSON string ({json}), as
// String(value) when it is not JSON-able ({str}), or as {error} / {timeout}.
(stringify, produce) => async ([ms, code]) => {
  const TIMEOUT = {};
  let timer;
  const expired = new Promise((_, reject) => { timer = setTimeout(() => reject(TIMEOUT), ms); });
  const run = async () => {
    let v = await produce(code);
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
    const j = stringify(v);
    return j === undefined ? {str: String(v)} : {json: j};
  } catch (e) { return {str: String(v)}; }
}
