#!/usr/bin/env node
// Starts the open-source Cosmos DB test server (@vercel/cosmosdb-server) for the test suite,
// with the handlers it lacks added in front of its own. Usage:
//   node launcher.js --module-dir DIR --port PORT [--host 127.0.0.1]
// DIR is the node_modules folder holding @vercel/cosmosdb-server.
"use strict";

const fs = require("fs");
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
const libDir = path.join(args.moduleDir, "@vercel", "cosmosdb-server", "lib");

// Extensions: every ext/*.js exports `route(req, lib)` returning `[params, handler]` for the
// requests it answers (handler: `async (account, req, res, params) => body`) or undefined to
// leave the request to the next extension and finally to the server's own routes, and may
// export `install(lib)`, run once before the server starts (to patch the server's modules).
// `lib` is the server's lib folder, for extensions that reuse its handlers.
const extDir = path.join(__dirname, "ext");
const extensions = fs.existsSync(extDir)
  ? fs.readdirSync(extDir).filter((f) => f.endsWith(".js")).sort()
      .map((f) => require(path.join(extDir, f)))
  : [];
for (const ext of extensions) {
  if (typeof ext.install === "function") ext.install(libDir);
}
const routes = require(path.join(libDir, "routes"));
const ownRoute = routes.default;
routes.default = (req) => {
  for (const ext of extensions) {
    const found = ext.route(req, libDir);
    if (found) return found;
  }
  return ownRoute(req);
};
const serverLib = require(libDir);
const server = serverLib.createHttpsServer();
server.listen(args.port, args.host, () => {
  const { port } = server.address();
  // The fixture reads this line to learn the port.
  console.log(`READY ${args.host}:${port}`);
});
