// Two hot functions, 75/25 of the time by design: spinA runs 3 units of work per spinB's 1.
'use strict';
function spinA(n) { let x = 0; for (let i = 0; i < n; i++) x = (x * 31 + i) % 1000003; return x; }
function spinB(n) { let x = 0; for (let i = 0; i < n; i++) x = (x * 17 + i) % 1000033; return x; }
const end = Date.now() + 1000 * Number(process.argv[2] || 3);
let sink = 0;
while (Date.now() < end) { sink += spinA(300000); sink += spinB(100000); }
if (sink === 42) console.log(sink);
