// The TypeScript SDK's MCP client (the one inside many MCP hosts) against a toolbelt server:
// pings, lists the tools and calls one, printing each result as the SDK parsed it, or the
// error the SDK raised. Usage:
//   node ts_client.cjs stdio COMMAND [ARGS...]       (NODE_PATH=.node/node_modules)
//   node ts_client.cjs http URL TOKEN
// The tool called is `think`; its arguments come from TS_CLIENT_CALL (JSON), if set.
"use strict";
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");
const { StreamableHTTPClientTransport } = require("@modelcontextprotocol/sdk/client/streamableHttp.js");

async function step(name, action) {
  try {
    const result = await action();
    return { step: name, ok: true, result };
  } catch (error) {
    return { step: name, ok: false, error: String(error && error.message ? error.message : error) };
  }
}

async function main() {
  const [kind, ...rest] = process.argv.slice(2);
  let transport;
  if (kind === "stdio") {
    transport = new StdioClientTransport({ command: rest[0], args: rest.slice(1), stderr: "ignore" });
  } else {
    const headers = rest[1] ? { Authorization: `Bearer ${rest[1]}` } : {};
    transport = new StreamableHTTPClientTransport(new URL(rest[0]), { requestInit: { headers } });
  }
  const client = new Client({ name: "ts-sdk-test", version: "1.0.0" });
  const steps = [];
  steps.push(await step("connect", async () => {
    await client.connect(transport);
    return client.getServerVersion();
  }));
  const args = process.env.TS_CLIENT_CALL ? JSON.parse(process.env.TS_CLIENT_CALL) : { thought: "hi" };
  steps.push(await step("ping", () => client.ping()));
  steps.push(await step("tools/list", async () => (await client.listTools()).tools.map((t) => t.name)));
  steps.push(await step("tools/call", () => client.callTool({ name: "think", arguments: args })));
  steps.push(await step("logging/setLevel", () => client.setLoggingLevel("info")));
  await client.close();
  process.stdout.write(JSON.stringify(steps) + "\n");
}

main().catch((error) => {
  process.stderr.write(String(error) + "\n");
  process.exit(1);
});
