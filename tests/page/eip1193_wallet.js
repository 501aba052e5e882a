// A test wallet injected before the page's scripts: EIP-1193 provider, announced by EIP-6963 (or, with
// __LEGACY__ true, only set as window.ethereum, like an old extension), forwarding JSON-RPC to a real anvil node, which signs eth_sendTransaction for its unlocked
// dev accounts. It starts on chain 0x1 so the page has to switch; it records every request in __walletCalls.
(() => {
  const RPC = '__RPC__';
  const ACCOUNT = '__ACCOUNT__';
  const LEGACY = __LEGACY__;
  const listeners = {};
  let id = 0;
  let chainId = '0x1';
  window.__walletCalls = [];

  async function node(method, params) {
    const response = await fetch(RPC, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params: params || [] }),
    });
    const reply = await response.json();
    if (reply.error) throw Object.assign(new Error(reply.error.message), { code: reply.error.code, data: reply.error.data });
    return reply.result;
  }

  function emit(event, value) { (listeners[event] || []).forEach((listener) => listener(value)); }

  const provider = {
    async request({ method, params }) {
      window.__walletCalls.push(method);
      switch (method) {
        case 'eth_requestAccounts':
        case 'eth_accounts':
          return [ACCOUNT];
        case 'eth_chainId':
          return chainId;
        case 'wallet_switchEthereumChain': {
          const nodeChain = await node('eth_chainId');
          if (BigInt(params[0].chainId) !== BigInt(nodeChain)) {
            throw Object.assign(new Error('Unrecognized chain ID'), { code: 4902 });
          }
          chainId = nodeChain;
          emit('chainChanged', chainId);
          return null;
        }
        case 'eth_sendTransaction':
          if (chainId !== (await node('eth_chainId'))) throw new Error('test wallet: sending on the wrong chain');
          return node(method, params);
        default:
          return node(method, params);
      }
    },
    on(event, listener) { (listeners[event] ||= []).push(listener); return provider; },
    removeListener(event, listener) {
      listeners[event] = (listeners[event] || []).filter((l) => l !== listener);
      return provider;
    },
  };

  const info = Object.freeze({
    uuid: '5d9b8f3e-0000-4000-8000-00000000a11e', name: 'Anvil Test Wallet', rdns: 'org.mintprep.testwallet',
    icon: 'data:image/svg+xml,%3Csvg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 8 8"%3E%3Crect width="8" height="8" fill="%23f60"/%3E%3C/svg%3E',
  });
  const announce = () => window.dispatchEvent(new CustomEvent('eip6963:announceProvider',
    { detail: Object.freeze({ info, provider }) }));
  if (LEGACY) {
    window.ethereum = provider;
  } else {
    window.addEventListener('eip6963:requestProvider', announce);
    announce();
  }
})();
