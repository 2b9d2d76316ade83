// Node ESM resolve hook: babylon-mmd's esm build imports its own files
// without extensions ("./mmdWasmRuntime", "../wasm/spr"), which Node's ESM
// resolver refuses. Retry such a specifier with ".js", then "/index.js".
export async function resolve(specifier, context, next) {
    try {
        return await next(specifier, context);
    } catch (err) {
        if (err?.code !== "ERR_MODULE_NOT_FOUND" && err?.code !== "ERR_UNSUPPORTED_DIR_IMPORT") throw err;
        for (const suffix of [".js", "/index.js"]) {
            try {
                return await next(specifier + suffix, context);
            } catch { /* try the next suffix */ }
        }
        throw err;
    }
}
