#!/usr/bin/env python3
"""Capture a stagecheck bundle (docs/bundle-format.md) on a machine with torch,
triton and an NVIDIA GPU.

    capture.py inductor MODULE.py -o OUTDIR [--name NAME] [--keep-raw]
    capture.py launches FILE.py  -o OUTDIR [--name NAME] [--keep-raw]

inductor: MODULE.py defines Model, get_inputs() and get_init_inputs(). The model
runs under torch.compile (inductor); the bundle holds inductor's post-grad aten
graph as the reference and every Triton kernel and extern call of the compiled
program, in the order output_code.py's call() runs them.

launches: FILE.py defines Model (the plain PyTorch reference), ModelNew (the
candidate, launching hand-written @triton.jit kernels), get_inputs() and
get_init_inputs(). The reference is Model traced by torch.export; the steps are
the kernel launches and the torch operations ModelNew runs, recorded on a
second call after a warm-up call that compiles and autotunes.

Kernel launches are seen by patching Triton's CudaLauncher class before anything
compiles; the stage files come out of a fresh TRITON_CACHE_DIR. Everything the
script does or fails to do is logged to stderr with a "[capture]" prefix.
"""

import argparse
import ast
import functools
import importlib.util
import inspect
import json
import math
import os
import re
import shutil
import sys
import tempfile
import time
import traceback

BUNDLE_FORMAT = "stagecheck-bundle"
BUNDLE_VERSION = 1
STAGE_EXTS = ("ttir", "ttgir", "llir", "ptx", "json")
# Files never copied into a bundle or a raw directory: binaries and pickles.
RAW_SKIP_EXTS = (".cubin", ".so", ".pkl", ".pickle", ".pt", ".bin", ".o", ".hsaco", ".fatbin", ".lock")
RAW_MAX_FILE_BYTES = 4 << 20

TORCH_DTYPE_CODES = {
    "torch.float32": "f32",
    "torch.float16": "f16",
    "torch.bfloat16": "bf16",
    "torch.float64": "f64",
    "torch.int64": "i64",
    "torch.int32": "i32",
    "torch.int16": "i16",
    "torch.int8": "i8",
    "torch.uint8": "u8",
    "torch.bool": "bool",
}
FX_DTYPE_CODES = {"f32": "f32", "f16": "f16", "bf16": "bf16", "f64": "f64", "i64": "i64", "i32": "i32",
                  "i16": "i16", "i8": "i8", "u8": "u8", "b8": "bool"}
EXTERN_OPS = {"mm": "aten.mm", "bmm": "aten.bmm", "addmm": "aten.addmm", "baddbmm": "aten.baddbmm",
              "convolution": "aten.convolution", "_mm_plus_mm": "aten._mm_plus_mm",
              "addbmm": "aten.addbmm", "addmv": "aten.addmv"}
ALLOC_OPS = {"empty", "empty_like", "empty_strided", "new_empty", "new_empty_strided"}
# Ops that change no value: recorded nowhere; their outputs resolve to the tensor they view.
NO_VALUE_OPS = {"detach", "alias", "lift_fresh", "lift_fresh_copy", "_to_copy_noop"}


def log(msg):
    print(f"[capture] {msg}", file=sys.stderr, flush=True)


def warn(msg):
    print(f"[capture] WARNING: {msg}", file=sys.stderr, flush=True)


# ----------------------------------------------------------------------------
# JSON output
# ----------------------------------------------------------------------------


def jsonable(v):
    """A JSON-safe copy of v. Non-finite floats become the strings "inf",
    "-inf" and "nan"; objects JSON has no form for become their repr."""
    if v is None or isinstance(v, (bool, str)):
        return v
    if isinstance(v, int):
        return int(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return v
    if isinstance(v, (list, tuple)):
        return [jsonable(x) for x in v]
    if isinstance(v, dict):
        return {str(k): jsonable(x) for k, x in v.items()}
    if hasattr(v, "value") and type(v).__name__ == "constexpr":
        return jsonable(v.value)
    if type(v).__module__.startswith("torch") and type(v).__name__ in ("dtype", "device", "layout",
                                                                        "memory_format"):
        return str(v)
    try:
        import torch
        if isinstance(v, torch.SymInt) or isinstance(v, torch.SymFloat):
            return str(v)
    except Exception:
        pass
    return repr(v)


def write_json(path, obj):
    with open(path, "w") as f:
        json.dump(obj, f, indent=2, allow_nan=False)
        f.write("\n")


def dtype_code(dtype):
    return TORCH_DTYPE_CODES.get(str(dtype), str(dtype).replace("torch.", ""))


# ----------------------------------------------------------------------------
# Environment: fresh cache and debug directories, set before torch is imported
# ----------------------------------------------------------------------------


def prepare_environment(mode, scratch):
    dirs = {
        "triton_cache": os.path.join(scratch, "triton_cache"),
        "inductor_cache": os.path.join(scratch, "inductor_cache"),
        "debug": os.path.join(scratch, "debug"),
    }
    for d in dirs.values():
        os.makedirs(d, exist_ok=True)
    env = {
        "TRITON_CACHE_DIR": dirs["triton_cache"],
        "TORCHINDUCTOR_CACHE_DIR": dirs["inductor_cache"],
        "TORCHINDUCTOR_COMPILE_THREADS": "1",
        "TORCHINDUCTOR_USE_STATIC_CUDA_LAUNCHER": "0",
        "TORCHINDUCTOR_FX_GRAPH_CACHE": "0",
        "TORCHINDUCTOR_AUTOGRAD_CACHE": "0",
    }
    if mode == "inductor":
        env["TORCH_COMPILE_DEBUG"] = "1"
        env["TORCH_COMPILE_DEBUG_DIR"] = dirs["debug"]
    for k, v in env.items():
        if k in os.environ and os.environ[k] != v:
            log(f"overriding {k}={os.environ[k]!r} with {v!r}")
        os.environ[k] = v
    log("environment: " + ", ".join(f"{k}={v}" for k, v in env.items()))
    return dirs


# ----------------------------------------------------------------------------
# The recorder: kernel descriptions, compile times, launches and extern calls
# ----------------------------------------------------------------------------


class Recorder:
    def __init__(self):
        self.enabled = False
        self.events = []          # launches and extern calls, in the order they ran
        self.compile_times = {}   # kernel hash -> seconds spent in triton.compile
        self.kernels = {}         # kernel hash -> description (name, signature, constants, ...)
        self.hooks = []           # names of the hooks that were installed
        self.launches_seen = 0    # every launch, also while not recording
        self._warned = set()

    def warn_once(self, key, msg):
        if key not in self._warned:
            self._warned.add(key)
            warn(msg)

    # -- kernel descriptions ------------------------------------------------

    def describe_kernel(self, src, metadata):
        fn = getattr(src, "fn", None)
        arg_names = list(getattr(fn, "arg_names", []) or [])
        sig = getattr(src, "signature", None) or {}
        signature = []
        for i, (k, v) in enumerate(sig.items() if isinstance(sig, dict) else enumerate(sig)):
            name = k if isinstance(k, str) else (arg_names[k] if isinstance(k, int) and k < len(arg_names)
                                                else f"arg{i}")
            signature.append((name, v if isinstance(v, str) else jsonable(v)))
        constants = {}
        for k, v in (getattr(src, "constants", None) or {}).items():
            idx = None
            if isinstance(k, tuple) and len(k) == 1 and isinstance(k[0], int):
                idx = k[0]
            elif isinstance(k, int):
                idx = k
            if idx is not None and idx < len(arg_names):
                constants[arg_names[idx]] = jsonable(v)
            elif isinstance(k, str):
                constants[k] = jsonable(v)
            else:
                constants[str(k)] = jsonable(v)
        md = metadata
        get = (lambda key, default=None: md.get(key, default)) if isinstance(md, dict) else \
            (lambda key, default=None: getattr(md, key, default))
        info = {
            "name": get("name") or getattr(src, "name", None),
            "hash": get("hash"),
            "signature": signature,
            "constants": constants,
            "num_warps": get("num_warps"),
            "num_stages": get("num_stages"),
            "num_ctas": get("num_ctas"),
            "shared": get("shared"),
            "source_file": None,
            "source_line": None,
        }
        pyfn = getattr(fn, "fn", None)
        code = getattr(pyfn, "__code__", None)
        if code is not None:
            info["source_file"] = code.co_filename
            info["source_line"] = code.co_firstlineno
        if info["hash"]:
            self.kernels[info["hash"]] = info
        return info

    # -- events -------------------------------------------------------------

    def on_launch(self, info, grid, kernel_args, via):
        self.launches_seen += 1
        if not self.enabled:
            return
        self.events.append({
            "type": "launch",
            "via": via,
            "kernel": info,
            "grid": [int(g) for g in grid],
            "args": [describe_runtime_arg(a) for a in kernel_args],
        })

    def on_extern(self, func_name, args, kwargs, result):
        if not self.enabled:
            return
        self.events.append({
            "type": "extern",
            "func": func_name,
            "args": [describe_runtime_arg(a) for a in args],
            "kwargs": {k: describe_runtime_arg(v) for k, v in kwargs.items()},
            "result": describe_runtime_arg(result),
        })


def describe_runtime_arg(a):
    """What a kernel or op argument was at run time. Tensors keep a reference
    to the tensor ("obj") so that its memory is not reused while recording."""
    try:
        import torch
        if isinstance(a, torch.Tensor):
            st = a.untyped_storage()
            return {
                "kind": "tensor",
                "obj": a,
                "ptr": a.data_ptr(),
                "storage_ptr": st.data_ptr(),
                "storage_nbytes": st.nbytes(),
                "dtype": dtype_code(a.dtype),
                "shape": list(a.shape),
                "strides": list(a.stride()),
                "offset": a.storage_offset(),
                "itemsize": a.element_size(),
            }
    except Exception as e:  # a tensor subclass that refuses one of these queries
        return {"kind": "other", "repr": f"<unreadable tensor: {e}>"}
    if a is None:
        return {"kind": "none"}
    if isinstance(a, (bool, int, float)):
        return {"kind": "scalar", "value": a}
    if isinstance(a, (tuple, list)):
        return {"kind": "tuple", "items": [describe_runtime_arg(x) for x in a]}
    if hasattr(a, "data_ptr") and callable(a.data_ptr):
        try:
            return {"kind": "pointer", "ptr": int(a.data_ptr())}
        except Exception:
            pass
    return {"kind": "other", "repr": jsonable(a)}


# ----------------------------------------------------------------------------
# Hooks
# ----------------------------------------------------------------------------


def describe_signature(fn):
    try:
        return str(inspect.signature(fn))
    except Exception as e:
        return f"<no signature: {e}>"


def install_compile_timer(rec):
    """Wrap triton's compile entry points with a timer keyed by kernel hash."""
    try:
        import triton
        import triton.compiler.compiler as cc
    except Exception as e:
        warn(f"compile timer not installed: cannot import triton.compiler.compiler: {e}")
        return None
    orig = getattr(cc, "compile", None)
    if orig is None:
        warn("compile timer not installed: triton.compiler.compiler has no compile()")
        return None
    log(f"triton.compiler.compiler.compile{describe_signature(orig)}")

    @functools.wraps(orig)
    def timed_compile(*args, **kwargs):
        t0 = time.perf_counter()
        kernel = orig(*args, **kwargs)
        dt = time.perf_counter() - t0
        h = getattr(kernel, "hash", None)
        if h is None:
            h = getattr(getattr(kernel, "metadata", None), "hash", None)
        if h is not None:
            rec.compile_times[h] = rec.compile_times.get(h, 0.0) + dt
        name = getattr(kernel, "name", None) or getattr(getattr(kernel, "metadata", None), "name", "?")
        log(f"compiled {name} hash={str(h)[:16]} in {dt:.3f}s")
        return kernel

    timed_compile._stagecheck_original = orig
    patched = []
    for modname in ("triton.compiler.compiler", "triton.compiler", "triton", "triton.runtime.jit"):
        mod = sys.modules.get(modname)
        if mod is None:
            try:
                mod = importlib.import_module(modname)
            except Exception:
                continue
        if getattr(mod, "compile", None) is orig:
            setattr(mod, "compile", timed_compile)
            patched.append(f"{modname}.compile")
    try:
        from triton.runtime.jit import JITFunction
        if JITFunction.__dict__.get("compile") is orig:
            JITFunction.compile = timed_compile
            patched.append("JITFunction.compile")
    except Exception:
        pass
    log("compile timer on: " + (", ".join(patched) or "nothing patched"))
    rec.hooks.append("compile-timer")
    return timed_compile


def patch_jit_instances(module, timed_compile):
    """JITFunction objects that copied compile() into an instance attribute at
    construction get the timed one too."""
    if timed_compile is None:
        return
    orig = timed_compile._stagecheck_original
    seen = set()
    for value in vars(module).values():
        obj = value
        for _ in range(4):  # Autotuner / Heuristics wrap a JITFunction in .fn
            if obj is None or id(obj) in seen:
                break
            seen.add(id(obj))
            if getattr(obj, "__dict__", {}).get("compile") is orig:
                obj.compile = timed_compile
                log(f"compile timer on instance {getattr(obj, '__name__', obj)!r}")
            obj = getattr(obj, "fn", None)


def install_launcher_hook(rec):
    """Patch triton.backends.nvidia.driver.CudaLauncher so that every launch,
    from inductor's launchers and from JITFunction.run alike, is seen."""
    try:
        from triton.backends.nvidia import driver as nvdriver
        cls = nvdriver.CudaLauncher
    except Exception as e:
        warn(f"CudaLauncher hook not installed: {e}")
        return False
    init_sig = describe_signature(cls.__init__)
    call_sig = describe_signature(cls.__call__)
    log(f"CudaLauncher.__init__{init_sig}")
    log(f"CudaLauncher.__call__{call_sig}")
    try:
        init_params = list(inspect.signature(cls.__init__).parameters)
        call_params = list(inspect.signature(cls.__call__).parameters)
    except Exception:
        init_params, call_params = [], []
    if init_params[:3] != ["self", "src", "metadata"]:
        warn(f"CudaLauncher.__init__ parameters are {init_params}, expected (self, src, metadata, ...); "
             "patching anyway")
    if call_params[:6] != ["self", "gridX", "gridY", "gridZ", "stream", "function"]:
        warn(f"CudaLauncher.__call__ parameters are {call_params}, expected "
             "(self, gridX, gridY, gridZ, stream, function, *args); patching anyway")
    orig_init = cls.__init__
    orig_call = cls.__call__

    @functools.wraps(orig_init)
    def init(self, src, metadata, *args, **kwargs):
        orig_init(self, src, metadata, *args, **kwargs)
        try:
            self._stagecheck_info = rec.describe_kernel(src, metadata)
            info = self._stagecheck_info
            log(f"launcher for {info['name']} hash={str(info['hash'])[:16]} "
                f"signature={dict(info['signature'])} constants={info['constants']}")
        except Exception as e:
            self._stagecheck_info = None
            warn(f"cannot describe kernel in CudaLauncher.__init__: {e!r}")

    @functools.wraps(orig_call)
    def call(self, *args, **kwargs):
        if rec.enabled:
            try:
                record_cuda_launch(rec, self, args, kwargs)
            except Exception as e:
                rec.warn_once("launch-record", f"cannot record a launch: {e!r}\n{traceback.format_exc()}")
        else:
            rec.launches_seen += 1
        return orig_call(self, *args, **kwargs)

    cls.__init__ = init
    cls.__call__ = call
    rec.hooks.append("CudaLauncher")
    log("CudaLauncher hook on")
    return True


def record_cuda_launch(rec, launcher, args, kwargs):
    info = getattr(launcher, "_stagecheck_info", None)
    if kwargs:
        rec.warn_once("launch-kwargs", f"CudaLauncher.__call__ got keyword arguments {sorted(kwargs)}")
    if len(args) < 5:
        rec.warn_once("launch-short", f"CudaLauncher.__call__ got only {len(args)} positional arguments")
        return
    grid = args[0:3]
    rest = list(args[5:])
    n = len(info["signature"]) if info else None
    if n is None:
        rec.warn_once("launch-noinfo", "launch of a kernel whose launcher was built before the hook")
        kernel_args = rest[4:]
    else:
        if len(rest) < n:
            rec.warn_once(f"launch-count-{info['name']}",
                          f"{info['name']}: {len(rest)} launcher arguments for a signature of {n}")
            kernel_args = rest
        else:
            # (packed_metadata, launch_metadata, enter_hook, exit_hook, *kernel_args) in Triton 3.x;
            # the kernel arguments are the last len(signature) entries in every version seen.
            if len(rest) != n + 4:
                rec.warn_once(f"launch-layout-{info['name']}",
                              f"{info['name']}: {len(rest)} launcher arguments after the grid, stream and "
                              f"function; expected 4 + {n}; taking the last {n}")
            kernel_args = rest[len(rest) - n:]
    rec.on_launch(info, grid, kernel_args, "CudaLauncher")


def install_jit_run_hook(rec):
    """Fallback when CudaLauncher cannot be patched: wrap JITFunction.run. Sees
    hand-written kernels only, not inductor's."""
    try:
        from triton.runtime.jit import JITFunction
    except Exception as e:
        warn(f"JITFunction.run hook not installed: {e}")
        return False
    orig = JITFunction.run
    log(f"JITFunction.run{describe_signature(orig)}")

    @functools.wraps(orig)
    def run(self, *args, grid, warmup, **kwargs):
        kernel = orig(self, *args, grid=grid, warmup=warmup, **kwargs)
        if rec.enabled and not warmup and kernel is not None:
            try:
                src = getattr(kernel, "src", None)
                info = rec.describe_kernel(src, kernel.metadata) if src is not None else None
                bound = dict(zip(self.arg_names, args))
                bound.update({k: v for k, v in kwargs.items() if k in self.arg_names})
                g = grid(bound) if callable(grid) else grid
                g = tuple(g) + (1,) * (3 - len(g))
                kernel_args = [bound.get(name) for name in self.arg_names]
                if info is not None:
                    for name, value in info["constants"].items():
                        if name in self.arg_names and kernel_args[self.arg_names.index(name)] is None:
                            kernel_args[self.arg_names.index(name)] = value
                rec.on_launch(info, g, kernel_args, "JITFunction.run")
            except Exception as e:
                rec.warn_once("jit-run-record", f"cannot record a JITFunction.run launch: {e!r}")
        return kernel

    JITFunction.run = run
    rec.hooks.append("JITFunction.run")
    log("JITFunction.run hook on (fallback: inductor launches are not seen)")
    return True


def install_hooks(rec):
    import triton
    log(f"triton {triton.__version__} from {os.path.dirname(triton.__file__)}")
    timed = install_compile_timer(rec)
    if not install_launcher_hook(rec):
        install_jit_run_hook(rec)
    return timed


# ----------------------------------------------------------------------------
# Triton cache: find the stage files of a kernel by its hash
# ----------------------------------------------------------------------------


def index_triton_cache(roots):
    """hash -> (directory, kernel name) for every kernel metadata JSON under roots."""
    index = {}
    for root in roots:
        if not root or not os.path.isdir(root):
            continue
        for dirpath, _, files in os.walk(root):
            for f in files:
                if not f.endswith(".json") or f.startswith("__grp__"):
                    continue
                p = os.path.join(dirpath, f)
                try:
                    with open(p) as fh:
                        md = json.load(fh)
                except Exception:
                    continue
                if isinstance(md, dict) and "hash" in md and "name" in md:
                    index.setdefault(md["hash"], (dirpath, md["name"], md))
    return index


def copy_kernel_files(index, info, bundle, used_dirs):
    """Copy <name>.{ttir,ttgir,llir,ptx,json} of the kernel into
    kernels/<dir>/; returns (dir, files dict, metadata dict)."""
    h = info.get("hash") if info else None
    name = info.get("name") if info else None
    entry = index.get(h) if h else None
    if entry is None:
        warn(f"no stage files for kernel {name} hash={h} in the Triton cache")
        return None, {}, {}
    cache_dir, cache_name, md = entry
    md = dict(md, _cache_key=os.path.basename(cache_dir))
    name = name or cache_name
    key = used_dirs.get((name, h))
    if key is None:
        dirname = name
        if any(d == dirname for d in used_dirs.values()):
            dirname = f"{name}__{h[:8]}"
        used_dirs[(name, h)] = dirname
        key = dirname
        os.makedirs(os.path.join(bundle, "kernels", key), exist_ok=True)
        for ext in STAGE_EXTS:
            src = os.path.join(cache_dir, f"{cache_name}.{ext}")
            if os.path.exists(src):
                shutil.copyfile(src, os.path.join(bundle, "kernels", key, f"{name}.{ext}"))
            else:
                warn(f"{name}: the cache has no {cache_name}.{ext}")
        src_py = os.path.join(cache_dir, f"{cache_name}.source")
        if os.path.exists(src_py):
            shutil.copyfile(src_py, os.path.join(bundle, "kernels", key, f"{name}.source"))
    files = {}
    for ext in STAGE_EXTS:
        p = os.path.join("kernels", key, f"{name}.{ext}")
        if os.path.exists(os.path.join(bundle, p)):
            files["metadata" if ext == "json" else ext] = p
    return key, files, md


def copy_kernel_source(info, bundle, kdir, captured_script):
    """The Python source the TTIR's loc() entries point at, kept in the bundle."""
    path = info.get("source_file") if info else None
    if not path:
        return None
    if captured_script and os.path.abspath(path) == os.path.abspath(captured_script):
        return {"path": "reference/source.py", "original_path": path, "line": info.get("source_line")}
    if not os.path.exists(path):
        warn(f"kernel source {path} is gone")
        return {"path": None, "original_path": path, "line": info.get("source_line")}
    dst = os.path.join("kernels", kdir, f"{info['name']}.py")
    shutil.copyfile(path, os.path.join(bundle, dst))
    return {"path": dst, "original_path": path, "line": info.get("source_line")}


# ----------------------------------------------------------------------------
# Shared utilities
# ----------------------------------------------------------------------------


def load_module(path):
    spec = importlib.util.spec_from_file_location(os.path.splitext(os.path.basename(path))[0], path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def to_device(x, device):
    import torch
    if isinstance(x, torch.Tensor):
        return x.to(device)
    if isinstance(x, (list, tuple)):
        return type(x)(to_device(v, device) for v in x)
    return x


def flatten_tensors(x):
    import torch
    if isinstance(x, torch.Tensor):
        return [x]
    if isinstance(x, (list, tuple)):
        out = []
        for v in x:
            out.extend(flatten_tensors(v))
        return out
    if isinstance(x, dict):
        out = []
        for v in x.values():
            out.extend(flatten_tensors(v))
        return out
    return []


def max_abs_diff(a, b):
    import torch
    ta, tb = flatten_tensors(a), flatten_tensors(b)
    if len(ta) != len(tb):
        return None, f"{len(ta)} reference outputs, {len(tb)} candidate outputs"
    worst = 0.0
    for x, y in zip(ta, tb):
        if x.shape != y.shape:
            return None, f"shape {list(x.shape)} vs {list(y.shape)}"
        if x.numel() == 0:
            continue
        d = (x.double() - y.double()).abs()
        d = torch.where(torch.isnan(x.double()) & torch.isnan(y.double()), torch.zeros_like(d), d)
        worst = max(worst, float(d.max()))
    return worst, None


def init_params(model_cls, init_inputs):
    """Scalar constructor arguments by parameter name (positional by position)."""
    params = {}
    try:
        names = [p for p in inspect.signature(model_cls.__init__).parameters if p != "self"]
    except Exception:
        names = []
    for i, v in enumerate(init_inputs):
        if isinstance(v, (bool, int, float, str)):
            params[names[i] if i < len(names) else f"init{i}"] = jsonable(v)
    return params


def origin_info(mode):
    import torch
    import triton
    dev = torch.cuda.current_device()
    cap = torch.cuda.get_device_capability(dev)
    return {
        "tool": "stagecheck scripts/capture.py",
        "mode": mode,
        "torch": torch.__version__,
        "triton": triton.__version__,
        "cuda": torch.version.cuda,
        "device": torch.cuda.get_device_name(dev),
        "capability": cap[0] * 10 + cap[1],
        "python": sys.version.split()[0],
    }


def copy_raw(dirs, bundle):
    """Raw debug and cache directories for `stagecheck import` tests, without
    binaries, pickles or large files."""
    raw = os.path.join(bundle, "raw")
    kept = skipped = 0
    for key, src in dirs.items():
        if not os.path.isdir(src):
            continue
        for dirpath, _, files in os.walk(src):
            rel = os.path.relpath(dirpath, src)
            for f in files:
                p = os.path.join(dirpath, f)
                if f.endswith(RAW_SKIP_EXTS) or os.path.islink(p) or os.path.getsize(p) > RAW_MAX_FILE_BYTES:
                    skipped += 1
                    continue
                dst_dir = os.path.join(raw, key, rel)
                os.makedirs(dst_dir, exist_ok=True)
                shutil.copyfile(p, os.path.join(dst_dir, f))
                kept += 1
    log(f"raw directories copied to {raw}: {kept} files kept, {skipped} skipped")


def kernel_arg_entries(info, runtime_args, resolve_pointer, named_specs=None):
    """The manifest's args list of one launch, in signature order."""
    out = []
    sig = info["signature"] if info else [(f"arg{i}", "?") for i in range(len(runtime_args))]
    for i, (pname, ptype) in enumerate(sig):
        rt = runtime_args[i] if i < len(runtime_args) else None
        entry = {"name": pname, "type": ptype}
        if ptype == "constexpr":
            if info and pname in info["constants"]:
                entry["value"] = info["constants"][pname]
            elif rt is not None and rt["kind"] == "scalar":
                entry["value"] = jsonable(rt["value"])
            elif rt is not None and rt["kind"] == "none":
                entry["value"] = None
            else:
                entry["value"] = jsonable(rt.get("repr")) if rt else None
        elif isinstance(ptype, str) and ptype.startswith("*"):
            entry.update(resolve_pointer(pname, rt, (named_specs or {}).get(pname)))
        else:
            if rt is not None and rt["kind"] == "scalar":
                entry["value"] = jsonable(rt["value"])
            elif named_specs and pname in named_specs and "value" in named_specs[pname]:
                entry["value"] = named_specs[pname]["value"]
            else:
                entry["value"] = jsonable(rt.get("repr")) if rt else None
        out.append(entry)
    return out


# ----------------------------------------------------------------------------
# inductor: output_code.py
# ----------------------------------------------------------------------------


def literal(node):
    try:
        return ast.literal_eval(node)
    except Exception:
        return None


def argspec(node):
    """One argument of a call in output_code.py."""
    if isinstance(node, ast.Name):
        return {"name": node.id}
    if isinstance(node, ast.Call):
        f = ast.unparse(node.func)
        if f.endswith("reinterpret_tensor") and len(node.args) >= 4 and isinstance(node.args[0], ast.Name):
            return {"name": node.args[0].id,
                    "view": {"shape": literal(node.args[1]), "strides": literal(node.args[2]),
                             "offset": literal(node.args[3])}}
    v = literal(node)
    if v is not None or (isinstance(node, ast.Constant) and node.value is None):
        return {"value": jsonable(v)}
    return {"expr": ast.unparse(node)}


def kernel_params(src, name=None):
    """(name, declared constexpr) for each parameter of the @triton.jit kernel
    in src: the function called `name`, else the last one (a scan's or a
    sort's source defines its combine helpers before the kernel)."""
    try:
        tree = ast.parse(src)
    except Exception:
        return None
    functions = [node for node in tree.body if isinstance(node, ast.FunctionDef)]
    named = [f for f in functions if f.name == name]
    if not functions:
        return None
    kernel = named[0] if named else functions[-1]
    params = []
    for a in kernel.args.args:
        ann = ast.unparse(a.annotation) if a.annotation is not None else ""
        params.append((a.arg, "constexpr" in ann))
    return params


def parse_output_code(text):
    """Kernels, tensors and the ordered steps of output_code.py's call()."""
    tree = ast.parse(text)
    res = {"kernels": {}, "placeholders": [], "tensors": {}, "aliases": {}, "steps": [], "outputs": [],
           "grid_in_output_code": False}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and isinstance(node.value, ast.Call):
            f = ast.unparse(node.value.func)
            if f.endswith("async_compile.triton") and node.value.args:
                name = literal(node.value.args[0])
                src = literal(node.value.args[1]) if len(node.value.args) > 1 else None
                res["kernels"][node.targets[0].id] = {
                    "name": name, "source": src, "params": kernel_params(src, name) if src else None}
    call_fn = None
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == "call":
            call_fn = node
            break
    if call_fn is None:
        warn("output_code.py has no call() function")
        return res

    def visit_call(call, target=None):
        f = ast.unparse(call.func)
        if f == "assert_size_stride" and len(call.args) >= 3 and isinstance(call.args[0], ast.Name):
            t = res["tensors"].setdefault(call.args[0].id, {})
            t["shape"], t["strides"] = literal(call.args[1]), literal(call.args[2])
            return
        if f in ("empty_strided_cuda", "empty_strided") and target:
            t = res["tensors"].setdefault(target, {})
            t["shape"] = literal(call.args[0]) if call.args else None
            t["strides"] = literal(call.args[1]) if len(call.args) > 1 else None
            dt = ast.unparse(call.args[2]) if len(call.args) > 2 else None
            for kw in call.keywords:
                if kw.arg == "dtype":
                    dt = ast.unparse(kw.value)
            t["dtype"] = dtype_code(dt) if dt else None
            return
        if isinstance(call.func, ast.Attribute) and call.func.attr == "run" and \
                isinstance(call.func.value, ast.Name) and call.func.value.id in res["kernels"]:
            kw = {k.arg: ast.unparse(k.value) for k in call.keywords if k.arg}
            if "grid" in kw:
                res["grid_in_output_code"] = True
            res["steps"].append({"kind": "launch", "var": call.func.value.id, "lineno": call.lineno,
                                 "args": [argspec(a) for a in call.args],
                                 "grid_expr": kw.get("grid")})
            return
        if f.startswith("extern_kernels.") or f.startswith("torch.ops.") or f.startswith("aten."):
            res["steps"].append({
                "kind": "extern", "call": f, "func": f.split(".")[1] if f.startswith("extern_kernels.") else f,
                "lineno": call.lineno, "args": [argspec(a) for a in call.args],
                "kwargs": {k.arg: argspec(k.value) for k in call.keywords if k.arg},
                "target": target})
            return

    def visit_stmts(stmts):
        for st in stmts:
            if isinstance(st, ast.Assign):
                tgt = st.targets[0]
                if isinstance(tgt, ast.Tuple) and isinstance(st.value, ast.Name) and st.value.id == "args":
                    res["placeholders"] = [e.id for e in tgt.elts if isinstance(e, ast.Name)]
                    continue
                if isinstance(tgt, ast.Name) and isinstance(st.value, ast.Name):
                    res["aliases"][tgt.id] = st.value.id
                    continue
                if isinstance(tgt, ast.Name) and isinstance(st.value, ast.Call):
                    f = ast.unparse(st.value.func)
                    if f.endswith("reinterpret_tensor") and st.value.args and isinstance(st.value.args[0], ast.Name):
                        res["aliases"][tgt.id] = st.value.args[0].id
                        spec = argspec(st.value)
                        res["tensors"].setdefault(tgt.id, {}).update(
                            {"shape": spec["view"]["shape"], "strides": spec["view"]["strides"],
                             "offset": spec["view"]["offset"]})
                        continue
                    visit_call(st.value, tgt.id)
                    continue
                if isinstance(st.value, ast.Call):
                    visit_call(st.value, None)
            elif isinstance(st, ast.Expr) and isinstance(st.value, ast.Call):
                visit_call(st.value)
            elif isinstance(st, ast.Return) and st.value is not None:
                elts = st.value.elts if isinstance(st.value, ast.Tuple) else [st.value]
                res["outputs"] = [argspec(e) for e in elts]
            elif isinstance(st, (ast.With, ast.If, ast.For, ast.While, ast.Try)):
                visit_stmts(getattr(st, "body", []))
                visit_stmts(getattr(st, "orelse", []))
                for h in getattr(st, "handlers", []):
                    visit_stmts(h.body)
                visit_stmts(getattr(st, "finalbody", []))

    visit_stmts(call_fn.body)
    return res


def fx_placeholder_types(graph_text):
    """placeholder -> (dtype code, shape, strides) from the annotations PyTorch
    prints in a graph's forward() signature."""
    out = {}
    for m in re.finditer(r'(\w+): "(\w+)\[([^\]]*)\](?:\[([^\]]*)\])?', graph_text):
        name, dt, shape, strides = m.group(1), m.group(2), m.group(3), m.group(4)
        try:
            shp = [int(s) for s in shape.split(",") if s.strip()]
            strd = [int(s) for s in strides.split(",") if s.strip()] if strides is not None else None
        except ValueError:
            shp, strd = None, None
        out.setdefault(name, (FX_DTYPE_CODES.get(dt, dt), shp, strd))
    return out


def find_debug_graph_dirs(debug_root):
    """The per-graph folders of a TORCH_COMPILE_DEBUG run: those holding output_code.py."""
    found = []
    for dirpath, _, files in os.walk(debug_root):
        if "output_code.py" in files:
            found.append(dirpath)
    found.sort()
    return found


# ----------------------------------------------------------------------------
# inductor mode
# ----------------------------------------------------------------------------


def wrap_extern_kernels(rec):
    """Record extern_kernels.* calls (mm, addmm, bmm, convolution, ...) with the
    tensors they get. Returns a function that undoes the wrapping."""
    try:
        from torch._inductor.select_algorithm import extern_kernels
    except Exception as e:
        warn(f"extern_kernels not wrapped: {e}")
        return lambda: None
    originals = {}
    for name in dir(extern_kernels):
        if name.startswith("_"):
            continue
        fn = getattr(extern_kernels, name, None)
        if not callable(fn):
            continue

        def make(name, fn):
            @functools.wraps(fn)
            def wrapped(*args, **kwargs):
                result = fn(*args, **kwargs)
                try:
                    rec.on_extern(name, args, kwargs, result)
                except Exception as e:
                    rec.warn_once("extern-record", f"cannot record extern_kernels.{name}: {e!r}")
                return result
            return wrapped

        try:
            setattr(extern_kernels, name, make(name, fn))
            originals[name] = fn
        except Exception as e:
            rec.warn_once(f"extern-wrap-{name}", f"cannot wrap extern_kernels.{name}: {e!r}")
    log(f"extern_kernels wrapped: {len(originals)} callables ({type(extern_kernels).__name__})")

    def undo():
        for name, fn in originals.items():
            setattr(extern_kernels, name, fn)
    return undo


def capture_inductor(args, dirs, bundle):
    import torch
    rec = Recorder()
    timed = install_hooks(rec)
    import torch._inductor.config as icfg
    for attr, value in (("use_static_cuda_launcher", False), ("compile_threads", 1), ("fx_graph_cache", False)):
        if hasattr(icfg, attr):
            setattr(icfg, attr, value)
            log(f"torch._inductor.config.{attr} = {value}")
        else:
            log(f"torch._inductor.config has no {attr}")

    mod = load_module(args.source)
    patch_jit_instances(mod, timed)
    torch.manual_seed(0)
    init_inputs = list(mod.get_init_inputs())
    model = mod.Model(*init_inputs).cuda().eval()
    torch.manual_seed(1)
    inputs = to_device(list(mod.get_inputs()), "cuda")
    compiled = torch.compile(model, backend="inductor")

    with torch.no_grad():
        t0 = time.perf_counter()
        warm_out = compiled(*inputs)
        torch.cuda.synchronize()
        log(f"first compiled call (compile + autotune) took {time.perf_counter() - t0:.2f}s, "
            f"{rec.launches_seen} launches seen")
        undo = wrap_extern_kernels(rec)
        rec.enabled = True
        try:
            out = compiled(*inputs)
            torch.cuda.synchronize()
        finally:
            rec.enabled = False
            undo()
        ref_out = model(*inputs)
        torch.cuda.synchronize()
    log(f"recorded call: {sum(e['type'] == 'launch' for e in rec.events)} launches, "
        f"{sum(e['type'] == 'extern' for e in rec.events)} extern calls")
    if not rec.events:
        warn("nothing was recorded on the second call; the hooks saw no launch")

    # --- the debug directory ---------------------------------------------
    graph_dirs = find_debug_graph_dirs(dirs["debug"])
    if not graph_dirs:
        raise RuntimeError(f"no output_code.py under the debug directory {dirs['debug']}")
    if len(graph_dirs) > 1:
        warn(f"{len(graph_dirs)} compiled graphs (graph breaks?): {graph_dirs}; using the first with kernels")
    log("debug graph folders: " + ", ".join(os.path.relpath(d, dirs["debug"]) for d in graph_dirs))
    os.makedirs(os.path.join(bundle, "reference"), exist_ok=True)
    os.makedirs(os.path.join(bundle, "host"), exist_ok=True)
    graph_files = {}
    for gi, gd in enumerate(graph_dirs):
        prefix = "" if gi == 0 else f"graph{gi}_"
        listing = sorted(os.listdir(gd))
        log(f"{os.path.relpath(gd, dirs['debug'])}: {listing}")
        for f in listing:
            if f.startswith("fx_graph_") and f.endswith(".py"):
                shutil.copyfile(os.path.join(gd, f), os.path.join(bundle, "reference", prefix + f))
                graph_files.setdefault(gi, []).append(prefix + f)
            elif f in ("ir_pre_fusion.txt", "ir_post_fusion.txt"):
                shutil.copyfile(os.path.join(gd, f), os.path.join(bundle, "host", prefix + f))
        shutil.copyfile(os.path.join(gd, "output_code.py"), os.path.join(bundle, "host", prefix + "output_code.py"))
    main = 0
    graph_name = None
    for cand in ("fx_graph_transformed.py", "fx_graph_readable.py", "fx_graph_runnable.py"):
        if cand in graph_files.get(main, []):
            graph_name = cand
            break
    if graph_name is None:
        raise RuntimeError("no fx_graph_*.py in the debug directory")
    graph_kind = "inductor-post-grad" if graph_name == "fx_graph_transformed.py" else "inductor-pre-grad"
    if graph_kind != "inductor-post-grad":
        warn(f"no fx_graph_transformed.py; using {graph_name} as the reference")
    shutil.copyfile(os.path.join(bundle, "reference", graph_name), os.path.join(bundle, "reference", "graph.py"))
    shutil.copyfile(args.source, os.path.join(bundle, "reference", "source.py"))
    with open(os.path.join(graph_dirs[main], "output_code.py")) as f:
        output_code = f.read()
    with open(os.path.join(bundle, "reference", "graph.py")) as f:
        graph_text = f.read()
    parsed = parse_output_code(output_code)
    log(f"output_code.py: {len(parsed['kernels'])} kernels, {len(parsed['steps'])} steps in call(), "
        f"placeholders {parsed['placeholders']}, outputs {[o.get('name') for o in parsed['outputs']]}, "
        f"grids shown: {parsed['grid_in_output_code']}")

    # --- pair the recorded events with call()'s lines ----------------------
    launches_by_name, externs_by_func = {}, {}
    for ev in rec.events:
        if ev["type"] == "launch":
            launches_by_name.setdefault(ev["kernel"]["name"] if ev["kernel"] else None, []).append(ev)
        else:
            externs_by_func.setdefault(ev["func"], []).append(ev)

    runtime_of = {}  # output-code name -> runtime tensor description of the whole tensor

    def note_runtime(spec, rt):
        if spec and "name" in spec and rt and rt["kind"] == "tensor" and "view" not in spec:
            runtime_of.setdefault(spec["name"], rt)
        elif spec and "name" in spec and rt and rt["kind"] == "tensor":
            runtime_of.setdefault("@storage:" + spec["name"], rt)

    index = index_triton_cache([dirs["triton_cache"], dirs["inductor_cache"]])
    log(f"Triton cache holds {len(index)} compiled kernels")
    used_dirs = {}
    steps = []
    for st in parsed["steps"]:
        if st["kind"] == "launch":
            kinfo = parsed["kernels"][st["var"]]
            kname = kinfo["name"] or st["var"]
            queue = launches_by_name.get(kname, [])
            ev = queue.pop(0) if queue else None
            info = ev["kernel"] if ev else None
            if ev is None:
                warn(f"{kname}: launched in call() but no launch was recorded; using the cache's metadata")
                cands = [(h, e) for h, e in index.items() if e[1] == kname]
                if cands:
                    h, (_, _, md) = cands[-1]
                    info = {"name": kname, "hash": h, "signature": [], "constants": {},
                            "num_warps": md.get("num_warps"), "num_stages": md.get("num_stages"),
                            "source_file": None, "source_line": None}
            params = kinfo["params"]
            if params is None and info:
                params = [(n, t == "constexpr") for n, t in info["signature"]]
            runtime_params = [p for p, is_constexpr in (params or []) if not is_constexpr]
            named = dict(zip(runtime_params, st["args"]))
            if len(st["args"]) != len(runtime_params):
                warn(f"{kname}: {len(st['args'])} arguments in call(), {len(runtime_params)} non-constexpr "
                     f"parameters in the kernel")
            rt_args = ev["args"] if ev else []
            if info and info["signature"]:
                for i, (pname, _) in enumerate(info["signature"]):
                    if i < len(rt_args):
                        note_runtime(named.get(pname), rt_args[i])

            def resolve(pname, rt, spec):
                if spec is None or "name" not in spec:
                    return {"tensor": None, "note": f"call() passes {spec}"}
                e = {"tensor": spec["name"], "element_offset": 0}
                if "view" in spec:
                    e["element_offset"] = spec["view"]["offset"]
                    e["view"] = spec["view"]
                return e

            kdir, files, md = copy_kernel_files(index, info, bundle, used_dirs) if info else (None, {}, {})
            step = {
                "kind": "launch",
                "kernel": kname,
                "files": files,
                "grid": ev["grid"] if ev else None,
                "num_warps": (info or {}).get("num_warps") or md.get("num_warps"),
                "num_stages": (info or {}).get("num_stages") or md.get("num_stages"),
                "compile_time_s": rec.compile_times.get((info or {}).get("hash")),
                "hash": (info or {}).get("hash"),
                "triton_cache_key": md.get("_cache_key"),
                "host_line": st["lineno"],
                "args": kernel_arg_entries(info, rt_args, resolve, named) if info and info["signature"] else
                [{"name": p, "type": "?", **({"tensor": s["name"]} if "name" in s else {"value": s.get("value")})}
                 for p, s in named.items()],
            }
            if st.get("grid_expr"):
                step["grid_expr"] = st["grid_expr"]
            if kdir:
                src = copy_kernel_source(info, bundle, kdir, None)
                if src is None and kinfo["source"]:
                    p = os.path.join("kernels", kdir, f"{kname}.py")
                    with open(os.path.join(bundle, p), "w") as f:
                        f.write(kinfo["source"])
                    src = {"path": p, "original_path": None, "line": None}
                step["source"] = src
            steps.append(step)
        else:
            func = st["func"]
            queue = externs_by_func.get(func, [])
            ev = queue.pop(0) if queue else None
            if ev:
                for spec, rt in zip(st["args"], ev["args"]):
                    note_runtime(spec, rt)
                for k, spec in st["kwargs"].items():
                    note_runtime(spec, ev["kwargs"].get(k))
                if st["target"] and ev["result"]["kind"] == "tensor":
                    note_runtime({"name": st["target"]}, ev["result"])
            elif st["call"].startswith("extern_kernels."):
                warn(f"{st['call']} at output_code.py:{st['lineno']} was not recorded at run time")
            step_inputs, views, other = [], {}, {}
            for i, spec in enumerate(st["args"]):
                if "name" in spec:
                    if "view" in spec:
                        views[str(len(step_inputs))] = spec["view"]
                    step_inputs.append(spec["name"])
                else:
                    other.setdefault("positional", []).append({"index": i, **spec})
            output = st["target"]
            for k, spec in st["kwargs"].items():
                if k == "out" and "name" in spec:
                    output = spec["name"]
                    if "view" in spec:
                        other["out_view"] = spec["view"]
                elif "name" in spec:
                    views[k] = spec.get("view")
                    other[k] = {"tensor": spec["name"]}
                else:
                    other[k] = spec.get("value", spec.get("expr"))
            if views:
                other["input_views"] = views
            op = EXTERN_OPS.get(func, func if func.startswith(("torch.ops.", "aten.")) else f"extern.{func}")
            if op.startswith("torch.ops."):
                op = op[len("torch.ops."):]
            steps.append({"kind": "extern", "op": op, "call": st["call"], "inputs": step_inputs, "output": output,
                          "args": other, "host_line": st["lineno"]})
    for kname, queue in launches_by_name.items():
        for ev in queue:
            warn(f"recorded launch of {kname} matches no line of call()")
    for func, queue in externs_by_func.items():
        for ev in queue:
            warn(f"recorded extern_kernels.{func} matches no line of call()")

    # --- tensors and their roles -------------------------------------------
    placeholder_types = fx_placeholder_types(graph_text)
    input_ptrs = {t.untyped_storage().data_ptr(): i for i, t in enumerate(inputs) if isinstance(t, torch.Tensor)}
    param_ptrs = {}
    for n, p in list(model.named_parameters()) + list(model.named_buffers()):
        param_ptrs.setdefault(p.untyped_storage().data_ptr(), n)
    outs = flatten_tensors(out)
    output_names = [o.get("name") for o in parsed["outputs"]]
    names = list(parsed["placeholders"])
    for st in steps:
        for a in st.get("args", []) if st["kind"] == "launch" else []:
            if a.get("tensor") and a["tensor"] not in names:
                names.append(a["tensor"])
        if st["kind"] == "extern":
            for n in st["inputs"] + ([st["output"]] if st["output"] else []):
                if n not in names:
                    names.append(n)
    for n in output_names:
        if n and n not in names:
            names.append(n)
    tensors = {}
    for n in names:
        meta = parsed["tensors"].get(n) or parsed["tensors"].get(parsed["aliases"].get(n), {})
        rt = runtime_of.get(n)
        ph = placeholder_types.get(n)
        t = {
            "dtype": rt["dtype"] if rt else meta.get("dtype") or (ph[0] if ph else None),
            "shape": rt["shape"] if rt else meta.get("shape") or (ph[1] if ph else None),
            "strides": rt["strides"] if rt else meta.get("strides") or (ph[2] if ph else None),
            "offset": rt["offset"] if rt else meta.get("offset", 0),
        }
        storage = (rt or runtime_of.get("@storage:" + n) or {}).get("storage_ptr")
        if n in output_names:
            t["role"] = "output"
            t["output_index"] = output_names.index(n)
        elif storage is not None and storage in input_ptrs:
            t["role"] = "input"
            t["input_index"] = input_ptrs[storage]
        elif storage is not None and storage in param_ptrs:
            t["role"] = "param"
            t["param"] = param_ptrs[storage]
        elif n in parsed["placeholders"]:
            t["role"] = "input"
            warn(f"placeholder {n} matched no input or parameter at run time")
        else:
            t["role"] = "intermediate"
        if n in parsed["aliases"]:
            t["alias_of"] = parsed["aliases"][n]
        if t["dtype"] is None:
            warn(f"no dtype known for tensor {n}")
        tensors[n] = t

    diff, why = max_abs_diff(ref_out, out)
    manifest = {
        "format": BUNDLE_FORMAT,
        "version": BUNDLE_VERSION,
        "name": args.name,
        "origin": origin_info("inductor"),
        "reference": {
            "graph": "reference/graph.py",
            "graph_kind": graph_kind,
            "graph_file": f"reference/{graph_name}",
            "other_graphs": [f"reference/{f}" for fs in graph_files.values() for f in fs],
            "source": "reference/source.py",
            "params": init_params(mod.Model, init_inputs),
            "inputs": [{"placeholder": p, "tensor": p} for p in parsed["placeholders"]],
            "outputs": [o.get("name") for o in parsed["outputs"]],
        },
        "host": {"output_code": "host/output_code.py",
                 "grid_in_output_code": parsed["grid_in_output_code"]},
        "tensors": tensors,
        "steps": steps,
        "numeric": {"max_abs_diff": jsonable(diff), "note": why or "compiled vs eager, same inputs"},
        "capture": {"hooks": rec.hooks, "debug_graph_dirs": [os.path.relpath(d, dirs["debug"]) for d in graph_dirs]},
    }
    if len(flatten_tensors(warm_out)) != len(outs):
        warn("the two compiled calls returned different numbers of tensors")
    return manifest


# ----------------------------------------------------------------------------
# launches mode
# ----------------------------------------------------------------------------


ROLE_PRIORITY = {"output": 0, "input": 1, "param": 2, "intermediate": 3, "scratch": 4}


class TensorTable:
    """Named tensors of a launch bundle, found by the storage a pointer lies in."""

    def __init__(self):
        self.entries = []
        self.counters = {}

    def add(self, t, role, name=None, **extra):
        st = t.untyped_storage()
        e = {"name": name, "role": role, "obj": t, "ptr": t.data_ptr(), "storage_ptr": st.data_ptr(),
             "storage_nbytes": st.nbytes(), "dtype": dtype_code(t.dtype), "shape": list(t.shape),
             "strides": list(t.stride()), "offset": t.storage_offset(), "itemsize": t.element_size()}
        e.update(extra)
        self.entries.append(e)
        return e

    def containing(self, ptr):
        best = None
        for e in self.entries:
            if e["storage_ptr"] <= ptr < e["storage_ptr"] + max(e["storage_nbytes"], 1):
                key = (ROLE_PRIORITY[e["role"]], e["ptr"] != ptr)
                if best is None or key < best[0]:
                    best = (key, e)
        return best[1] if best else None

    def resolve_tensor(self, rt, create_role):
        """(entry, view or None) for a runtime tensor description."""
        e = self.containing(rt["ptr"])
        if e is None:
            if create_role is None:
                return None, None
            e = self.add(rt["obj"], create_role)
            return e, None
        same = (e["dtype"] == rt["dtype"] and e["shape"] == rt["shape"] and e["strides"] == rt["strides"]
                and e["storage_ptr"] == rt["storage_ptr"] and e["offset"] == rt["offset"])
        if same:
            return e, None
        return e, {"dtype": rt["dtype"], "shape": rt["shape"], "strides": rt["strides"],
                   "element_offset": self.element_offset(e, rt["ptr"])}

    @staticmethod
    def element_offset(e, ptr):
        delta = ptr - e["ptr"]
        if delta % e["itemsize"]:
            return {"bytes": delta}
        return delta // e["itemsize"]

    def assign_names(self):
        for e in self.entries:
            if e["name"] is None:
                prefix = {"intermediate": "t", "scratch": "scratch", "output": "output"}[e["role"]]
                k = self.counters.get(prefix, 0)
                self.counters[prefix] = k + 1
                e["name"] = f"{prefix}{k}"


def plain_value(d):
    """The JSON value of a recorded non-tensor argument."""
    if d["kind"] == "tuple":
        return [plain_value(x) for x in d["items"]]
    if d["kind"] == "scalar":
        return jsonable(d["value"])
    if d["kind"] == "none":
        return None
    if d["kind"] == "tensor":
        return f"<tensor {d['dtype']}{d['shape']}>"
    return jsonable(d.get("repr"))


def aliases_an_input(ev):
    """An out-of-place op whose every output lives in an input's storage only
    renames memory (aten._unsafe_view, reshape of a contiguous tensor)."""
    if ev["packet"].endswith("_") or "out" in ev["kwargs"]:
        return False
    outs = ev["result"]["items"] if ev["result"]["kind"] == "tuple" else [ev["result"]]
    outs = [o for o in outs if o["kind"] == "tensor"]
    ins = {it["storage_ptr"] for a in ev["args"] + list(ev["kwargs"].values())
           for it in (a["items"] if a["kind"] == "tuple" else [a]) if it["kind"] == "tensor"}
    return bool(outs) and all(o["storage_ptr"] in ins for o in outs)


def make_dispatch_recorder(rec):
    """A TorchDispatchMode that records the aten ops ModelNew runs around its
    kernel launches (the matmul that feeds a kernel, a torch.empty output)."""
    from torch.utils._python_dispatch import TorchDispatchMode

    class OpRecorder(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            result = func(*args, **kwargs)
            if rec.enabled:
                try:
                    packet = func.overloadpacket.__name__
                    is_view = bool(getattr(func, "is_view", False))
                    rec.events.append({
                        "type": "op",
                        "op": str(func),
                        "packet": packet,
                        "is_view": is_view,
                        "args": [describe_runtime_arg(a) for a in args],
                        "kwargs": {k: describe_runtime_arg(v) for k, v in kwargs.items()},
                        "result": describe_runtime_arg(result),
                    })
                except Exception as e:
                    rec.warn_once("op-record", f"cannot record {func}: {e!r}")
            return result

    return OpRecorder()


def export_reference(model, inputs, bundle):
    """reference/graph.py from torch.export (core aten), make_fx as a fallback.
    Returns (graph_kind, input bindings, output bindings)."""
    import torch
    ref_dir = os.path.join(bundle, "reference")
    try:
        ep = torch.export.export(model, tuple(inputs))
        ep = ep.run_decompositions()
        with open(os.path.join(ref_dir, "graph.py"), "w") as f:
            f.write(ep.graph_module.print_readable(print_output=False))
        with open(os.path.join(ref_dir, "exported_program.txt"), "w") as f:
            f.write(str(ep))
        bindings, user_index = [], 0
        for spec in ep.graph_signature.input_specs:
            kind = getattr(spec.kind, "name", str(spec.kind))
            name = getattr(spec.arg, "name", str(spec.arg))
            if kind == "USER_INPUT":
                bindings.append({"placeholder": name, "tensor": f"input{user_index}", "kind": "user_input"})
                user_index += 1
            else:
                bindings.append({"placeholder": name, "tensor": spec.target, "kind": kind.lower()})
        outputs = []
        for i, spec in enumerate(s for s in ep.graph_signature.output_specs
                                 if getattr(s.kind, "name", "") == "USER_OUTPUT"):
            outputs.append({"node": getattr(spec.arg, "name", str(spec.arg)), "tensor": f"output{i}"})
        log("reference traced with torch.export + run_decompositions")
        return "export-aten", bindings, outputs
    except Exception as e:
        warn(f"torch.export failed ({e!r}); falling back to make_fx")
    from torch.fx.experimental.proxy_tensor import make_fx
    try:
        from torch._decomp import core_aten_decompositions
        decomp = core_aten_decompositions()
    except Exception:
        decomp = None
    gm = make_fx(lambda *a: model(*a), decomposition_table=decomp)(*inputs)
    with open(os.path.join(ref_dir, "graph.py"), "w") as f:
        f.write(gm.print_readable(print_output=False))
    phs = [n.name for n in gm.graph.nodes if n.op == "placeholder"]
    bindings = [{"placeholder": p, "tensor": f"input{i}", "kind": "user_input"} for i, p in enumerate(phs)]
    return "make-fx-aten", bindings, [{"node": None, "tensor": "output0"}]


def capture_launches(args, dirs, bundle):
    import torch
    rec = Recorder()
    timed = install_hooks(rec)
    mod = load_module(args.source)
    patch_jit_instances(mod, timed)

    torch.manual_seed(0)
    init_inputs = list(mod.get_init_inputs())
    ref_model = mod.Model(*init_inputs).cuda().eval()
    torch.manual_seed(0)
    new_model = mod.ModelNew(*init_inputs).cuda().eval()
    ref_sd, new_sd = ref_model.state_dict(), new_model.state_dict()
    if ref_sd and set(ref_sd) == set(new_sd):
        new_model.load_state_dict(ref_sd)
        log(f"copied Model's state_dict into ModelNew ({len(ref_sd)} entries)")
    elif ref_sd or new_sd:
        warn(f"state_dict keys differ: Model {sorted(ref_sd)} ModelNew {sorted(new_sd)}; not copied")
    torch.manual_seed(1)
    inputs = to_device(list(mod.get_inputs()), "cuda")

    with torch.no_grad():
        ref_out = ref_model(*inputs)
        t0 = time.perf_counter()
        new_model(*inputs)
        torch.cuda.synchronize()
        log(f"warm-up call (compile + autotune) took {time.perf_counter() - t0:.2f}s, "
            f"{rec.launches_seen} launches seen")
        mode = None
        try:
            mode = make_dispatch_recorder(rec)
        except Exception as e:
            warn(f"torch ops around the kernels are not recorded: {e!r}")
        rec.enabled = True
        try:
            if mode is not None:
                with mode:
                    out = new_model(*inputs)
            else:
                out = new_model(*inputs)
            torch.cuda.synchronize()
        finally:
            rec.enabled = False
    n_launch = sum(e["type"] == "launch" for e in rec.events)
    log(f"recorded call: {n_launch} launches, {sum(e['type'] == 'op' for e in rec.events)} torch ops")
    if n_launch == 0:
        warn("no kernel launch was recorded")

    os.makedirs(os.path.join(bundle, "reference"), exist_ok=True)
    shutil.copyfile(args.source, os.path.join(bundle, "reference", "source.py"))
    graph_kind, bindings, out_bindings = export_reference(ref_model, inputs, bundle)

    # --- the tensor table ----------------------------------------------------
    table = TensorTable()
    outs = flatten_tensors(out)
    for i, t in enumerate(outs):
        table.add(t, "output", f"output{i}", output_index=i)
    for i, t in enumerate(inputs):
        if isinstance(t, torch.Tensor):
            table.add(t, "input", f"input{i}", input_index=i)
    for n, p in list(new_model.named_parameters()) + list(new_model.named_buffers()):
        table.add(p.detach(), "param", n, param=n)

    index = index_triton_cache([dirs["triton_cache"]])
    log(f"Triton cache holds {len(index)} compiled kernels")
    used_dirs = {}
    steps = []
    pending = []  # entries referenced by steps, to be named at the end

    def ref_of(e):
        pending.append(e)
        return e

    for ev in rec.events:
        if ev["type"] == "op":
            packet = ev["packet"]
            if packet in NO_VALUE_OPS:
                continue
            res = [r for r in ([ev["result"]] if ev["result"]["kind"] != "tuple" else ev["result"]["items"])
                   if r["kind"] == "tensor"]
            if packet in ALLOC_OPS:
                for r in res:
                    table.resolve_tensor(r, "scratch")
                continue
            if ev["is_view"] or aliases_an_input(ev):
                continue
            inputs_named, views, other = [], {}, {}
            for i, a in enumerate(ev["args"]):
                items = a["items"] if a["kind"] == "tuple" else [a]
                if not any(it["kind"] == "tensor" for it in items):
                    other.setdefault("positional", []).append({"index": i, "value": plain_value(a)})
                    continue
                for it in items:
                    if it["kind"] == "tensor":
                        e, v = table.resolve_tensor(it, "scratch")
                        inputs_named.append(ref_of(e))
                        if v:
                            views[str(len(inputs_named) - 1)] = v
                    else:
                        other.setdefault("positional", []).append({"index": i, "value": plain_value(it)})
            for k, a in ev["kwargs"].items():
                if a["kind"] == "tensor":
                    e, v = table.resolve_tensor(a, "scratch")
                    other[k] = {"tensor": ref_of(e)}
                    if v:
                        views[k] = v
                else:
                    other[k] = plain_value(a)
            outputs_named = []
            for r in res:
                e, v = table.resolve_tensor(r, None)
                if e is None:
                    e = table.add(r["obj"], "intermediate")
                elif v:
                    other.setdefault("output_views", {})[str(len(outputs_named))] = v
                outputs_named.append(ref_of(e))
            if views:
                other["input_views"] = views
            steps.append({"kind": "extern", "op": ev["op"].rsplit(".", 1)[0] if ev["op"].count(".") >= 2
                          else ev["op"], "overload": ev["op"], "call": "torch", "inputs": inputs_named,
                          "output": outputs_named[0] if len(outputs_named) == 1 else outputs_named,
                          "args": other})
        elif ev["type"] == "launch":
            info = ev["kernel"]

            def resolve(pname, rt, spec):
                if rt is None:
                    return {"tensor": None}
                if rt["kind"] == "tensor":
                    e, v = table.resolve_tensor(rt, "scratch")
                    r = {"tensor": ref_of(e), "element_offset": table.element_offset(e, rt["ptr"])}
                    if v:
                        r["view"] = v
                    return r
                if rt["kind"] == "pointer":
                    e = table.containing(rt["ptr"])
                    if e is None:
                        return {"scratch_bytes": None, "pointer": hex(rt["ptr"])}
                    return {"tensor": ref_of(e), "element_offset": table.element_offset(e, rt["ptr"])}
                if rt["kind"] == "none":
                    return {"tensor": None, "value": None}
                return {"tensor": None, "value": jsonable(rt.get("value", rt.get("repr")))}

            kdir, files, md = copy_kernel_files(index, info, bundle, used_dirs) if info else (None, {}, {})
            step = {
                "kind": "launch",
                "kernel": info["name"] if info else None,
                "files": files,
                "grid": ev["grid"],
                "num_warps": (info or {}).get("num_warps") or md.get("num_warps"),
                "num_stages": (info or {}).get("num_stages") or md.get("num_stages"),
                "compile_time_s": rec.compile_times.get((info or {}).get("hash")),
                "hash": (info or {}).get("hash"),
                "triton_cache_key": md.get("_cache_key"),
                "args": kernel_arg_entries(info, ev["args"], resolve),
            }
            if kdir:
                step["source"] = copy_kernel_source(info, bundle, kdir, args.source)
            steps.append(step)

    table.assign_names()

    def name_refs(x):
        if isinstance(x, dict):
            if "obj" in x and "role" in x:
                return x["name"]
            return {k: name_refs(v) for k, v in x.items()}
        if isinstance(x, list):
            return [name_refs(v) for v in x]
        return x

    steps = name_refs(steps)
    tensors = {}
    for e in table.entries:
        if e["role"] in ("intermediate", "scratch") and not any(e is p for p in pending):
            continue
        t = {"dtype": e["dtype"], "shape": e["shape"], "strides": e["strides"], "offset": e["offset"],
             "role": e["role"]}
        for k in ("input_index", "output_index", "param"):
            if k in e:
                t[k] = e[k]
        tensors[e["name"]] = t

    diff, why = max_abs_diff(ref_out, out)
    manifest = {
        "format": BUNDLE_FORMAT,
        "version": BUNDLE_VERSION,
        "name": args.name,
        "origin": origin_info("launches"),
        "reference": {
            "graph": "reference/graph.py",
            "graph_kind": graph_kind,
            "source": "reference/source.py",
            "params": init_params(mod.Model, init_inputs),
            "inputs": bindings,
            "outputs": [o["tensor"] for o in out_bindings],
            "output_nodes": [o["node"] for o in out_bindings],
        },
        "tensors": tensors,
        "steps": steps,
        "numeric": {"max_abs_diff": jsonable(diff),
                    "note": why or "Model vs ModelNew on the same inputs; informational only"},
        "capture": {"hooks": rec.hooks},
    }
    return manifest


# ----------------------------------------------------------------------------
# main
# ----------------------------------------------------------------------------


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mode", choices=["inductor", "launches"])
    ap.add_argument("source", help="the module (inductor) or script (launches) to capture")
    ap.add_argument("-o", "--out", required=True, help="bundle directory to create")
    ap.add_argument("--name", help="bundle name (default: the source file's stem)")
    ap.add_argument("--keep-raw", action="store_true",
                    help="also copy the debug and cache directories (no binaries) to OUT/raw/")
    ap.add_argument("--scratch", help="where the fresh cache and debug directories go (default: a temp dir)")
    args = ap.parse_args(argv)
    args.source = os.path.abspath(args.source)
    args.name = args.name or os.path.splitext(os.path.basename(args.source))[0]
    bundle = os.path.abspath(args.out)
    if os.path.exists(bundle):
        shutil.rmtree(bundle)
    os.makedirs(bundle)
    scratch = args.scratch or tempfile.mkdtemp(prefix=f"stagecheck-{args.name}-")
    log(f"capturing {args.source} ({args.mode}) into {bundle}; scratch {scratch}")
    dirs = prepare_environment(args.mode, scratch)

    t0 = time.perf_counter()
    import torch  # noqa: F401  (after the environment is set)
    log(f"torch {torch.__version__} cuda {torch.version.cuda} available={torch.cuda.is_available()}")
    if not torch.cuda.is_available():
        log("no CUDA device")
        return 2
    if args.mode == "inductor":
        manifest = capture_inductor(args, dirs, bundle)
    else:
        manifest = capture_launches(args, dirs, bundle)
    manifest["capture"]["seconds"] = round(time.perf_counter() - t0, 2)
    write_json(os.path.join(bundle, "manifest.json"), jsonable(manifest))
    if args.keep_raw:
        copy_raw(dirs, bundle)
    n_launch = sum(1 for s in manifest["steps"] if s["kind"] == "launch")
    n_ext = sum(1 for s in manifest["steps"] if s["kind"] == "extern")
    missing = [s["kernel"] for s in manifest["steps"] if s["kind"] == "launch" and len(s.get("files", {})) < 5]
    log(f"bundle {args.name}: {n_launch} launches, {n_extern_str(n_ext)}, tensors {sorted(manifest['tensors'])}, "
        f"max_abs_diff {manifest['numeric']['max_abs_diff']}")
    if missing:
        warn(f"launches without all five stage files: {missing}")
        return 1
    if n_launch == 0:
        warn("the bundle has no kernel launch")
        return 1
    return 0


def n_extern_str(n):
    return f"{n} extern step" + ("" if n == 1 else "s")


if __name__ == "__main__":
    try:
        sys.exit(main())
    except SystemExit:
        raise
    except BaseException:
        log("FAILED:\n" + traceback.format_exc())
        sys.exit(1)
