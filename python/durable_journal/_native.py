"""Loading of the native library and the ctypes view of its C ABI.

Conventions (rust/capi.rs): every function returns a status, 0 or an
``ErrorCode``; strings go in as (pointer, length) of UTF-8 bytes; the result
or the error message comes back in a buffer that must be returned with
``durable_journal_free_buffer``.
"""

from __future__ import annotations

import ctypes
import enum
import importlib.machinery
import os
import sys
import threading
from pathlib import Path
from typing import Any, Callable, List, Optional, Tuple

LIBRARY_ENV_VAR = "DURABLE_JOURNAL_LIB"
LIBRARY_STEM = "libdurable_journal"
#: The name cargo gives the library on this platform (in target/release).
LIBRARY_FILE = {"darwin": LIBRARY_STEM + ".dylib", "win32": "durable_journal.dll"}.get(
    sys.platform, LIBRARY_STEM + ".so"
)
#: The C ABI version (constants.json ``c_abi_version``; JNI has a version of its own).
ABI_VERSION = 11


class ErrorCode(enum.IntEnum):
    """The stable codes of tests/vectors/constants.json (Rust ``ErrorCode``). Never renumber."""

    INVALID_ARGUMENT = 1
    SLOT_ALREADY_EXISTS = 2
    NO_MATCHING_PENDING_SLOT = 3
    INDEX_OUT_OF_RANGE = 4
    MALFORMED_JSON = 5
    PERSIST_FAILED = 6
    STORE_IO = 7
    STORE_CORRUPT = 8
    STORE_LOCKED = 9
    NON_CANONICAL_ARGUMENT = 10
    CLOSED = 11
    PANIC = 12
    ILLEGAL_STATE = 13
    PAYLOAD_UNREADABLE = 14
    SIZE_LIMIT_EXCEEDED = 15
    # A re-run made another call than the journal recorded (divergence policy FAIL). Python
    # reaches the journal through Java (Flink Agents' Python bridge), which raises it there.
    NON_DETERMINISTIC_REPLAY = 16
    # An at-most-once call found its PENDING slot without an outcome on a re-run
    # (``durable_journal.calls.CallInterruptedError``).
    CALL_INTERRUPTED = 17


class JournalError(Exception):
    """An error reported by the native library, with its stable code."""

    def __init__(self, code: int, message: str):
        super().__init__(message)
        try:
            self.code = ErrorCode(code)
        except ValueError:  # a newer library with a code this module lacks
            self.code = code


class NonCanonicalArgumentError(JournalError, TypeError):
    """An argument has no canonical encoding; name the call with durable_id=."""


class InvalidArgumentError(JournalError, ValueError):
    """A missing or malformed argument (empty id, negative ordinal, ...)."""


class IllegalStateError(JournalError, RuntimeError):
    """An operation not allowed in the current state (re-emitting an event)."""


_ERROR_CLASSES = {
    ErrorCode.NON_CANONICAL_ARGUMENT: NonCanonicalArgumentError,
    ErrorCode.INVALID_ARGUMENT: InvalidArgumentError,
    ErrorCode.ILLEGAL_STATE: IllegalStateError,
}


def candidate_paths() -> List[Path]:
    """Where the library is looked for, in order: $DURABLE_JOURNAL_LIB (an
    override for development), the copy inside the package (what
    ``pip install`` puts there), and, when this package is the source tree
    of a checkout, that checkout's ``cargo build --release`` output."""
    package_dir = Path(__file__).resolve().parent
    candidates = []
    from_env = os.environ.get(LIBRARY_ENV_VAR)
    if from_env:
        candidates.append(Path(from_env))
    candidates.extend(package_dir / (LIBRARY_STEM + suffix) for suffix in _packaged_suffixes())
    checkout = package_dir.parent.parent
    if (checkout / "Cargo.toml").is_file() and (package_dir.parent / "pyproject.toml").is_file():
        candidates.append(checkout / "target" / "release" / LIBRARY_FILE)
    return candidates


def _packaged_suffixes() -> List[str]:
    """The file name endings a packaged copy may have: the build names it
    like an extension module (``.abi3.so``, ``.cpython-311-...so``), a copy
    made by hand is plain ``.so``. Each ending once, in the interpreter's order."""
    return list(dict.fromkeys(importlib.machinery.EXTENSION_SUFFIXES))


def library_path() -> Path:
    """The file the library was loaded from (loading it if needed)."""
    library()
    assert _library_path is not None
    return _library_path


_c_bytes = ctypes.c_char_p
_c_size = ctypes.c_size_t
_c_out_data = ctypes.POINTER(ctypes.POINTER(ctypes.c_ubyte))
_c_out_len = ctypes.POINTER(ctypes.c_size_t)

#: rust/capi.rs ``CallDescriber``: (context, &function_id, &function_id_len,
#: &call_tree, &call_tree_len) -> status.
_CallDescriber = ctypes.CFUNCTYPE(
    ctypes.c_int32,
    ctypes.c_void_p,
    ctypes.POINTER(ctypes.c_void_p),
    ctypes.POINTER(ctypes.c_size_t),
    ctypes.POINTER(ctypes.c_void_p),
    ctypes.POINTER(ctypes.c_size_t),
)

# name -> argument types before the trailing (out_data, out_len) pair.
_RESPONDING_FUNCTIONS = {
    "durable_journal_args_digest": [_c_bytes, _c_size],
    "durable_journal_call_durable_id": [_c_bytes, _c_size, _CallDescriber, ctypes.c_void_p],
    "durable_journal_tool_call_durable_id": [_c_bytes, _c_size],
    "durable_journal_patch_step": [_c_bytes, _c_size, _c_bytes, _c_size, _c_bytes, _c_size],
    "durable_journal_root_occurrence_id": [_c_bytes, _c_size, ctypes.c_int64],
    "durable_journal_call_idempotency_key": [_c_bytes, _c_size, _c_bytes, _c_size, ctypes.c_int64],
    "durable_journal_action_execution_id": [_c_bytes, _c_size, _c_bytes, _c_size],
    "durable_journal_emitted_occurrence_id": [_c_bytes, _c_size, ctypes.c_int64],
    "durable_journal_generated_call_id": [_c_bytes, _c_size, _c_bytes, _c_size, ctypes.c_int64],
    "durable_journal_execution_identity_new": [_c_bytes, _c_size, ctypes.POINTER(ctypes.c_void_p)],
    "durable_journal_execution_identity_emit": [ctypes.c_void_p, _c_bytes, _c_size],
    "durable_journal_execution_identity_next_call_id": [ctypes.c_void_p, _c_bytes, _c_size, _c_bytes, _c_size],
    "durable_journal_read_retained": [_c_bytes, _c_size],
    "durable_journal_read_retained_dump": [_c_bytes, _c_size],
    "durable_journal_read_in_flight": [_c_bytes, _c_size],
    "durable_journal_describe_stop": [_c_bytes, _c_size, ctypes.c_int64, _c_bytes, _c_size, _c_bytes, _c_size, _c_bytes, _c_size],
    "durable_journal_plan_restore": [ctypes.c_int32, ctypes.c_uint64, _c_bytes, _c_size, ctypes.c_int64,
                                     _c_bytes, _c_size, _c_bytes, _c_size, _c_bytes, _c_size],
    "durable_journal_replay_journal_new": [_c_bytes, _c_size, ctypes.POINTER(ctypes.c_void_p)],
    "durable_journal_replay_journal_match_next": [ctypes.c_void_p, _c_bytes, _c_size, _c_bytes, _c_size],
    "durable_journal_replay_journal_record": [ctypes.c_void_p, _c_bytes, _c_size, _c_bytes, _c_size],
    "durable_journal_replay_journal_patched": [ctypes.c_void_p, _c_bytes, _c_size],
    "durable_journal_replay_journal_position": [ctypes.c_void_p],
}

_lock = threading.Lock()
_library: Optional[ctypes.CDLL] = None
_library_path: Optional[Path] = None


def library() -> ctypes.CDLL:
    """The loaded library (loaded on first use, once per process)."""
    global _library, _library_path
    if _library is None:
        with _lock:
            if _library is None:
                _library_path, _library = _load()
    return _library


def _load() -> Tuple[Path, ctypes.CDLL]:
    tried = []
    for path in candidate_paths():
        if not path.is_file():
            tried.append(f"{path} (not found)")
            continue
        lib = ctypes.CDLL(str(path))
        _declare(lib)
        version = ctypes.c_uint32()
        status = lib.durable_journal_abi_version(ctypes.byref(version))
        if status != 0 or version.value != ABI_VERSION:
            raise ImportError(
                f"{path} speaks C ABI version {version.value}, this package needs {ABI_VERSION}; "
                "rebuild the library and the package from the same checkout"
            )
        return path, lib
    raise ImportError(
        f"native library {LIBRARY_FILE} not found; install the package with `pip install ./python` "
        f"(which builds it), or in a checkout build it with `cargo build --release`, "
        f"or set {LIBRARY_ENV_VAR}. Tried: " + "; ".join(tried)
    )


def _declare(lib: ctypes.CDLL) -> None:
    lib.durable_journal_abi_version.argtypes = [ctypes.POINTER(ctypes.c_uint32)]
    lib.durable_journal_abi_version.restype = ctypes.c_int32
    lib.durable_journal_free_buffer.argtypes = [ctypes.POINTER(ctypes.c_ubyte), ctypes.c_size_t]
    lib.durable_journal_free_buffer.restype = ctypes.c_int32
    lib.durable_journal_execution_identity_free.argtypes = [ctypes.c_void_p]
    lib.durable_journal_execution_identity_free.restype = ctypes.c_int32
    lib.durable_journal_replay_journal_free.argtypes = [ctypes.c_void_p]
    lib.durable_journal_replay_journal_free.restype = ctypes.c_int32
    for name, arg_types in _RESPONDING_FUNCTIONS.items():
        function = getattr(lib, name)
        function.argtypes = [*arg_types, _c_out_data, _c_out_len]
        function.restype = ctypes.c_int32


def call(name: str, *args) -> str:
    """Calls a responding function; returns its UTF-8 result or raises the
    error its status and message describe."""
    lib = library()
    data = ctypes.POINTER(ctypes.c_ubyte)()
    length = ctypes.c_size_t()
    status = getattr(lib, name)(*args, ctypes.byref(data), ctypes.byref(length))
    if not data:
        raise JournalError(status or ErrorCode.INVALID_ARGUMENT, f"{name} returned no buffer (status {status})")
    try:
        text = ctypes.string_at(data, length.value).decode("utf-8")
    finally:
        lib.durable_journal_free_buffer(data, length)
    if status != 0:
        raise _ERROR_CLASSES.get(status, JournalError)(status, text)
    return text


def call_durable_id(explicit: Optional[bytes], describe: Callable[[], Tuple[bytes, bytes]]) -> str:
    """``durable_journal_call_durable_id``: the library returns ``explicit``
    when it is not None, else derives the id and only then calls
    ``describe()`` for the call's ``(function id, call tree JSON)``, both
    UTF-8. An exception ``describe`` raises is raised here, unchanged."""
    kept: List[Any] = []  # the described buffers, alive until the library returns
    raised: List[BaseException] = []

    def describer(_context, function_id, function_id_len, call_tree, call_tree_len) -> int:
        # An exception must not escape into the library: keep it, report a status.
        try:
            described = describe()
            for data, out, out_len in zip(described, (function_id, call_tree), (function_id_len, call_tree_len)):
                buffer = ctypes.create_string_buffer(data, max(len(data), 1))
                kept.append(buffer)
                out[0] = ctypes.addressof(buffer)
                out_len[0] = len(data)
            return 0
        except BaseException as e:  # noqa: B036 - re-raised below, after the library returns
            raised.append(e)
            return 1

    try:
        return call("durable_journal_call_durable_id", explicit, length(explicit), _CallDescriber(describer), None)
    except JournalError:
        if raised:
            raise raised[0] from None
        raise


def free_execution_identity(handle: int) -> None:
    library().durable_journal_execution_identity_free(handle)


def free_replay_journal(handle: int) -> None:
    library().durable_journal_replay_journal_free(handle)


def utf8(value: Optional[str], what: str) -> Optional[bytes]:
    """UTF-8 bytes of a str argument (None stays None, which the library
    reads as "missing"). A lone surrogate has no UTF-8 form: a clear error
    instead of a silently replaced character."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise TypeError(f"{what} must be a str, not {type(value).__name__}")
    try:
        return value.encode("utf-8")
    except UnicodeEncodeError as e:
        raise ValueError(f"{what} is not valid Unicode text ({e.reason} at position {e.start})") from None


def length(data: Optional[bytes]) -> int:
    return 0 if data is None else len(data)


def int64(value: int, what: str) -> int:
    """An ordinal for the C ABI. Negative values go through so the library
    reports them (one message for Java and Python); values that do not fit an
    int64 are refused here."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{what} must be an int, not {type(value).__name__}")
    if not -(2**63) <= value < 2**63:
        raise ValueError(f"{what} {value} does not fit a signed 64-bit integer")
    return value


