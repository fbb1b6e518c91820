// Midscene's `javascript:` step (farm/devices/web/javascript.py).  Called with ``stringify``
// (scripts.py's STRINGIFY_JS) and ``produce``, an async function of the suite's source yielding
// the user's value, made outside this closure (in the page's global scope): the user's code
// sees the page's own globals, never this function's names (`code.value` of an <input
// id="code">, the page's own `run()`).  Racing it against an in-page timer keeps a hung
// promise from blocking the device thread; a busy loop holds this timer too, and is stopped
// from Python (javascript.py's Stopper: Runtime.terminateExecution), this function's `finally`
// then never run: the timer's rejection is caught up front, or the page would report it as an
// error of its own.  The value comes back as a JSON string ({json}), as a string
// when it is no JSON value at all ({str}), or as {error} / {timeout}; what JSON cannot hold
// (a BigInt, a DOM node, a reference back to an object holding it) is kept as a string and
// said in {notes}, never String(value)'s '[object Object]'.
(stringify, produce) => async ([ms, code]) => {
  const TIMEOUT = {};
  let timer;
  const expired = new Promise((_, reject) => { timer = setTimeout(() => reject(TIMEOUT), ms); });
  expired.catch(() => {});
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
  const found = {};     // kind -> [first one, how many]
  const seen = (kind, shown) => { found[kind] = found[kind] ? [found[kind][0], found[kind][1] + 1] : [shown, 1]; };
  const tag = (n) => {
    if (n.nodeType === 1) {
      const open = n.outerHTML.slice(0, n.outerHTML.indexOf('>') + 1) || '<' + n.localName + '>';
      return open.length > 120 ? open.slice(0, 117) + '…>' : open;
    }
    return n.nodeType === 3 ? n.textContent.slice(0, 120) : n.nodeName;
  };
  const up = [];        // the objects holding the value being written (a loop back to one)
  function keep(key, value) {
    while (up.length && up[up.length - 1] !== this) up.pop();
    if (typeof value === 'bigint') { seen('bigint', value.toString()); return value.toString(); }
    if (typeof Node !== 'undefined' && value instanceof Node) {
      const shown = tag(value);
      seen(value.nodeType === 1 ? 'element' : 'node', shown);
      return shown;
    }
    if (value !== null && typeof value === 'object') {
      if (up.includes(value)) { seen('circular', key); return '[circular]'; }
      up.push(value);
    }
    return value;
  }
  let j;
  try { j = stringify(v, keep); } catch (e) {
    return {str: String(v), notes: [{kind: 'unwritable', first: e.message, count: 1}]};
  }
  const notes = Object.entries(found).map(([kind, [first, count]]) => ({kind, first, count}));
  return j === undefined ? {str: String(v), notes: [{kind: typeof v, first: String(v), count: 1}]}
                         : {json: j, notes};
}
