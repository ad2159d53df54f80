// Public entry of the sandbox for tests and scripts: startSandbox(options) → { url, close() }.
export {};
