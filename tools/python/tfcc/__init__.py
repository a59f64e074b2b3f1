"""Run tfcc-compiled models from Python (ctypes + numpy).

`tfcc model.mlir -o model.so` builds a shared library whose reflective table
(`<prefix>_info`) describes every entry point; this package loads any such
library and calls its entries with numpy arrays:

    import numpy as np
    import tfcc

    with tfcc.load("mnist_cnn.so", threads=4) as m:
        print(m.entries)                      # names, dtypes, shapes
        probs = m.predict(np.zeros((8, 28, 28, 1), np.float32))
        probs = m.run("predict", image=np.zeros((1, 28, 28, 1)))

    t = tfcc.load("mnist_cnn_train.so")       # a model with a training step
    loss = t.train_step(images, labels)
    t.save_checkpoint("ckpt.bin")
    w = t.get_variable("dense1_kernel")

Shapes: the batch is `None` in an entry's description and any size >= 1 in a
call (the same for every input); named dimensions (tfcc --dim-bound) are their
names and take any value in [1, bound]. bf16 arguments and variables take and
give float arrays (rounded to nearest even on the way in, widened exactly to
float32 on the way out). Errors: ValueError for wrong arguments (named after
the entry and the input), tfcc.Error for a failed call of the model.
See docs/python.md.
"""
import ctypes
import errno
import os
import threading
from collections import namedtuple

import numpy as np

from . import _abi, _elf

__all__ = ["load", "Model", "Error", "Arg", "Entry", "Variable", "Dim"]

Arg = namedtuple("Arg", "name dtype shape tfcc_dtype")
Arg.__doc__ = """An input or output of an entry: its name, the numpy dtype of
the arrays it takes or gives (float32 for bf16), its shape (None for the
batch, a string for a named dimension) and its tfcc dtype name ('f32',
'bf16', ...)."""
Entry = namedtuple("Entry", "name inputs outputs")
Entry.__doc__ = "An entry point: its name and its inputs and outputs (Arg lists)."
Variable = namedtuple("Variable", "name dtype shape trainable tfcc_dtype")
Variable.__doc__ = """A variable of a training model's state (weights,
optimizer slots, the step counter)."""
Dim = namedtuple("Dim", "name bound derived")
Dim.__doc__ = """A named dimension: its name, largest value and whether an
output's size derived from the others (set by the model, not the caller)."""


class Error(RuntimeError):
    """A call of the compiled model failed: `status` (the tfcc_status_t
    number), `status_string` ("out of range", ...) and `message` (what the
    model's context says)."""

    def __init__(self, what, status, status_string, message):
        text = f"{what}: {status_string}"
        if message:
            text += f": {message}"
        super().__init__(text)
        self.status, self.status_string, self.message = status, status_string, message


def load(path, threads=1, max_batch=None, prefix=None):
    """Loads the tfcc model in the shared library `path`.

    threads: threads of each call (the calling thread plus threads - 1
    workers of a pool the model's context owns). max_batch: the batch the
    first context is created for (it grows when a call needs more). prefix:
    the model's symbol prefix, needed only when the library holds several
    models (the first in name order otherwise).
    """
    return Model(path, threads=threads, max_batch=max_batch, prefix=prefix)


class Model:
    """A loaded tfcc model. Entries are methods by name (`m.predict(x)`) and
    `m.run(name, ...)`; see the module docstring."""

    def __init__(self, path, threads=1, max_batch=None, prefix=None):
        self._ctx = None
        self._closed = False
        self._profiling = False
        path = os.fspath(path)
        if not os.path.exists(path):
            raise FileNotFoundError(errno.ENOENT, "No such tfcc model file", path)
        if not (isinstance(threads, int) and threads >= 1):
            raise ValueError(f"threads must be an integer >= 1, got {threads!r}")
        if max_batch is not None and not (isinstance(max_batch, int) and max_batch >= 1):
            raise ValueError(f"max_batch must be an integer >= 1, got {max_batch!r}")
        prefixes = _elf.model_prefixes(_elf.dynamic_symbols(path))
        if not prefixes:
            raise ValueError(f"{path!r} exports no tfcc model (no <prefix>_info, "
                             "<prefix>_invoke and <prefix>_create)")
        if prefix is None:
            prefix = prefixes[0]
        elif prefix not in prefixes:
            raise ValueError(f"{path!r} exports no tfcc model with prefix {prefix!r} "
                             f"(it has: {', '.join(prefixes)})")
        try:
            self._lib = ctypes.CDLL(os.path.abspath(path), mode=os.RTLD_NOW | os.RTLD_LOCAL)
        except OSError as e:
            raise OSError(f"cannot load {path!r}: {e}") from None
        self.path, self.prefix, self.threads = path, prefix, threads
        self._max_batch = max_batch or 1
        self._lock = threading.RLock()
        self._fn = {}
        info_fn = self._bind("_info", _abi.FUNCTIONS["_info"])
        address = info_fn()
        # The version first: another ABI's table may have another layout.
        version = ctypes.c_uint32.from_address(address).value
        if version != _abi.ABI_VERSION:
            raise ValueError(f"{path!r} was built for tfcc runtime ABI {version}, but "
                             f"this package reads ABI {_abi.ABI_VERSION}: rebuild the "
                             "model with this tfcc or use a matching package")
        for suffix, signature in _abi.FUNCTIONS.items():
            if self._bind(suffix, signature) is None:
                raise ValueError(f"{path!r} lacks {prefix}{suffix} of the tfcc C API")
        for suffix, signature in _abi.TRAINING_FUNCTIONS.items():
            self._bind(suffix, signature)
        self._info = _abi.ModelInfo.from_address(address)
        self._read_table()
        self.kernels_isa = self._fn["_kernels_isa"]().decode()

    def _bind(self, suffix, signature):
        try:
            fn = getattr(self._lib, self.prefix + suffix)
        except AttributeError:
            return None
        fn.restype, fn.argtypes = signature
        self._fn[suffix] = fn
        return fn

    # -- the reflective table --------------------------------------------------

    def _read_table(self):
        info = self._info
        self.name = info.name.decode()
        self.weight_bytes = info.weight_bytes
        self.state_bytes = info.state_bytes
        self.dims = [Dim(info.dim_names[k].decode(), info.dim_bounds[k],
                         bool(info.dim_flags[k] & _abi.DIM_DERIVED))
                     for k in range(info.num_dims)]
        self.entries = []
        self._entry_index = {}
        for i in range(info.num_entries):
            e = info.entries[i]
            entry = Entry(e.name.decode(),
                          [self._arg(e.inputs[k]) for k in range(e.num_inputs)],
                          [self._arg(e.outputs[k]) for k in range(e.num_outputs)])
            self.entries.append(entry)
            self._entry_index[entry.name] = i
        self.variables = []
        for i in range(info.num_variables):
            v = info.variables[i]
            self.variables.append(Variable(
                v.name.decode(), _user_dtype(v.dtype),
                tuple(v.dims[d] for d in range(v.rank)), bool(v.trainable),
                _abi.DTYPES[v.dtype][0]))
        self._variable_index = {v.name: i for i, v in enumerate(self.variables)}

    def _arg(self, a):
        shape = []
        for d in range(a.rank):
            n = a.dims[d]
            shape.append(None if n == _abi.DIM_DYNAMIC else
                         self.dims[-2 - n].name if n < _abi.DIM_DYNAMIC else n)
        return Arg(a.name.decode(), _user_dtype(a.dtype), tuple(shape),
                   _abi.DTYPES[a.dtype][0])

    def __repr__(self):
        def sig(args):
            return ", ".join(f"{a.name}: {a.tfcc_dtype}{_shape_text(a.shape)}" for a in args)
        lines = [f"<tfcc.Model {self.name!r} from {self.path!r} ({self.kernels_isa})"]
        lines += [f"  {e.name}({sig(e.inputs)}) -> ({sig(e.outputs)})" for e in self.entries]
        return "\n".join(lines) + ">"

    def __dir__(self):
        return sorted(set(super().__dir__()) | {e.name for e in self.entries})

    # -- calls -----------------------------------------------------------------

    def __getattr__(self, name):
        # Only reached when normal lookup fails: class attributes (run, close,
        # ...) win over entries of the same name, which run() still calls.
        entries = self.__dict__.get("_entry_index")
        if name.startswith("_") or entries is None or name not in entries:
            raise AttributeError(f"{type(self).__name__} object has no attribute or "
                                 f"entry {name!r}")

        def call(*inputs, **named):
            return self.run(name, *inputs, **named)
        call.__name__ = call.__qualname__ = name
        call.__doc__ = f"Runs entry {name!r} of model {self.name!r}."
        return call

    def run(self, entry, /, *inputs, **named):
        """Runs entry `entry` (its name) on `inputs` (in argument order, or by
        name as keywords). Returns its output, a tuple of its outputs when it
        has several, or None when it has none."""
        if entry not in self._entry_index:
            raise ValueError(f"model {self.name!r} has no entry {entry!r} (entries: "
                             f"{', '.join(e.name for e in self.entries)})")
        index = self._entry_index[entry]
        desc = self.entries[index]
        arrays = self._gather(desc, inputs, named)
        c_entry = self._info.entries[index]
        values = [0] * (1 + len(self.dims))  # dims[0] the batch, dims[k] named k
        given = [None] * len(values)         # the input that set each
        for k, (a, arg) in enumerate(zip(arrays, desc.inputs)):
            c_arg = c_entry.inputs[k]
            arrays[k] = a = _convert(a, c_arg.dtype, f"input {arg.name!r} of {entry}")
            self._check_shape(entry, arg, a.shape, c_arg, values, given)
        if given[0] is None:
            values[0] = 1  # no input has a batch
        batch = values[0]
        with self._lock:
            ctx = self._reserve(batch)
            dims = (ctypes.c_int64 * len(values))(*values)
            status = self._fn["_resolve_dims"](index, ctx, dims)
            if status != 0:
                # Inputs too small for an output (a derived dimension below 1).
                raise ValueError(f"inputs of {entry}: {self._status_text(status, ctx)}")
            outputs, out_ptrs = [], (ctypes.c_void_p * max(1, len(desc.outputs)))()
            for k in range(c_entry.num_outputs):
                c_arg = c_entry.outputs[k]
                shape = tuple(dims[0] if n == _abi.DIM_DYNAMIC else dims[-1 - n]
                              if n < _abi.DIM_DYNAMIC else n
                              for n in (c_arg.dims[d] for d in range(c_arg.rank)))
                raw = _abi.DTYPES[c_arg.dtype][1]
                # No NULL buffers: an empty output gets one element of storage.
                storage = np.empty(max(1, int(np.prod(shape))), raw)
                outputs.append((storage, shape, c_arg.dtype))
                out_ptrs[k] = storage.ctypes.data
            in_ptrs = (ctypes.c_void_p * max(1, len(arrays)))()
            keep = [np.empty(1, np.uint64) if a.nbytes == 0 else a for a in arrays]
            for k, a in enumerate(keep):
                in_ptrs[k] = a.ctypes.data
            status = self._fn["_invoke_dims"](index, ctx, dims, in_ptrs, out_ptrs)
            self._raise_for(status, entry, ctx)
        results = []
        for storage, shape, dtype in outputs:
            a = storage[:int(np.prod(shape))].reshape(shape)
            results.append(_abi.float_from_bf16(a) if dtype == _abi.BF16 else a)
        if not results:
            return None
        return results[0] if len(results) == 1 else tuple(results)

    def _gather(self, desc, inputs, named):
        n = len(desc.inputs)
        names = [a.name for a in desc.inputs]
        expects = f"{desc.name} takes {n} input{'' if n == 1 else 's'} ({', '.join(names)})"
        if len(inputs) > n:
            raise ValueError(f"{expects}, got {len(inputs)}")
        arrays = list(inputs) + [None] * (n - len(inputs))
        for key, value in named.items():
            if key not in names:
                raise ValueError(f"{expects}: no input is named {key!r}")
            k = names.index(key)
            if k < len(inputs):
                raise ValueError(f"{expects}: input {key!r} given twice")
            arrays[k] = value
        missing = [names[k] for k in range(n) if arrays[k] is None]
        if missing:
            raise ValueError(f"{expects}, got {n - len(missing)} (missing: {', '.join(missing)})")
        return arrays

    def _check_shape(self, entry, arg, shape, c_arg, values, given):
        what = f"input {arg.name!r} of {entry}"
        expects = f"expects shape {_shape_text(arg.shape)}"
        if len(shape) != len(arg.shape):
            raise ValueError(f"{what} has rank {len(shape)} (shape {tuple(shape)}), "
                             f"{expects}, rank {len(arg.shape)}")
        for d, (n, want) in enumerate(zip(shape, arg.shape)):
            code = c_arg.dims[d]
            if code >= 0:
                if n != want:
                    raise ValueError(f"{what} has shape {tuple(shape)}, {expects}: "
                                     f"dimension {d} must be {want}")
                continue
            k = -1 - code  # 0 the batch, k >= 1 named dimension k
            label = "the batch" if k == 0 else f"dimension {self.dims[k - 1].name}"
            if n < 1:
                raise ValueError(f"{what} has shape {tuple(shape)}: {label} "
                                 f"(dimension {d}) must be at least 1")
            if k > 0 and n > self.dims[k - 1].bound:
                raise ValueError(f"{what} has shape {tuple(shape)}: {label} (dimension "
                                 f"{d}) is {n}, above its bound {self.dims[k - 1].bound}")
            if given[k] is not None and values[k] != n:
                raise ValueError(f"{what} has {n} for {label} (dimension {d}), but "
                                 f"input {given[k]!r} has {values[k]}")
            values[k], given[k] = n, arg.name

    # -- contexts --------------------------------------------------------------

    def _reserve(self, batch):
        """The context, (re)created for `batch` if needed; the lock is held.
        A re-created context gets the old one's state memory."""
        if self._closed:
            raise ValueError(f"model {self.name!r} is closed")
        if self._ctx is not None and self._ctx.contents.max_batch >= batch:
            return self._ctx
        max_batch = max(self._max_batch, batch)
        ctx = _abi.CONTEXT_P()
        status = self._fn["_create_with_threads"](max_batch, self.threads, ctypes.byref(ctx))
        if status != 0:
            raise Error(f"creating a context of {self.name!r} for batch {max_batch} with "
                        f"{self.threads} thread{'' if self.threads == 1 else 's'}",
                        status, self._status_string(status), "")
        old = self._ctx
        if old is not None:
            new_c, old_c = ctx.contents, old.contents
            if self.state_bytes and new_c.state and old_c.state:
                ctypes.memmove(new_c.state, old_c.state, self.state_bytes)
            self._fn["_destroy"](old)
        self._ctx, self._max_batch = ctx, max_batch
        if self._profiling:
            self._raise_for(self._fn["_profile_start"](ctx), "start_profile", ctx)
        return ctx

    def close(self):
        """Destroys the model's context (and its threads and state). Calls
        after close() raise ValueError."""
        with self._lock:
            if self._ctx is not None:
                self._fn["_destroy"](self._ctx)
                self._ctx = None
            self._closed = True

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            if self.__dict__.get("_ctx") is not None:
                self._fn["_destroy"](self._ctx)
                self._ctx = None
        except Exception:
            pass

    def _status_string(self, status):
        return self._fn["_status_string"](status).decode()

    def _status_text(self, status, ctx):
        message = ctx.contents.message.decode("utf-8", "replace")
        return self._status_string(status) + (f": {message}" if message else "")

    def _raise_for(self, status, what, ctx):
        if status != 0:
            raise Error(what, status, self._status_string(status),
                        ctx.contents.message.decode("utf-8", "replace"))

    # -- training state --------------------------------------------------------

    def _training(self, what):
        """The context for a state call (created if none), or ValueError for a
        model without state memory. The lock is held."""
        if not self.state_bytes or "_get_variable" not in self._fn:
            raise ValueError(f"model {self.name!r} has no training state (no variables): "
                             f"{what} needs a model compiled with a train step")
        return self._reserve(1)

    def _variable(self, name):
        if name not in self._variable_index:
            names = ", ".join(v.name for v in self.variables)
            raise ValueError(f"model {self.name!r} has no variable {name!r} (variables: {names})")
        i = self._variable_index[name]
        return self.variables[i], self._info.variables[i]

    def get_variable(self, name):
        """A copy of variable `name` of the state (bf16 widened to float32)."""
        with self._lock:
            ctx = self._training("get_variable")
            var, c_var = self._variable(name)
            out = np.empty(var.shape, _abi.DTYPES[c_var.dtype][1])
            status = self._fn["_get_variable"](ctx, name.encode(), out.ctypes.data, out.nbytes)
            self._raise_for(status, f"get_variable {name!r}", ctx)
        return _abi.float_from_bf16(out) if c_var.dtype == _abi.BF16 else out

    def set_variable(self, name, value):
        """Sets variable `name` of the state to `value` (its shape; dtypes
        converted as an entry's inputs)."""
        with self._lock:
            ctx = self._training("set_variable")
            var, c_var = self._variable(name)
            what = f"variable {name!r} of {self.name}"
            a = _convert(value, c_var.dtype, what)
            if a.shape != var.shape:
                raise ValueError(f"{what} has shape {var.shape}, got {a.shape}")
            status = self._fn["_set_variable"](ctx, name.encode(), a.ctypes.data, a.nbytes)
            self._raise_for(status, f"set_variable {name!r}", ctx)

    def reset_state(self):
        """Every variable, optimizer slot and the step counter back to its
        initial value."""
        with self._lock:
            ctx = self._training("reset_state")
            self._raise_for(self._fn["_reset_state"](ctx), "reset_state", ctx)

    def start_profile(self):
        """Records a span per call and per kernel or loop nest, named by the
        model's nodes, until stop_profile (docs/profiling.md). A call with a
        batch above the largest so far makes a new context, which starts
        over."""
        with self._lock:
            self._profiling = True
            if self._ctx is not None:
                self._raise_for(self._fn["_profile_start"](self._ctx), "start_profile",
                                self._ctx)

    def stop_profile(self, path=None):
        """Writes the spans to `path` as a Chrome trace (chrome://tracing,
        Perfetto; None discards them) and stops profiling."""
        with self._lock:
            if not self._profiling or self._ctx is None:
                raise ValueError(f"model {self.name!r} is not profiling a context "
                                 "(start_profile, then a call)")
            status = self._fn["_profile_stop"](
                self._ctx, None if path is None else os.fsencode(path))
            self._raise_for(status, f"stop_profile {path!r}", self._ctx)
            self._profiling = False

    def save_checkpoint(self, path):
        """Writes the whole state to the checkpoint file `path`
        (docs/training.md)."""
        with self._lock:
            ctx = self._training("save_checkpoint")
            status = self._fn["_save_checkpoint"](ctx, os.fsencode(path))
            self._raise_for(status, f"save_checkpoint {os.fspath(path)!r}", ctx)

    def load_checkpoint(self, path):
        """Restores the state from checkpoint `path`; the whole file is
        validated first, so on error the state is unchanged."""
        with self._lock:
            ctx = self._training("load_checkpoint")
            status = self._fn["_load_checkpoint"](ctx, os.fsencode(path))
            self._raise_for(status, f"load_checkpoint {os.fspath(path)!r}", ctx)


def _user_dtype(tfcc_dtype):
    """The numpy dtype arrays of `tfcc_dtype` have in Python (float32 for
    bf16)."""
    return np.dtype(np.float32) if tfcc_dtype == _abi.BF16 else _abi.DTYPES[tfcc_dtype][1]


def _shape_text(shape):
    return "[" + ", ".join("batch" if n is None else str(n) for n in shape) + "]"


def _convert(value, tfcc_dtype, what):
    """`value` as a C-contiguous array of the raw dtype of `tfcc_dtype`,
    or ValueError."""
    a = np.asarray(value)
    src = a.dtype
    raw = _abi.DTYPES[tfcc_dtype][1]
    if tfcc_dtype == _abi.BF16:
        if not np.issubdtype(src, np.floating):
            raise ValueError(f"{what} expects bfloat16 (a float array), got {src.name}")
        return _abi.bf16_from_float(a)
    if src == raw:
        pass
    elif np.issubdtype(raw, np.floating):
        if not (np.issubdtype(src, np.floating) and np.can_cast(src, raw, "same_kind")):
            raise ValueError(f"{what} expects {raw.name}, got {src.name}")
    elif np.issubdtype(raw, np.integer):
        if not np.issubdtype(src, np.integer):
            raise ValueError(f"{what} expects {raw.name}, got {src.name}")
        if a.size:
            lo, hi, info = int(a.min()), int(a.max()), np.iinfo(raw)
            if lo < info.min or hi > info.max:
                raise ValueError(f"{what} expects {raw.name}: its {src.name} values "
                                 f"[{lo}, {hi}] do not fit in [{info.min}, {info.max}]")
    else:  # bool
        raise ValueError(f"{what} expects {raw.name}, got {src.name}")
    # order="C" keeps 0-d arrays 0-d (ascontiguousarray would not).
    return np.asarray(a, dtype=raw, order="C")
