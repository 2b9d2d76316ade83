import { register } from "node:module";
register("./resolve-hook.mjs", import.meta.url);
