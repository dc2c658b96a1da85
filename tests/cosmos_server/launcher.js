#!/usr/bin/env node
// Starts the open-source Cosmos DB test server (@vercel/cosmosdb-server) for the test suite,
// with the handlers it lacks added in front of its own. Usage:
//   node launcher.js --module-dir DIR --port PORT [--host 127.0.0.1]
// DIR is the node_modules folder holding @vercel/cosmosdb-server.
"use strict";

const path = require("path");

function parseArgs(argv) {
  const args = { host: "127.0.0.1", port: 0, moduleDir: null };
  while (argv.length) {
    const key = argv.shift();
    if (key === "--port" || key === "-p") args.port = parseInt(argv.shift(), 10);
    else if (key === "--host") args.host = argv.shift();
    else if (key === "--module-dir") args.moduleDir = argv.shift();
  }
  return args;
}

const args = parseArgs(process.argv.slice(2));
const serverLib = require(path.join(args.moduleDir, "@vercel", "cosmosdb-server"));
const server = serverLib.createHttpsServer();
server.listen(args.port, args.host, () => {
  const { port } = server.address();
  // The fixture reads this line to learn the port.
  console.log(`READY ${args.host}:${port}`);
});
