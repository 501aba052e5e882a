// mintprep mint page: gallery from chunk files beside the page, live contract reads, mint through an EIP-1193 wallet.
// Collection text only ever reaches the DOM through textContent (see el()); never through innerHTML.
'use strict';
(() => {
  const cfg = JSON.parse(document.getElementById('mintprep-config').textContent);
  const $ = (id) => document.getElementById(id);
  const GALLERY_BATCH = 48;
  const RECEIPT_POLL_MS = 1000;

  function el(tag, className, content) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (content !== undefined) node.textContent = String(content);
    return node;
  }

  // ---------- ABI codec over the fragments the build wrote (cfg.mint.functions): static and dynamic types ----------
  function encodeWord(type, value) {
    if (type === 'address') return value.toLowerCase().replace(/^0x/, '').padStart(64, '0');
    if (/^bytes\d+$/.test(type)) return value.toLowerCase().replace(/^0x/, '').padEnd(64, '0');
    return BigInt(value).toString(16).padStart(64, '0');
  }

  function decodeWord(type, hex) {
    if (type === 'address') return '0x' + hex.slice(24);
    if (type === 'bool') return BigInt('0x' + hex) !== 0n;
    if (/^u?int\d*$/.test(type)) {
      const value = BigInt('0x' + hex);
      const bits = Number(type.replace(/^u?int/, '') || 256);
      return type.startsWith('int') && value >= 1n << BigInt(bits - 1) ? value - (1n << 256n) : value;
    }
    return '0x' + hex;
  }

  const arrayOf = (p) => {
    const m = p.type.match(/^(.*)\[(\d*)\]$/);
    return m && { inner: { ...p, type: m[1] }, length: m[2] === '' ? null : Number(m[2]) };
  };
  function dynamic(p) {
    const array = arrayOf(p);
    if (array) return array.length === null || dynamic(array.inner);
    return p.type === 'tuple' ? p.components.some(dynamic) : p.type === 'string' || p.type === 'bytes';
  }
  function headBytes(p) {
    const array = arrayOf(p);
    if (dynamic(p)) return 32;
    if (array) return array.length * headBytes(array.inner);
    return p.type === 'tuple' ? p.components.reduce((n, c) => n + headBytes(c), 0) : 32;
  }
  const hexOfText = (text) => Array.from(new TextEncoder().encode(text), (b) => b.toString(16).padStart(2, '0')).join('');

  // Head words in order; each dynamic value gets an offset there and its encoding in the tail.
  function encodeAll(params, values) {
    let head = '';
    let tail = '';
    const size = params.reduce((n, p) => n + headBytes(p), 0);
    params.forEach((p, i) => {
      const encoded = encodeOne(p, values[i]);
      if (dynamic(p)) { head += encodeWord('uint256', BigInt(size + tail.length / 2)); tail += encoded; } else head += encoded;
    });
    return head + tail;
  }

  function encodeOne(p, value) {
    const array = arrayOf(p);
    if (array) {
      const body = encodeAll(value.map(() => array.inner), value);
      return array.length === null ? encodeWord('uint256', BigInt(value.length)) + body : body;
    }
    if (p.type === 'tuple') return encodeAll(p.components, value);
    if (p.type === 'string' || p.type === 'bytes') {
      const hex = p.type === 'string' ? hexOfText(value) : value.replace(/^0x/, '');
      return encodeWord('uint256', BigInt(hex.length / 2)) + hex.padEnd(Math.ceil(hex.length / 64) * 64, '0');
    }
    return encodeWord(p.type, value);
  }

  const wordAt = (hex, at) => hex.slice(at * 2, at * 2 + 64);
  function decodeAll(params, hex, base = 0) {
    let at = base;
    return params.map((p) => {
      const where = dynamic(p) ? base + Number(BigInt('0x' + (wordAt(hex, at) || '0'))) : at;
      at += headBytes(p);
      return decodeOne(p, hex, where);
    });
  }

  function decodeOne(p, hex, at) {
    const array = arrayOf(p);
    if (array) {
      const length = array.length ?? Number(BigInt('0x' + wordAt(hex, at)));
      return decodeAll(Array(length).fill(array.inner), hex, array.length === null ? at + 32 : at);
    }
    if (p.type === 'tuple') return decodeAll(p.components, hex, at);
    if (p.type === 'string' || p.type === 'bytes') {
      const body = hex.slice((at + 32) * 2, (at + 32 + Number(BigInt('0x' + wordAt(hex, at)))) * 2);
      if (p.type === 'bytes') return '0x' + body;
      return new TextDecoder().decode(new Uint8Array((body.match(/.{2}/g) || []).map((b) => parseInt(b, 16))));
    }
    return decodeWord(p.type, wordAt(hex, at).padEnd(64, '0'));
  }

  const callData = (signature, args) => {
    const fn = cfg.mint.functions[signature];
    return fn.selector + encodeAll(fn.inputs, args);
  };

  // ---------- the mint description: expressions over what was read (see mintprep/page/mint_call.py) ----------
  function evaluate(expr, env) {
    if (expr === null || expr === undefined) return null;
    const [op, ...rest] = expr;
    const num = (e) => BigInt(evaluate(e, env));
    switch (op) {
      case 'lit': return rest[0];
      case 'get': return rest.slice(1).reduce((value, key) => value[key], env[rest[0]]);
      case 'add': return num(rest[0]) + num(rest[1]);
      case 'mul': return num(rest[0]) * num(rest[1]);
      case 'eq': return String(evaluate(rest[0], env)).toLowerCase() === String(evaluate(rest[1], env)).toLowerCase();
      case 'if': return evaluate(rest[0], env) ? evaluate(rest[1], env) : evaluate(rest[2], env);
      case 'tuple': return rest.map((e) => evaluate(e, env));
      default: throw new Error(`The page's mint description has an unknown expression: ${op}`);
    }
  }

  // Each read in order (a later one may use an earlier answer), its answers kept in `env` under its name.
  async function readInto(env, reads) {
    for (const r of reads) {
      const fn = cfg.mint.functions[r.call];
      const result = await rpc('eth_call', [{ to: cfg.contract, data: callData(r.call, r.args.map((a) => evaluate(a, env))) }, 'latest']);
      const answers = decodeAll(fn.outputs, (result || '0x').replace(/^0x/, ''));
      env[r.as] = answers.length === 1 ? answers[0] : answers;
    }
    return env;
  }

  // Solidity's own: require(..., "text") and a failed assert or arithmetic check.
  const BUILTIN_ERRORS = { '0x08c379a0': { name: 'Error', inputs: [{ type: 'string' }] },
    '0x4e487b71': { name: 'Panic', inputs: [{ type: 'uint256' }] } };

  // Readable sentences for the drop's own errors; any other error still decodes to Name(arg: value).
  const REASONS = {
    ZeroQuantity: () => 'Choose at least one token.',
    SoldOut: (a) => (a.remaining === 0n ? 'Sold out.' : `Sold out: only ${a.remaining} left.`),
    WalletLimit: (a) => (a.allowed === 0n ? 'Over the wallet limit: this wallet cannot mint more.'
      : `Over the wallet limit: this wallet can mint ${a.allowed} more.`),
    WrongPayment: (a) => `Wrong price: the contract expects ${formatEth(a.expected)} ETH, ` +
      `the page offered ${formatEth(a.sent)} ETH. The price has been re-read; try again.`,
    PhaseSoldOut: (a) => (a.remaining === 0n ? 'This phase has sold its share.' : `This phase has only ${a.remaining} left.`),
    NotOnAllowlist: () => 'This wallet is not on the allowlist for this phase.',
    PhaseNotStarted: () => 'This phase has not opened yet.',
    PhaseEnded: () => 'This phase has ended.',
    EnforcedPause: () => 'Minting is paused.',
  };

  function decodeRevert(data) {
    if (!data || data.length < 10) return { text: 'The transaction would revert (no reason given).', raw: '' };
    const sel = data.slice(0, 10).toLowerCase();
    const error = BUILTIN_ERRORS[sel] || cfg.mint.errors[sel];
    if (!error) return { text: 'The transaction would revert.', raw: data };
    const values = decodeAll(error.inputs, data.slice(10));
    if (error.name === 'Error') return { text: `Reverted: ${values[0]}`, raw: `Error("${values[0]}")` };
    if (error.name === 'Panic') return { text: 'The contract panicked.', raw: `Panic(0x${values[0].toString(16)})` };
    const args = {};
    const shown = error.inputs.map((input, i) => {
      const value = values[i];
      args[input.name || String(i)] = value;
      return input.name ? `${input.name}: ${value}` : String(value);
    });
    const raw = `${error.name}(${shown.join(', ')})`;
    return { text: REASONS[error.name] ? REASONS[error.name](args) : error.text || `Reverted with ${error.name}.`, raw };
  }

  // ---------- numbers ----------
  function formatEth(wei) {
    const whole = wei / 10n ** 18n;
    const frac = (wei % 10n ** 18n).toString().padStart(18, '0').replace(/0+$/, '');
    return frac ? `${whole}.${frac}` : String(whole);
  }

  // ---------- JSON-RPC to the page's own RPC (reads, simulation, receipts) ----------
  let rpcId = 0;
  async function rpc(method, params) {
    const response = await fetch(cfg.chain.rpc_url, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++rpcId, method, params }),
    });
    if (!response.ok) throw new Error(`RPC answered HTTP ${response.status}`);
    const reply = await response.json();
    if (reply.error) throw Object.assign(new Error(reply.error.message), { code: reply.error.code, data: reply.error.data });
    return reply.result;
  }


  // ---------- page state ----------
  const state = {
    wallet: null, account: null, chain: null, busy: false, price: null, cap: 0, capReason: '',
    phase: null, proof: [], listed: null, clock: null, timer: null,
  };
  const NEVER = (1n << 64n) - 1n;

  function setStatus(message, kind = 'info', link = null, detail = null) {
    const status = $('status');
    status.replaceChildren(el('span', null, message));
    status.dataset.kind = kind;
    if (link) {
      const a = el('a', null, link.label);
      a.href = link.href; a.target = '_blank'; a.rel = 'noopener noreferrer';
      status.append(' ', a);
    }
    if (detail) status.append(' ', el('code', null, detail));
  }

  function txLink(hash) {
    return cfg.chain.explorer ? { href: `${cfg.chain.explorer}/tx/${hash}`, label: 'View transaction' } : null;
  }

  const errorCode = (err) => err && (err.code ?? err.data?.originalError?.code ?? err.error?.code);
  const isRejection = (err) => errorCode(err) === 4001;

  function revertData(err) {
    // Node answers put the bytes in error.data; some wallets nest them one level deeper.
    for (const candidate of [err && err.data, err && err.data && err.data.data, err && err.error && err.error.data]) {
      if (typeof candidate === 'string' && candidate.startsWith('0x')) return candidate;
    }
    return null;
  }

  // Chain time, not the visitor's clock: phases open by block timestamp (and a test chain may run ahead).
  function chainNow() {
    return state.clock.chain + BigInt(Math.floor((Date.now() - state.clock.local) / 1000));
  }

  function formatWhen(seconds) {
    return new Date(Number(seconds) * 1000).toISOString().replace('.000Z', ' UTC').replace('T', ' ');
  }

  function countdown(seconds) {
    const s = Number(seconds);
    const d = Math.floor(s / 86400), h = Math.floor(s / 3600) % 24, m = Math.floor(s / 60) % 60, r = s % 60;
    return (d ? `${d}d ` : '') + `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}:${String(r).padStart(2, '0')}`;
  }

  const phaseName = (i) => (cfg.phases[i] && cfg.phases[i].name) || cfg.mint.phases.name || `Phase ${i + 1}`;
  // A cap this large is no cap (thirdweb's "unlimited" is 2^256 - 1); null: the family has none.
  const capOf = (value) => (value === null || value === undefined || BigInt(value) >= 1n << 128n ? null : BigInt(value));

  // The sale's state from the chain: which phase is open now, else the next to open, sold out, paused.
  async function readSale() {
    const m = cfg.mint;
    const [env, block] = await Promise.all([readInto({}, m.reads), rpc('eth_getBlockByNumber', ['latest', false])]);
    state.clock = { chain: BigInt(block.timestamp), local: Date.now() };
    const count = Number(evaluate(m.phases.count, env));
    const phases = await Promise.all([...Array(count).keys()].map(async (i) => {
      const phaseEnv = await readInto({ ...env, index: i }, m.phases.reads);
      const at = (key) => evaluate(m.phases[key], phaseEnv);
      const root = at('root');
      return { id: i, env: phaseEnv, start: BigInt(at('start')), end: BigInt(at('end')), price: BigInt(at('price')),
        perWallet: capOf(at('per_wallet')), perTx: capOf(at('per_tx')), root, name: phaseName(i), token: at('token'),
        allowlist: root !== null && BigInt(root) !== 0n };
    }));
    const minted = BigInt(evaluate(m.supply.minted, env));
    const maxSupply = BigInt(evaluate(m.supply.max, env));
    const paused = Boolean(evaluate(m.paused, env));
    const now = chainNow();
    const open = phases.find((p) => p.start <= now && now < p.end);
    const next = phases.filter((p) => p.start > now).sort((a, b) => (a.start < b.start ? -1 : 1))[0];
    const kind = minted >= maxSupply ? 'sold-out' : paused ? 'paused'
      : open ? (open.token ? 'token' : open.allowlist ? 'allowlist' : 'public')
      : next ? 'not-open' : 'ended';
    return { kind, open, next, maxSupply, minted, phases };
  }

  function showSale(sale) {
    const banner = $('sale-state');
    banner.dataset.state = sale.kind;
    clearInterval(state.timer);
    const texts = {
      'sold-out': 'Sold out. Every token has been minted.',
      paused: 'Minting is paused by the creator.',
      ended: 'The sale has ended.',
      allowlist: `${sale.open && sale.open.name}: allowlist only.` +
        (state.account ? '' : ' Connect a wallet to see whether it is listed.'),
      public: `${sale.open && sale.open.name}: open to everyone.`,
      token: `${sale.open && sale.open.name}: priced in the token ${sale.open && sale.open.token}, which this page cannot pay with; mint on the creator's platform.`,
    };
    if (sale.kind === 'not-open') {
      const tick = () => {
        const left = sale.next.start - chainNow();
        if (left <= 0n) { clearInterval(state.timer); refresh().catch(showError); return; }
        banner.textContent = `${sale.next.name} opens in ${countdown(left)} (${formatWhen(sale.next.start)}).`;
      };
      tick();
      state.timer = setInterval(tick, 1000);
    } else {
      banner.textContent = texts[sale.kind];
      if (sale.open && sale.open.end !== NEVER) banner.textContent += ` Ends ${formatWhen(sale.open.end)}.`;
    }
  }

  // The allowlist files published with the page, for this wallet only: its shard gives its leaf's index, then
  // one node file per band of the tree gives the siblings from the leaf up to the root (see chain/allowlist_site.py).
  const get = async (url) => {
    const r = await fetch(url, { credentials: 'omit' });
    if (!r.ok) throw new Error(`${url} answered HTTP ${r.status}`);
    return r;
  };
  const depth = (i) => Math.floor(Math.log2(i + 1));
  const hexAt = (b, s) => '0x' + Array.from(b.subarray(32 * s, 32 * s + 32), (x) => x.toString(16).padStart(2, '0')).join('');

  async function proofFor(phase, account) {
    const list = cfg.phases[phase.id] && cfg.phases[phase.id].allowlist;
    if (!list) return null;
    const me = account.toLowerCase();
    const shard = await (await get(`${list.dir}a/${me.slice(2, 2 + list.shard_chars)}.json`)).json();
    if (!Object.hasOwn(shard, me)) return null;
    const proof = [];
    for (let i = shard[me]; ;) {
      const top = Math.floor(depth(i) / list.band) * list.band;
      const root = ((i + 1) >> (depth(i) - top)) - 1;
      const b = new Uint8Array(await (await get(`${list.dir}n/${root}.bin`)).arrayBuffer());
      if (!root && hexAt(b, 1) !== phase.root.toLowerCase()) {
        throw new Error('The allowlist published with this page does not match the contract; the creator must rebuild it.');
      }
      for (; i !== root; i = Math.floor((i - 1) / 2)) {
        const s = i % 2 ? i + 1 : i - 1, j = 2 ** (depth(s) - top);
        proof.push(hexAt(b, j + s + 1 - (root + 1) * j));
      }
      if (!root) return proof;
      proof.push(hexAt(b, 0));
      i = Math.floor((root - 1) / 2);
    }
  }

  async function refresh() {
    const sale = await readSale();
    showSale(sale);
    const phase = ['public', 'allowlist'].includes(sale.kind) ? sale.open : null;
    const shown = phase || sale.next || sale.phases[sale.phases.length - 1];
    state.phase = phase;
    state.price = shown ? shown.price : null;
    const left = sale.maxSupply - sale.minted;
    $('price').textContent = !shown ? '–' : shown.token ? `${shown.price} token units` : `${formatEth(shown.price)} ETH`;
    $('supply').textContent = `${sale.minted} / ${sale.maxSupply}`;
    const limits = shown ? [shown.perWallet !== null && `${shown.perWallet} per wallet`,
      shown.perTx !== null && `${shown.perTx} per transaction`].filter(Boolean) : [];
    $('limits').textContent = limits.length ? limits.join(', ') : 'none';
    const soldOut = sale.kind === 'sold-out';
    $('marketplace').hidden = !soldOut || !($('marketplace').href = cfg.marketplace || '');
    if (soldOut) { $('connect').hidden = true; $('allowance').textContent = '–'; }
    if (!state.account) { state.cap = 0; updateQuantity(); return; }
    if (!phase) {
      $('allowance').textContent = '–';
      state.cap = 0;
      state.capReason = $('sale-state').textContent;
      updateQuantity();
      return;
    }
    const wallet = cfg.mint.wallet;
    const [mine, balance] = await Promise.all([
      wallet && phase.perWallet !== null
        ? readInto({ ...phase.env, account: state.account, phase_id: phase.id }, wallet.reads)
          .then((env) => BigInt(evaluate(wallet.minted, env)))
        : 0n,
      rpc('eth_getBalance', [state.account, 'latest'])]);
    state.balance = BigInt(balance);
    // null: no per-wallet cap (a per-call cap may still hold).
    const walletLeft = phase.perWallet === null ? null : phase.perWallet > mine ? phase.perWallet - mine : 0n;
    let listed = true;
    state.capReason = left === 0n ? 'Sold out.' : `This wallet has minted its limit of ${phase.perWallet} in ${phase.name}.`;
    state.proof = [];
    if (phase.allowlist) {
      const proof = await proofFor(phase, state.account);
      state.listed = proof !== null;
      $('listed').hidden = false;
      $('listed').dataset.listed = String(state.listed);
      const next = sale.phases.find((p) => !p.allowlist && p.start > chainNow()) || sale.next;
      $('listed').textContent = `This wallet is ${state.listed ? '' : 'not '}on the ${phase.name} list` +
        (state.listed || !next ? '.' : `; ${next.allowlist ? next.name : 'the public sale'} opens at ${formatWhen(next.start)}.`);
      // Said once, in the listed line: the allowance and the quantity hint do not repeat it.
      if (state.listed) state.proof = proof; else { listed = false; state.capReason = ''; }
    } else {
      $('listed').hidden = true;
    }
    $('allowance').textContent = !listed ? 'not listed' : walletLeft !== null ? `${walletLeft} of ${phase.perWallet} left`
      : phase.perTx !== null ? `up to ${phase.perTx} per transaction` : 'no limit';
    const cap = [listed ? left : 0n, walletLeft, phase.perTx].filter((c) => c !== null).reduce((a, c) => (c < a ? c : a));
    state.cap = Number(cap);
    // A fresh read narrows the choice itself; only what the user types is flagged instead of corrected.
    const qty = Number($('qty').value);
    $('qty').value = String(state.cap === 0 ? 0 : Math.min(Math.max(qty, 1), state.cap));
    $('qty').max = String(state.cap);
    updateQuantity();
  }

  // The quantity can never exceed what the chain said this wallet may still mint (the contract checks again).
  function updateQuantity() {
    const qty = Number($('qty').value);
    const inRange = Number.isInteger(qty) && qty >= 1 && qty <= state.cap;
    const cost = inRange && state.price !== null ? state.price * BigInt(qty) : null;
    // Gas comes on top, so this only catches the certain case: the balance does not even cover the price.
    const short = cost !== null && state.balance !== undefined && state.balance < cost;
    const valid = inRange && !short;
    const hint = $('qty-hint');
    hint.hidden = valid || !state.account || (state.cap === 0 && !state.capReason);
    // Nothing to choose when this wallet can mint nothing: no quantity 0, no dead Mint button.
    $('qty-row').hidden = $('mint').hidden = !state.account || state.cap === 0;
    hint.dataset.reason = short ? 'funds' : state.cap === 0 ? 'cap' : 'range';
    hint.textContent = short
      ? `Not enough ETH: minting ${qty} needs ${formatEth(cost)} ETH plus gas; this wallet has ${formatEth(state.balance)} ETH.`
      : state.cap === 0 ? state.capReason : state.cap === 1 ? 'This wallet may mint only 1 more.'
        : `Choose between 1 and ${state.cap}: that is what this wallet may still mint.`;
    $('mint').disabled = state.busy || !state.account || !valid;
    $('mint').textContent = valid && state.price !== null ? `Mint ${qty} · ${formatEth(state.price * BigInt(qty))} ETH` : 'Mint';
    $('qty-down').disabled = state.busy || qty <= 1;
    $('qty-up').disabled = state.busy || qty >= state.cap;
  }

  function stepQuantity(delta) {
    const next = Math.min(Math.max(1, (Number($('qty').value) || 0) + delta), state.cap);
    $('qty').value = String(next);
    updateQuantity();
  }

  // ---------- wallets: EIP-6963 discovery, window.ethereum fallback ----------
  const announced = new Map();
  window.addEventListener('eip6963:announceProvider', (event) => {
    const detail = event.detail;
    if (detail && detail.info && detail.provider && typeof detail.provider.request === 'function') {
      announced.set(detail.info.uuid || detail.info.rdns || detail.info.name, detail);
    }
  });
  window.dispatchEvent(new Event('eip6963:requestProvider'));

  function availableWallets() {
    const list = [...announced.values()];
    if (!list.length && window.ethereum) list.push({ info: { name: 'Browser wallet', icon: '' }, provider: window.ethereum });
    return list;
  }

  function onConnectClick() {
    const wallets = availableWallets();
    if (!wallets.length) return setStatus('No wallet found. Install a browser wallet, or open this page in a wallet app.', 'error');
    if (wallets.length === 1) return connect(wallets[0]);
    const list = $('wallets');
    list.replaceChildren(...wallets.map((wallet) => {
      const button = el('button', 'wallet');
      button.type = 'button';
      if (typeof wallet.info.icon === 'string' && wallet.info.icon.startsWith('data:image/')) {
        const icon = el('img'); icon.src = wallet.info.icon; icon.alt = ''; icon.width = 24; icon.height = 24;
        button.append(icon);
      }
      button.append(el('span', null, wallet.info.name || 'Wallet'));
      button.addEventListener('click', () => { list.hidden = true; connect(wallet); });
      const item = el('li'); item.append(button);
      return item;
    }));
    list.hidden = false;
    setStatus('Choose a wallet.');
  }

  async function connect(wallet) {
    const provider = wallet.provider;
    try {
      setStatus(`Connecting to ${wallet.info.name || 'your wallet'}…`);
      const accounts = await provider.request({ method: 'eth_requestAccounts' });
      if (!accounts || !accounts.length) throw new Error('The wallet shared no account.');
      if (state.wallet !== provider && typeof provider.on === 'function') {
        provider.on('accountsChanged', (next) => { state.account = next[0] || null; showAccount(); refresh().catch(showError); });
        provider.on('chainChanged', (id) => { state.chain = Number(id); refresh().catch(showError); });
      }
      state.wallet = provider;
      state.account = accounts[0];
      await ensureChain();
      showAccount();
      setStatus('Connected.', 'ok');
      await refresh();
    } catch (err) {
      showError(err);
    }
  }

  function showAccount() {
    const connected = Boolean(state.account);
    $('account').hidden = !connected;
    $('account').textContent = connected ? `Connected: ${state.account}` : '';
    $('connect').hidden = connected || $('sale-state').dataset.state === 'sold-out';
    $('qty-row').hidden = $('mint').hidden = !connected || !state.cap;
    if (!connected) $('allowance').textContent = 'connect a wallet';
  }

  // Switch the wallet to the page's chain; if it does not know the chain, add it; then believe only eth_chainId.
  async function ensureChain() {
    const wallet = state.wallet;
    state.chain = Number(await wallet.request({ method: 'eth_chainId' }));
    if (state.chain === cfg.chain.id) return;
    setStatus(`Switching your wallet to ${cfg.chain.name}…`);
    try {
      await wallet.request({ method: 'wallet_switchEthereumChain', params: [{ chainId: cfg.chain.hex }] });
    } catch (err) {
      if (isRejection(err)) throw err;
      // 4902 means "unknown chain"; wallets report others here too (-32603, nested codes), so try adding either way.
      // If that fails as well, the check below says which chain the wallet is on and which it needs.
      await wallet.request({ method: 'wallet_addEthereumChain', params: [cfg.chain.add] }).catch((added) => {
        if (isRejection(added)) throw added;
      });
    }
    state.chain = Number(await wallet.request({ method: 'eth_chainId' }));
    if (state.chain !== cfg.chain.id) {
      $('status').dataset.state = 'wrong-network';
      throw new Error(`Wrong network: your wallet is on chain ${state.chain}; switch it to ${cfg.chain.name} to mint.`);
    }
  }

  // ---------- mint: simulate, send, wait for the receipt, check its status ----------
  async function mint() {
    const qty = Number($('qty').value);
    if (!Number.isInteger(qty) || qty < 1) return setStatus('Choose at least one token.', 'error');
    const phase = state.phase;
    if (!phase) return setStatus($('sale-state').textContent, 'error');
    state.busy = true; updateQuantity();
    try {
      await ensureChain();
      // The family's own call and value, from the description (what a quantity-dependent fee needs is read now).
      const call = cfg.mint.mint;
      const env = await readInto({ ...phase.env, qty, account: state.account, phase_id: phase.id, proof: state.proof,
        price: phase.price }, call.reads);
      const tx = {
        from: state.account, to: cfg.contract, data: callData(call.call, call.args.map((a) => evaluate(a, env))),
        value: '0x' + BigInt(evaluate(call.value, env)).toString(16),
      };
      setStatus('Checking the mint with the contract…');
      try {
        await rpc('eth_call', [tx, 'latest']);
      } catch (err) {
        if (!revertData(err)) throw err;
        return showRevert(revertData(err));
      }
      setStatus('Confirm the transaction in your wallet…');
      const hash = await state.wallet.request({ method: 'eth_sendTransaction', params: [tx] });
      setStatus('Pending…', 'pending', txLink(hash), hash);
      const receipt = await waitForReceipt(hash);
      if (receipt.status === '0x1') {
        setStatus(`Minted ${qty}.`, 'ok', txLink(hash), hash);
        showReceived(receivedTokenIds(receipt));
      } else {
        // Replaying the call on the block before tells why it reverted.
        const before = '0x' + (BigInt(receipt.blockNumber) - 1n).toString(16);
        const why = await rpc('eth_call', [tx, before]).then(() => null, (err) => revertData(err));
        showRevert(why, hash);
      }
    } catch (err) {
      showError(err);
    } finally {
      state.busy = false;
      await refresh().catch(() => {});
      updateQuantity();
    }
  }

  // ERC-721 Transfer(from 0, to the buyer, id) logs of this contract: the ids the buyer really got.
  function receivedTokenIds(receipt) {
    const zero = '0x' + '0'.repeat(64);
    const to = '0x' + encodeWord('address', state.account);
    return receipt.logs
      .filter((log) => log.address.toLowerCase() === cfg.contract.toLowerCase() && log.topics.length === 4 &&
        log.topics[0] === cfg.transfer_topic && log.topics[1] === zero && log.topics[2].toLowerCase() === to)
      .map((log) => BigInt(log.topics[3]));
  }

  function showReceived(ids) {
    const list = $('received');
    list.replaceChildren(...ids.map((id) => {
      const item = el('li');
      const label = `#${id}`;
      if (cfg.chain.explorer) {
        const a = el('a', null, label);
        a.href = `${cfg.chain.explorer}/nft/${cfg.contract}/${id}`; a.target = '_blank'; a.rel = 'noopener noreferrer';
        item.append(a);
      } else {
        item.append(el('span', null, label));
      }
      return item;
    }));
    $('received-box').hidden = ids.length === 0;
  }

  async function waitForReceipt(hash) {
    for (;;) {
      const receipt = await rpc('eth_getTransactionReceipt', [hash]);
      if (receipt) return receipt;
      await new Promise((resolve) => setTimeout(resolve, RECEIPT_POLL_MS));
    }
  }

  function showRevert(data, hash = null) {
    const reason = decodeRevert(data);
    setStatus(hash ? `Reverted. ${reason.text}` : reason.text, 'error', hash ? txLink(hash) : null, reason.raw || null);
  }

  function showError(err) {
    if (isRejection(err)) return setStatus('You rejected the request in your wallet.', 'error');
    setStatus(err && err.message ? err.message : String(err), 'error');
  }

  // ---------- gallery: chunk files fetched from the page's own folder as the visitor scrolls ----------
  const gallery = { entries: [], fetched: 0, shown: 0, loading: null, failed: false };

  async function fetchNextChunk() {
    const url = `${cfg.gallery.path}${gallery.fetched}.json`;
    // Chunk URLs may be cached for a year, and a failed answer with them: a retry goes past the cache.
    const response = await fetch(url, { credentials: 'omit', cache: gallery.failed ? 'reload' : 'default' })
      .catch((err) => { gallery.failed = true; throw err; });
    gallery.failed = !response.ok;
    if (!response.ok) throw new Error(`${url} answered HTTP ${response.status}`);
    const chunk = await response.json();
    if (!Array.isArray(chunk)) throw new Error(`${url} is not a gallery chunk`);
    gallery.entries.push(...chunk);
    gallery.fetched += 1;
  }

  function card([id, name, cid, attributes]) {
    const item = el('li', 'card');
    item.dataset.tokenId = String(id);
    const img = el('img');
    img.src = `${cfg.gateway}/ipfs/${cid}`;
    img.alt = name; img.loading = 'lazy'; img.decoding = 'async'; img.width = 512; img.height = 512;
    // Small pixel art scaled up by the browser's smoothing turns to blur: keep its pixels square.
    img.onload = () => img.naturalWidth > 256 || img.classList.add('pixelated');
    const traits = el('ul', 'traits');
    traits.append(...attributes.map(([trait, value]) => {
      const chip = el('li');
      chip.append(el('span', 'trait', trait), el('span', 'value', value));
      return chip;
    }));
    item.append(img, el('h3', null, name), el('p', 'token-id', `#${id}`), traits);
    return item;
  }

  // Shows what is already fetched even when the next chunk fails, then reports the failure.
  async function showNextBatch() {
    let failure = null;
    try {
      while (gallery.entries.length - gallery.shown < GALLERY_BATCH && gallery.fetched < cfg.gallery.chunks) {
        await fetchNextChunk();
      }
    } catch (err) {
      failure = err;
    }
    const batch = gallery.entries.slice(gallery.shown, gallery.shown + GALLERY_BATCH);
    $('gallery').append(...batch.map(card));
    gallery.shown += batch.length;
    if (failure) throw failure;
    $('gallery-status').textContent = '';
  }

  // One batch at a time: scrolling fires often, and a second call must not fetch the same chunk twice.
  // (.finally runs after the assignment even when no fetch was needed, so `loading` always clears.)
  function showMoreTokens() {
    gallery.loading ||= showNextBatch()
      .catch((err) => {
        $('gallery-status').textContent = location.protocol === 'file:'
          ? 'Open this page from a web server (to preview it: mintprep serve): a page opened as a file cannot read its gallery.'
          : `Could not load more of the gallery (${err.message || err}). Show more tries again.`;
      })
      .finally(() => {
        gallery.loading = null;
        const more = gallery.shown < cfg.gallery.tokens;
        $('more').hidden = !more;
        // Re-observing reports the button again if it is still on screen after this batch.
        if (more && endObserver) { endObserver.unobserve($('more')); endObserver.observe($('more')); }
      });
    return gallery.loading;
  }

  // The "Show more" button stays for keyboards and browsers without IntersectionObserver.
  const endObserver = 'IntersectionObserver' in window ? new IntersectionObserver((seen) => {
    if (seen.some((entry) => entry.isIntersecting) && !$('gallery-status').textContent) showMoreTokens();
  }, { rootMargin: '0px 0px 600px 0px' }) : null;

  // ---------- start ----------
  $('name').textContent = cfg.collection.name;
  $('symbol').textContent = cfg.collection.symbol;
  $('description').textContent = cfg.collection.description;
  $('metadata-root').textContent = cfg.metadata_root ? `ipfs://${cfg.metadata_root}/` : 'hidden until the reveal';
  if (!cfg.gallery.tokens) $('gallery-title').textContent = 'The art is shown after the reveal.';
  $('provenance').textContent = cfg.collection.provenance_hash;
  $('more').addEventListener('click', showMoreTokens);
  showMoreTokens();

  if (!cfg.contract) {
    $('not-deployed').hidden = false;
    return;
  }
  if (cfg.mint.elsewhere) {
    // A family whose mint goes through something this page cannot drive: the way there, never a button that reverts.
    const link = el('a', null, cfg.mint.elsewhere.url);
    link.href = cfg.mint.elsewhere.url; link.rel = 'noopener noreferrer';
    $('mint-elsewhere-link').replaceChildren(link);
    $('mint-elsewhere').hidden = false;
  }
  const contract = cfg.chain.explorer ? el('a', null, cfg.contract) : el('code', null, cfg.contract);
  if (cfg.chain.explorer) { contract.href = `${cfg.chain.explorer}/address/${cfg.contract}`; contract.rel = 'noopener noreferrer'; }
  $('contract').replaceChildren(contract);
  if (cfg.mint.elsewhere) return;
  $('mint-ui').hidden = false;
  $('connect').addEventListener('click', onConnectClick);
  $('mint').addEventListener('click', mint);
  $('qty').addEventListener('input', updateQuantity);
  $('qty-down').addEventListener('click', () => stepQuantity(-1));
  $('qty-up').addEventListener('click', () => stepQuantity(1));
  refresh().catch((err) => setStatus(`Could not read the contract: ${err.message || err}`, 'error'));
})();
