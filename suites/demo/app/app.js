/* Farm Shop: a tiny offline demo shop for the farm demo suite.
 *
 * No build step, no network. State lives in localStorage:
 *   user   -> the signed-in username (string)
 *   cart   -> JSON array of {id, qty} lines
 *   orders -> JSON array of placed orders {number, name, city, lines, total, placedAt}
 *
 * Conditional messages ("Invalid username or password", "No products found",
 * "Your cart is empty", "Order placed", ...) are only put into the DOM when
 * they are shown, so hidden text never matches a text assertion.
 */
(function () {
  'use strict';

  var VALID_USER = 'demo';
  var VALID_PASSWORD = 'farm-demo-pass';

  var ART = {
    mug:
      '<rect x="38" y="30" width="36" height="40" rx="5" fill="#fff" opacity=".95"/>' +
      '<path d="M74 38h6a9 9 0 0 1 0 18h-6" fill="none" stroke="#fff" stroke-width="5" opacity=".95"/>' +
      '<path d="M46 22c0-5 5-5 5-10M58 22c0-5 5-5 5-10" fill="none" stroke="#fff" stroke-width="3" stroke-linecap="round" opacity=".7"/>',
    teapot:
      '<ellipse cx="60" cy="52" rx="22" ry="18" fill="#fff" opacity=".95"/>' +
      '<path d="M38 50 24 36" stroke="#fff" stroke-width="6" stroke-linecap="round" opacity=".95"/>' +
      '<path d="M82 44a9 9 0 0 1 0 16" fill="none" stroke="#fff" stroke-width="5" opacity=".95"/>' +
      '<rect x="50" y="28" width="20" height="7" rx="3" fill="#fff" opacity=".95"/>' +
      '<circle cx="60" cy="25" r="3.5" fill="#fff" opacity=".95"/>',
    notebook:
      '<rect x="40" y="18" width="42" height="56" rx="4" fill="#fff" opacity=".95"/>' +
      '<rect x="40" y="18" width="8" height="56" rx="3" fill="#000" opacity=".15"/>' +
      '<path d="M55 34h20M55 44h20M55 54h14" stroke="#000" stroke-width="3" stroke-linecap="round" opacity=".15"/>',
    lamp:
      '<rect x="36" y="70" width="34" height="6" rx="3" fill="#fff" opacity=".95"/>' +
      '<path d="M53 70 44 46 66 30" fill="none" stroke="#fff" stroke-width="5" stroke-linecap="round" stroke-linejoin="round" opacity=".95"/>' +
      '<path d="M60 22 86 30 76 46Z" fill="#fff" opacity=".95"/>' +
      '<circle cx="80" cy="44" r="5" fill="#fff6c2" opacity=".9"/>',
    socks:
      '<path d="M44 16h16v34l12 10a8 8 0 0 1-10 13L46 60a6 6 0 0 1-2-5Z" fill="#fff" opacity=".95"/>' +
      '<path d="M44 24h16" stroke="#000" stroke-width="4" opacity=".12"/>' +
      '<path d="M64 20h14v30l10 9a7 7 0 0 1-9 11L66 59a6 6 0 0 1-2-5Z" fill="#fff" opacity=".6"/>',
    tote:
      '<path d="M50 34v-6a10 10 0 0 1 20 0v6" fill="none" stroke="#fff" stroke-width="4" opacity=".95"/>' +
      '<path d="M36 34h48l-4 42H40Z" fill="#fff" opacity=".95"/>' +
      '<path d="M48 50h24" stroke="#000" stroke-width="3" stroke-linecap="round" opacity=".12"/>',
    bottle:
      '<rect x="53" y="14" width="14" height="8" rx="2" fill="#fff" opacity=".95"/>' +
      '<path d="M52 24h16l4 8v40a4 4 0 0 1-4 4H52a4 4 0 0 1-4-4V32Z" fill="#fff" opacity=".95"/>' +
      '<rect x="48" y="42" width="24" height="14" fill="#000" opacity=".1"/>',
    cactus:
      '<path d="M40 58h40l-5 20H45Z" fill="#fff" opacity=".95"/>' +
      '<rect x="54" y="22" width="12" height="36" rx="6" fill="#fff" opacity=".8"/>' +
      '<path d="M54 44h-6a4 4 0 0 1-4-4v-8" fill="none" stroke="#fff" stroke-width="7" stroke-linecap="round" opacity=".8"/>' +
      '<path d="M66 38h6a4 4 0 0 0 4-4v-6" fill="none" stroke="#fff" stroke-width="7" stroke-linecap="round" opacity=".8"/>'
  };

  var PRODUCTS = [
    { id: 'blue-mug', name: 'Blue Mug', price: 12.5, category: 'Kitchen', art: 'mug', color: '#3b82f6',
      description: 'A sturdy stoneware cup that holds 350 ml of coffee or tea. Dishwasher safe.' },
    { id: 'red-teapot', name: 'Red Teapot', price: 34, category: 'Kitchen', art: 'teapot', color: '#ef4444',
      description: 'A glazed one-litre pot with a removable steel infuser for loose leaves.' },
    { id: 'green-notebook', name: 'Green Notebook', price: 8.75, category: 'Stationery', art: 'notebook', color: '#16a34a',
      description: 'A5, 120 dotted pages of thick paper, lay-flat binding and an elastic band.' },
    { id: 'desk-lamp', name: 'Desk Lamp', price: 45.99, category: 'Home', art: 'lamp', color: '#f59e0b',
      description: 'An adjustable LED light with a warm glow and a weighted base.' },
    { id: 'wool-socks', name: 'Wool Socks', price: 9.99, category: 'Apparel', art: 'socks', color: '#8b5cf6',
      description: 'Soft merino blend, cushioned sole. One pair, sizes 38 to 45.' },
    { id: 'canvas-tote', name: 'Canvas Tote', price: 18, category: 'Bags', art: 'tote', color: '#a16207',
      description: 'Heavy cotton shopper with long handles and an inside pocket.' },
    { id: 'steel-bottle', name: 'Steel Bottle', price: 22.5, category: 'Outdoor', art: 'bottle', color: '#64748b',
      description: 'Insulated 750 ml flask that keeps drinks cold for 24 hours.' },
    { id: 'potted-cactus', name: 'Potted Cactus', price: 14.25, category: 'Garden', art: 'cactus', color: '#0d9488',
      description: 'A small, hard-to-kill succulent in a terracotta planter.' }
  ];

  // ---------------------------------------------------------------- helpers

  function $(id) { return document.getElementById(id); }

  function money(n) { return '$' + (Math.round(n * 100) / 100).toFixed(2); }

  function findProduct(id) {
    for (var i = 0; i < PRODUCTS.length; i++) {
      if (PRODUCTS[i].id === id) return PRODUCTS[i];
    }
    return null;
  }

  function readJSON(key, fallback) {
    try {
      var raw = localStorage.getItem(key);
      return raw ? JSON.parse(raw) : fallback;
    } catch (e) {
      return fallback;
    }
  }

  function getUser() { return localStorage.getItem('user') || ''; }

  function getCart() {
    var cart = readJSON('cart', []);
    if (!Array.isArray(cart)) return [];
    return cart.filter(function (line) {
      return line && findProduct(line.id) && Number(line.qty) > 0;
    }).map(function (line) {
      return { id: line.id, qty: Math.floor(Number(line.qty)) };
    });
  }

  function saveCart(cart) { localStorage.setItem('cart', JSON.stringify(cart)); }

  function cartCount(cart) {
    return (cart || getCart()).reduce(function (n, line) { return n + line.qty; }, 0);
  }

  function cartTotal(cart) {
    return cart.reduce(function (sum, line) { return sum + findProduct(line.id).price * line.qty; }, 0);
  }

  function artSvg(product, cls) {
    return '<svg class="' + cls + '" viewBox="0 0 120 90" focusable="false" aria-hidden="true"' +
      ' style="background-color:' + product.color + '">' + ART[product.art] + '</svg>';
  }

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function show(node, text) {
    if (text !== undefined) node.textContent = text;
    node.hidden = false;
  }

  function hide(node) {
    node.hidden = true;
    node.textContent = '';
  }

  // ------------------------------------------------------------ shared header

  // Logged-out visitors go to the login page. The redirect waits for the load
  // event so the protected page's own request completes instead of being
  // aborted (an aborted request would show up as a failed request in test runs).
  function requireLogin() {
    if (getUser()) return true;
    document.body.hidden = true;
    var go = function () { location.replace('index.html'); };
    if (document.readyState === 'complete') go();
    else window.addEventListener('load', go);
    return false;
  }

  function renderHeader() {
    var welcome = $('welcome');
    if (welcome) welcome.textContent = 'Welcome back, ' + getUser();
    updateCartLink();
    var logout = $('logout-button');
    if (logout) {
      logout.addEventListener('click', function () {
        localStorage.removeItem('user');
        location.href = 'index.html';
      });
    }
  }

  function updateCartLink() {
    var link = $('cart-link');
    if (link) link.textContent = 'Cart (' + cartCount() + ')';
  }

  // -------------------------------------------------------------------- pages

  function initLogin() {
    var form = $('login-form');
    var error = $('login-error');
    form.addEventListener('submit', function (event) {
      event.preventDefault();
      var username = $('username').value.trim();
      var password = $('password').value;
      if (!username || !password) {
        show(error, 'Please enter your username and password');
        return;
      }
      if (username !== VALID_USER || password !== VALID_PASSWORD) {
        show(error, 'Invalid username or password');
        return;
      }
      hide(error);
      localStorage.setItem('user', username);
      location.href = 'products.html';
    });
    ['username', 'password'].forEach(function (id) {
      $(id).addEventListener('input', function () { hide(error); });
    });
  }

  function initProducts() {
    if (!requireLogin()) return false;
    renderHeader();
    var grid = $('product-grid');
    var noResults = $('no-results');
    var input = $('search-input');

    PRODUCTS.forEach(function (p) {
      var card = el('li', { 'class': 'card', 'data-testid': 'product-card-' + p.id, 'data-product-id': p.id });
      var art = el('div', { 'class': 'product-art', 'aria-hidden': 'true' });
      art.innerHTML = artSvg(p, 'art-svg');
      var body = el('div', { 'class': 'card-body' });
      var title = el('h2', { 'class': 'card-title' });
      title.appendChild(el('a', {
        href: 'product.html?id=' + encodeURIComponent(p.id),
        id: 'product-link-' + p.id,
        'data-testid': 'product-link-' + p.id,
        'class': 'product-link'
      }, p.name));
      var meta = el('div', { 'class': 'card-meta' });
      meta.appendChild(el('span', { 'class': 'category' }, p.category));
      meta.appendChild(el('span', { 'class': 'price', 'data-testid': 'product-price-' + p.id }, money(p.price)));
      body.appendChild(title);
      body.appendChild(meta);
      card.appendChild(art);
      card.appendChild(body);
      grid.appendChild(card);
    });

    function filter() {
      var q = input.value.trim().toLowerCase();
      var visible = 0;
      Array.prototype.forEach.call(grid.children, function (card) {
        var p = findProduct(card.getAttribute('data-product-id'));
        var match = !q || p.name.toLowerCase().indexOf(q) !== -1;
        card.hidden = !match;
        if (match) visible++;
      });
      if (visible === 0) show(noResults, 'No products found');
      else hide(noResults);
      grid.hidden = visible === 0;
    }

    input.addEventListener('input', filter);
    input.addEventListener('search', filter);
    $('search-form').addEventListener('submit', function (event) {
      event.preventDefault();
      filter();
    });
    filter();
  }

  function initProduct() {
    if (!requireLogin()) return false;
    renderHeader();
    var id = new URLSearchParams(location.search).get('id');
    var p = findProduct(id);
    var form = $('add-form');
    var message = $('add-message');
    if (!p) {
      $('product-name').textContent = 'Product not found';
      $('product-description').textContent = 'This product does not exist. Pick one from the list.';
      $('product-art').hidden = true;
      return;
    }
    document.title = p.name + ' | Farm Shop';
    $('product-art').innerHTML = artSvg(p, 'art-svg');
    $('product-category').textContent = p.category;
    $('product-name').textContent = p.name;
    $('product-price').textContent = money(p.price);
    $('product-description').textContent = p.description;
    form.hidden = false;

    var qtyInput = $('quantity');
    qtyInput.addEventListener('input', function () { hide(message); });
    form.addEventListener('submit', function (event) {
      event.preventDefault();
      var raw = qtyInput.value.trim();
      var qty = Number(raw);
      message.classList.remove('error');
      if (!/^\d+$/.test(raw) || qty < 1 || qty > 99) {
        message.classList.add('error');
        show(message, 'Enter a quantity from 1 to 99');
        return;
      }
      var cart = getCart();
      var line = cart.filter(function (l) { return l.id === p.id; })[0];
      if (line) line.qty = Math.min(99, line.qty + qty);
      else cart.push({ id: p.id, qty: qty });
      saveCart(cart);
      updateCartLink();
      show(message, 'Added to cart');
    });
  }

  function initCart() {
    if (!requireLogin()) return false;
    renderHeader();
    var table = $('cart-table');
    var body = $('cart-lines');
    var empty = $('empty-cart');
    var total = $('cart-total');
    var checkout = $('checkout-button');

    checkout.addEventListener('click', function () {
      if (getCart().length) location.href = 'checkout.html';
    });

    function render() {
      var cart = getCart();
      body.textContent = '';
      updateCartLink();
      if (!cart.length) {
        table.hidden = true;
        hide(total);
        checkout.hidden = true;
        checkout.disabled = true;
        show(empty, 'Your cart is empty');
        return;
      }
      hide(empty);
      cart.forEach(function (line) {
        var p = findProduct(line.id);
        var tr = el('tr', { 'data-testid': 'cart-line-' + p.id });
        var nameCell = el('td');
        var nameWrap = el('div', { 'class': 'line-name' });
        var thumb = el('span', { 'class': 'thumb', 'aria-hidden': 'true' });
        thumb.innerHTML = artSvg(p, 'art-svg');
        nameWrap.appendChild(thumb);
        nameWrap.appendChild(el('span', { 'data-testid': 'cart-line-name-' + p.id }, p.name));
        nameCell.appendChild(nameWrap);
        tr.appendChild(nameCell);
        tr.appendChild(el('td', { 'class': 'num', 'data-testid': 'cart-line-qty-' + p.id }, String(line.qty)));
        tr.appendChild(el('td', { 'class': 'num', 'data-testid': 'cart-line-total-' + p.id }, money(p.price * line.qty)));
        var actions = el('td', { 'class': 'actions' });
        var remove = el('button', {
          type: 'button',
          'class': 'btn btn-link',
          id: 'remove-' + p.id,
          'data-testid': 'remove-' + p.id,
          'aria-label': 'Remove ' + p.name
        }, 'Remove');
        remove.addEventListener('click', function () {
          saveCart(getCart().filter(function (l) { return l.id !== p.id; }));
          render();
        });
        actions.appendChild(remove);
        tr.appendChild(actions);
        body.appendChild(tr);
      });
      table.hidden = false;
      show(total, 'Total: ' + money(cartTotal(cart)));
      checkout.hidden = false;
      checkout.disabled = false;
    }

    render();
  }

  function initCheckout() {
    if (!requireLogin()) return false;
    renderHeader();
    var layout = $('checkout-layout');
    var emptySection = $('checkout-empty');
    var confirmation = $('order-confirmation');
    var form = $('checkout-form');
    var error = $('checkout-error');
    var cart = getCart();

    function backLink() {
      return el('a', { href: 'products.html', id: 'continue-link', 'data-testid': 'continue-link' }, 'Continue shopping');
    }

    if (!cart.length) {
      emptySection.appendChild(el('p', { 'class': 'empty', id: 'checkout-empty-message' }, 'Your cart is empty'));
      emptySection.appendChild(backLink());
      emptySection.hidden = false;
      return;
    }

    var lines = $('summary-lines');
    cart.forEach(function (line) {
      var p = findProduct(line.id);
      var li = el('li', { 'data-testid': 'summary-line-' + p.id });
      li.appendChild(el('span', {}, p.name + ' \u00d7 ' + line.qty));
      li.appendChild(el('span', { 'class': 'num' }, money(p.price * line.qty)));
      lines.appendChild(li);
    });
    $('summary-total').textContent = 'Total: ' + money(cartTotal(cart));
    layout.hidden = false;

    form.addEventListener('input', function () { hide(error); });
    form.addEventListener('submit', function (event) {
      event.preventDefault();
      var fields = {
        name: $('full-name').value.trim(),
        address: $('address').value.trim(),
        city: $('city').value.trim(),
        card: $('card-number').value.replace(/[\s-]/g, '')
      };
      if (!fields.name || !fields.address || !fields.city || !fields.card) {
        show(error, 'Please fill in all fields');
        return;
      }
      if (!/^\d{16}$/.test(fields.card)) {
        show(error, 'Card number must be 16 digits');
        return;
      }
      hide(error);
      var current = getCart();
      var number = 'FS-' + String(Math.floor(100000 + Math.random() * 900000));
      var orders = readJSON('orders', []);
      if (!Array.isArray(orders)) orders = [];
      orders.push({
        number: number,
        name: fields.name,
        city: fields.city,
        cardLast4: fields.card.slice(-4),
        lines: current,
        total: Math.round(cartTotal(current) * 100) / 100,
        placedAt: new Date().toISOString()
      });
      localStorage.setItem('orders', JSON.stringify(orders));
      localStorage.setItem('lastOrder', number);
      saveCart([]);
      updateCartLink();

      layout.hidden = true;
      form.reset();
      confirmation.appendChild(el('div', { 'class': 'check', 'aria-hidden': 'true' }, '\u2713'));
      confirmation.appendChild(el('h2', { id: 'order-placed', 'data-testid': 'order-placed' }, 'Order placed'));
      var numberLine = el('p', { id: 'order-number', 'data-testid': 'order-number' }, 'Order number: ');
      numberLine.appendChild(el('strong', { id: 'order-number-value', 'data-testid': 'order-number-value' }, number));
      confirmation.appendChild(numberLine);
      confirmation.appendChild(el('p', { 'class': 'muted' },
        'Thank you, ' + fields.name + '. Your items ship to ' + fields.city + ' soon.'));
      confirmation.appendChild(backLink());
      confirmation.hidden = false;
      document.title = 'Order placed | Farm Shop';
    });
  }

  var PAGES = {
    login: initLogin,
    products: initProducts,
    product: initProduct,
    cart: initCart,
    checkout: initCheckout
  };

  // Pages ship with their header and main hidden; they are revealed only once the page
  // is fully rendered and wired up. So any text a test can see means the page is ready,
  // and nothing can be clicked before its handlers exist.
  function reveal() {
    var parts = document.querySelectorAll('body > header, body > main');
    for (var i = 0; i < parts.length; i++) parts[i].hidden = false;
  }

  var init = PAGES[document.body.getAttribute('data-page')];
  if (init && init() !== false) reveal();
})();
