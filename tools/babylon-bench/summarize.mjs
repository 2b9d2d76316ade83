// Reads run.sh's output (stdin) and prints the markdown table: per row the
// median over rounds of each side's per-run median ms, and ours/theirs ratio
// (theirs ÷ ours: how many times faster ours is); then the same for the
// per-run means (median over rounds).
import fs from "node:fs";
const lines = fs.readFileSync(0, "utf8").split("\n").filter((l) => l.startsWith("{"));
const rows = new Map();
for (const l of lines) {
    const { side, row: rowName, r } = JSON.parse(l);
    const key = rowName ?? `${r.case}${r.physics ? " --physics" : ""}`;
    if (!rows.has(key)) rows.set(key, { ours: [], theirs: [], oursMean: [], theirsMean: [], info: {} });
    const row = rows.get(key);
    (side === "ours" ? row.ours : row.theirs).push(r.median_ms);
    (side === "ours" ? row.oursMean : row.theirsMean).push(r.mean_ms);
    row.info[side] = r;
}
const med = (v) => { const s = [...v].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
console.log("| case | bones | bodies | physics | ours median ms | babylon-mmd median ms | ratio (theirs ÷ ours) | ours runs | babylon-mmd runs | ours mean ms | babylon-mmd mean ms | mean ratio |");
console.log("|---|---|---|---|---|---|---|---|---|---|---|---|");
for (const [key, row] of rows) {
    const o = row.info.ours ?? {}, t = row.info["babylon-mmd"] ?? {};
    const mo = med(row.ours), mt = med(row.theirs);
    const ao = med(row.oursMean), at = med(row.theirsMean);
    const same = (a, b) => (a === b ? `${a}` : `${a} / ${b}`);
    console.log(`| ${key} | ${same(o.bones, t.bones)} | ${same(o.bodies, t.bodies)} | ${same(o.physics, t.physics)} | ${mo.toFixed(4)} | ${mt.toFixed(4)} | ${(mt / mo).toFixed(2)}× | ${row.ours.map((x) => x.toFixed(4)).join(", ")} | ${row.theirs.map((x) => x.toFixed(4)).join(", ")} | ${ao.toFixed(4)} | ${at.toFixed(4)} | ${(at / ao).toFixed(2)}× |`);
}
