// Preloaded with `node --require`: Portkey's start-server.js listens on every
// interface and has no host option. gatewaybench binds loopback only, so
// every listen() without a host is given GATEWAY_HOST (the gateway engine's
// address: 127.0.0.1 on this machine, a node's on a cluster). Portkey's own
// code is not changed.
'use strict';
const net = require('net');
const host = process.env.GATEWAY_HOST || '127.0.0.1';
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  if (typeof args[0] === 'number' || (typeof args[0] === 'string' && /^\d+$/.test(args[0]))) {
    const port = Number(args[0]);
    const rest = args.slice(1).filter((a) => typeof a !== 'string');
    return listen.call(this, port, host, ...rest);
  }
  if (args[0] && typeof args[0] === 'object' && !args[0].path && !args[0].host) {
    args[0] = { ...args[0], host };
  }
  return listen.apply(this, args);
};
