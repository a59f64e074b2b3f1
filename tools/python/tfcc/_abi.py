"""ctypes mirrors of runtime/include/tfcc/tfcc_types.h (TFCC_ABI_VERSION 5)
and the element types' numpy equivalents.

Change together with the header: the layouts below are natural C alignment on
64-bit targets, as the compiler emits the tables.
"""
import ctypes

import numpy as np

ABI_VERSION = 5
DIM_DYNAMIC = -1
DIM_DERIVED = 1

# tfcc_dtype_t -> (name in tfcc, numpy dtype of the raw elements).
# bf16 has no numpy dtype: its raw elements are uint16 bits, and the package
# hands bf16 values to the user as float32 (exact).
DTYPES = {
    1: ("f32", np.dtype(np.float32)),
    2: ("i32", np.dtype(np.int32)),
    3: ("i64", np.dtype(np.int64)),
    4: ("bool", np.dtype(np.bool_)),
    5: ("f16", np.dtype(np.float16)),
    6: ("bf16", np.dtype(np.uint16)),
    7: ("i8", np.dtype(np.int8)),
    8: ("f64", np.dtype(np.float64)),
    9: ("u8", np.dtype(np.uint8)),
}
BF16 = 6

_i32, _i64, _u64, _p = ctypes.c_int32, ctypes.c_int64, ctypes.c_uint64, ctypes.c_void_p


class ArgInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("dtype", _i32), ("rank", _i32),
                ("dims", ctypes.POINTER(_i64))]


class EntryInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("num_inputs", _i32),
                ("num_outputs", _i32), ("inputs", ctypes.POINTER(ArgInfo)),
                ("outputs", ctypes.POINTER(ArgInfo)),
                ("has_dynamic_batch", _i32), ("has_named_dims", _i32),
                ("arena_bytes_fixed", _u64), ("arena_bytes_per_batch", _u64),
                ("kernel", _p), ("resolve_dims", _p)]


class VariableInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("dtype", _i32), ("rank", _i32),
                ("dims", ctypes.POINTER(_i64)), ("offset", _u64),
                ("bytes", _u64), ("trainable", _i32), ("reserved", _i32)]


class ModelInfo(ctypes.Structure):
    _fields_ = [("abi_version", ctypes.c_uint32), ("num_entries", _i32),
                ("name", ctypes.c_char_p), ("entries", ctypes.POINTER(EntryInfo)),
                ("weight_bytes", _u64), ("state_bytes", _u64),
                ("num_variables", _i32),
                ("train_entry", _i32),  # 1 + index of the train step; 0 none (was reserved)
                ("variables", ctypes.POINTER(VariableInfo)), ("state_init", _p),
                ("num_dims", _i32), ("flags", _i32),
                ("dim_names", ctypes.POINTER(ctypes.c_char_p)),
                ("dim_bounds", ctypes.POINTER(_i64)),
                ("dim_flags", ctypes.POINTER(_i32))]


class Context(ctypes.Structure):
    _fields_ = [("model", _p), ("arena", _p), ("state", _p),
                ("state_bytes", _u64), ("arena_bytes", _u64),
                ("max_batch", _i64), ("owns_arena", _i32),
                ("num_threads", _i32), ("pool", _p),
                ("message", ctypes.c_char * 256), ("profile", _p)]


CONTEXT_P = ctypes.POINTER(Context)

# (suffix, restype, argtypes) of the functions a generic caller uses; the
# training ones are optional.
FUNCTIONS = {
    "_info": (_p, []),
    "_create_with_threads": (_i32, [_i64, _i32, ctypes.POINTER(CONTEXT_P)]),
    "_destroy": (None, [CONTEXT_P]),
    "_status_string": (ctypes.c_char_p, [_i32]),
    "_invoke_dims": (_i32, [_i32, CONTEXT_P, ctypes.POINTER(_i64),
                            ctypes.POINTER(_p), ctypes.POINTER(_p)]),
    "_resolve_dims": (_i32, [_i32, CONTEXT_P, ctypes.POINTER(_i64)]),
    "_kernels_isa": (ctypes.c_char_p, []),
    "_profile_start": (_i32, [CONTEXT_P]),
    "_profile_stop": (_i32, [CONTEXT_P, ctypes.c_char_p]),
}
TRAINING_FUNCTIONS = {
    "_get_variable": (_i32, [CONTEXT_P, ctypes.c_char_p, _p, _u64]),
    "_set_variable": (_i32, [CONTEXT_P, ctypes.c_char_p, _p, _u64]),
    "_reset_state": (_i32, [CONTEXT_P]),
    "_save_checkpoint": (_i32, [CONTEXT_P, ctypes.c_char_p]),
    "_load_checkpoint": (_i32, [CONTEXT_P, ctypes.c_char_p]),
}


def bf16_from_float(a):
    """Float values rounded to bf16 (nearest, ties to even; NaN stays a quiet
    NaN), as uint16 bits: the rounding of tfcc's tools (compiler/Npy.cpp).
    Values are first converted to float32."""
    f32 = np.asarray(a, dtype=np.float32)
    bits = f32.reshape(-1).view(np.uint32).astype(np.uint64)
    rounded = (bits + np.uint64(0x7FFF) + ((bits >> np.uint64(16)) & np.uint64(1))) >> np.uint64(16)
    quiet_nan = (bits >> np.uint64(16)) | np.uint64(0x40)
    nan = (bits & np.uint64(0x7FFFFFFF)) > np.uint64(0x7F800000)
    return np.where(nan, quiet_nan, rounded).astype(np.uint16).reshape(f32.shape)


def float_from_bf16(bits):
    """bf16 bits (a uint16 array) widened to float32, exactly."""
    b = np.asarray(bits, dtype=np.uint16)
    return (b.reshape(-1).astype(np.uint32) << np.uint32(16)).view(np.float32).reshape(b.shape)
