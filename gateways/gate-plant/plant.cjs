// The regression gate's planted slowdown for a Node.js gateway
// (results/gate/README.md): preloaded with `node --require`, it runs
// GATEWAYBENCH_PLANT_WORK rounds of a 32-bit linear congruential step on
// every HTTP request the process serves, before the gateway's own handler,
// on the event loop as the gateway's code runs. 0 (the A/A arms): the same
// hook, no work. The gateway's code is not changed.
'use strict';
const http = require('http');
const rounds = Number(process.env.GATEWAYBENCH_PLANT_WORK || '0') | 0;
let sink = 1;
const emit = http.Server.prototype.emit;
http.Server.prototype.emit = function (event, ...args) {
  if (event === 'request') {
    let x = sink;
    for (let i = 0; i < rounds; i++) x = (Math.imul(x, 1664525) + 1013904223) | 0;
    sink = x | 1; // kept, so the loop is not optimised away
  }
  return emit.call(this, event, ...args);
};
