'use strict';
// Stands in for iconv-lite (≈540 KB of code-page tables) in the shipped bundles. Its only user there is raw-body,
// which the MCP SDK's legacy SSE transport uses to read a POST body in the charset its Content-Type names. MCP
// messages are JSON, which is UTF-8 on the wire (RFC 8259), so Node's own TextDecoder — every WHATWG encoding
// with the full ICU Node ships — decodes everything a client can sensibly send. An encoding it does not know
// throws "Encoding not recognized: …", the message raw-body turns into "415 specified encoding unsupported",
// exactly as with iconv-lite. Our own HTTP server reads and parses every body itself and hands the SDK the parsed
// message (src/server/http/httpServer.ts), so raw-body's decoding does not even run there today.
// (scripts/bundle/plugins.mjs swaps it in; test/unit/build/bundleTrims.test.ts.)

function label(encoding) {
  try {
    return new TextDecoder(String(encoding)).encoding;
  } catch {
    return undefined;
  }
}

function encodingExists(encoding) {
  return label(encoding) !== undefined;
}

function getDecoder(encoding) {
  if (!encodingExists(encoding)) throw new Error(`Encoding not recognized: '${encoding}' (searched as: '${String(encoding).toLowerCase()}')`);
  const decoder = new TextDecoder(label(encoding));
  return {
    write: (chunk) => decoder.decode(chunk, { stream: true }),
    end: () => decoder.decode(),
  };
}

function decode(buffer, encoding) {
  const d = getDecoder(encoding);
  return d.write(buffer) + d.end();
}

module.exports = { encodingExists, getDecoder, decode };
