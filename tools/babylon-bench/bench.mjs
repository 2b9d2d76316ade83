// Issue 37: babylon-mmd 1.3.0's WASM MMD runtime, timed one 60 fps frame at a
// time in plain Node (NullEngine), with the protocol of VMD Studio's
// examples/pose_step.rs (benches/support/harness.rs).
//
//   node --import ./register-hook.mjs bench.mjs CASE [--physics]
//        [--steps N] [--warmup N] [--instance spr|sr] [--fixed-step HZ]
//
// CASE: mei | mmt | sample (corpus in $VMD_CORPUS, else ../../../shared/corpus)
// | generated (generated.pmx + generated_sway.vmd in $GENERATED_DIR, else
// ./generated; written by `cargo run --release --no-default-features
// --example write_generated -- DIR`).
// Prints one JSON line: median (and mean) ms of
// `mmdRuntime.beforePhysics(1000/60); mmdRuntime.afterPhysics();` over the
// steps after the warm-up.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";

import { NullEngine } from "@babylonjs/core/Engines/nullEngine.js";
import { Scene } from "@babylonjs/core/scene.js";
import { ImportMeshAsync } from "@babylonjs/core/Loading/sceneLoader.js";
import { StandardMaterial } from "@babylonjs/core/Materials/standardMaterial.js";
import { Logger } from "@babylonjs/core/Misc/logger.js";

import "babylon-mmd/esm/Loader/pmxLoader";
import "babylon-mmd/esm/Loader/pmdLoader";
import { VmdLoader } from "babylon-mmd/esm/Loader/vmdLoader";
import "babylon-mmd/esm/Runtime/Optimized/Animation/mmdWasmRuntimeModelAnimation";
import { MmdWasmAnimation } from "babylon-mmd/esm/Runtime/Optimized/Animation/mmdWasmAnimation";
import { GetMmdWasmInstance } from "babylon-mmd/esm/Runtime/Optimized/mmdWasmInstance";
import { MmdWasmInstanceTypeSPR } from "babylon-mmd/esm/Runtime/Optimized/InstanceType/singlePhysicsRelease";
import { MmdWasmInstanceTypeSR } from "babylon-mmd/esm/Runtime/Optimized/InstanceType/singleRelease";
import { MmdWasmRuntime, MmdWasmRuntimeAnimationEvaluationType } from "babylon-mmd/esm/Runtime/Optimized/mmdWasmRuntime";
import { MmdWasmPhysics } from "babylon-mmd/esm/Runtime/Optimized/Physics/mmdWasmPhysics";

const here = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const which = args[0] ?? "mmt";
const physics = args.includes("--physics");
const num = (flag, dflt) => {
    const i = args.indexOf(flag);
    return i >= 0 && i + 1 < args.length ? Number(args[i + 1]) : dflt;
};
const opt = (flag, dflt) => {
    const i = args.indexOf(flag);
    return i >= 0 && i + 1 < args.length ? args[i + 1] : dflt;
};
const steps = num("--steps", 3000);
const warmup = num("--warmup", 30);
const instanceName = opt("--instance", "spr");
// Bullet's fixed step in Hz (--physics only); babylon-mmd's default is 60.
const fixedStepHz = num("--fixed-step", 60);

const corpus = process.env.VMD_CORPUS ?? path.resolve(here, "../../../shared/corpus");
const generatedDir = path.resolve(process.env.GENERATED_DIR ?? path.join(here, "generated"));
const GIMME = "webmmd__GimmeGimme_with_emotion.vmd";
const cases = {
    mei: ["mei/mei.pmd", GIMME],
    mmt: ["unitymmdloader__mmt_test_model.pmx", GIMME],
    sample: [
        "frontier/sizing_mmdbase_sample_model/サンプルモデル.pmx",
        "frontier/sizing_mmdbase_sample_model/サンプルモーション2.vmd",
    ],
    // The 180-body / 230-joint model of benches/support/physics_model.rs
    // wearing harness::sway_motion(1600), as examples/write_generated.rs
    // writes them (absolute paths, so not under the corpus).
    generated: [path.join(generatedDir, "generated.pmx"), path.join(generatedDir, "generated_sway.vmd")],
};
if (!(which in cases)) {
    console.error(`unknown case ${which}`);
    process.exit(2);
}
const [modelRel, motionRel] = cases[which];
const resolve = (p) => (path.isAbsolute(p) ? p : path.join(corpus, p));

// A fresh ArrayBuffer holding exactly the file (the loaders read `.buffer`).
const readBytes = (p) => new Uint8Array(fs.readFileSync(p));

// The wasm-bindgen glue fetches `new URL("index_bg.wasm", import.meta.url)`,
// which Node's fetch cannot do for file: URLs; hand it the bytes instead.
function withLocalWasm(instanceType, dir) {
    const bindgen = instanceType.getWasmInstanceInner();
    const wasmPath = fileURLToPath(import.meta.resolve(`babylon-mmd/esm/Runtime/Optimized/wasm/${dir}/index_bg.wasm`));
    const bytes = fs.readFileSync(wasmPath);
    const patched = { ...bindgen, default: () => bindgen.default({ module_or_path: bytes }) };
    return { getWasmInstanceInner: () => patched };
}

// Materials are not part of the step: plain StandardMaterials, no textures.
const plainMaterialBuilder = {
    buildMaterials(_uniqueId, materialsInfo, _texturesInfo, _imagePathTable, _rootUrl, _fileRootId,
        _referenceFiles, _referencedMeshes, _meshes, scene, assetContainer,
        _textureNameMap, _logger, _onTextureLoadProgress, onTextureLoadComplete) {
        const out = [];
        for (let i = 0; i < materialsInfo.length; ++i) {
            const m = new StandardMaterial(materialsInfo[i].name ?? `m${i}`, scene);
            if (assetContainer !== null) assetContainer.materials.push(m);
            out.push(m);
        }
        onTextureLoadComplete?.(); // no textures to wait for
        return out;
    },
};

Logger.LogLevels = Logger.ErrorLogLevel;
const engine = new NullEngine();
const scene = new Scene(engine);

const instanceType = instanceName === "sr"
    ? withLocalWasm(new MmdWasmInstanceTypeSR(), "sr")
    : withLocalWasm(new MmdWasmInstanceTypeSPR(), "spr");
if (physics && instanceName !== "spr") {
    console.error("--physics needs --instance spr");
    process.exit(2);
}
const wasmInstance = await GetMmdWasmInstance(instanceType, 1);

const ext = path.extname(modelRel).toLowerCase();
const result = await ImportMeshAsync(readBytes(resolve(modelRel)), scene, {
    pluginExtension: ext,
    pluginOptions: { mmdmodel: { materialBuilder: plainMaterialBuilder, loggingEnabled: false } },
});
const mesh = result.meshes[0];
// Counts from the loader's metadata (createMmdModel trims it).
const bones = mesh.metadata.bones.length;
const bodies = mesh.metadata.rigidBodies.length;
const joints = mesh.metadata.joints.length;

// For the end-pose check below (generated case): each bone's parent and
// rest offset from it (Babylon's rest matrix is the local rest transform: a
// translation), and the simulated bodies' bones, taken before
// createMmdModel trims the metadata.
const restInfo = which !== "generated" ? null : {
    parents: mesh.metadata.bones.map((b) => b.parentBoneIndex),
    head: Math.max(0, mesh.metadata.bones.findIndex((b) => b.name === "head")),
    restLengths: result.skeletons[0].bones.map((b) => b.getRestMatrix().getTranslation().length()),
    simulated: mesh.metadata.rigidBodies.filter((r) => r.physicsMode !== 0 && r.boneIndex >= 0).map((r) => r.boneIndex),
};

const vmdLoader = new VmdLoader(scene);
const mmdAnimation = await vmdLoader.loadFromBufferAsync("motion", readBytes(resolve(motionRel)).buffer);

const mmdRuntime = new MmdWasmRuntime(wasmInstance, scene, physics ? new MmdWasmPhysics(scene) : null);
mmdRuntime.evaluationType = MmdWasmRuntimeAnimationEvaluationType.Immediate;
if (physics && fixedStepHz !== 60) mmdRuntime.physics.fixedTimeStep = 1 / fixedStepHz;
const model = mmdRuntime.createMmdModel(mesh, { buildPhysics: physics, materialProxyConstructor: null });
const wasmAnimation = new MmdWasmAnimation(mmdAnimation, wasmInstance, scene);
const handle = model.createRuntimeAnimation(wasmAnimation);
model.setRuntimeAnimation(handle);
// Keep playing past the motion's last key, as our harness does.
mmdRuntime.setManualAnimationDuration(1e9);
await mmdRuntime.playAnimation(); // frame 0, unpaused; nothing evaluated yet


const dt = 1000 / 60; // one 60 fps frame = 0.5 MMD frame
const times = [];
for (let k = 0; k < steps; ++k) {
    // The first call poses frame 0 (delta 0), then + 0.5 frame a call.
    const delta = k === 0 ? 0 : dt;
    const t0 = performance.now();
    mmdRuntime.beforePhysics(delta);
    mmdRuntime.afterPhysics();
    const t1 = performance.now();
    if (k >= warmup) times.push(t1 - t0);
}
const endFrame = mmdRuntime.currentFrameTime;
// Touch the result so nothing is optimised away.
const wm = model.worldTransformMatrices;
let sink = 0;
for (let i = 0; i < wm.length; ++i) sink += wm[i];

// The end pose, as examples/write_generated.rs prints ours (generated case
// only): hips and head positions, the farthest bone from the hips, and the
// largest relative change of a simulated bone's distance to its parent (a
// blown-up world shows as a huge stretch or distance).
let endPose;
if (restInfo) {
    const pos = (i) => [wm[i * 16 + 12], wm[i * 16 + 13], wm[i * 16 + 14]];
    const dist = (a, b) => Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
    const hips = pos(0);
    let maxFromHips = 0;
    for (let i = 0; i < bones; ++i) maxFromHips = Math.max(maxFromHips, dist(pos(i), hips));
    let maxStretch = 0;
    for (const i of restInfo.simulated) {
        const p = restInfo.parents[i];
        if (p < 0) continue;
        maxStretch = Math.max(maxStretch, Math.abs(dist(pos(i), pos(p)) / restInfo.restLengths[i] - 1));
    }
    const v = (a) => a.map((x) => Number(x.toFixed(4)));
    endPose = {
        hips: v(hips), head: v(pos(restInfo.head)),
        max_from_hips: Number(maxFromHips.toFixed(4)), max_stretch: Number(maxStretch.toFixed(5)),
    };
}

const mean = times.reduce((a, b) => a + b, 0) / Math.max(1, times.length);
times.sort((a, b) => a - b);
const median = times.length ? times[Math.floor(times.length / 2)] : 0;
console.log(JSON.stringify({
    case: which, bones, bodies, joints, physics, steps, instance: instanceName,
    fixed_step_hz: physics ? 1 / mmdRuntime.physics.fixedTimeStep : null,
    median_ms: Number(median.toFixed(5)), mean_ms: Number(mean.toFixed(5)),
    end_frame: endFrame, checksum: Number(sink.toFixed(3)),
    ...(endPose ? { end_pose: endPose } : {}),
}));
