"""What a callable really calls: the function that names a durable call, and
the values bound to it before the caller's own arguments.

A durable id is ``module.qualname`` of a function plus the digest of the
call's arguments. Some callables have no name of their own, or only a generic
one (``functools.partial``, a callable object, a bound method of one), and
some carry arguments the caller does not pass (a partial's args and keywords,
a callable object's state). Naming those by their type would give two
different functions one durable id, and a replay would hand one function's
result to the other. So each is resolved to the function it ends up running,
with its bound values merged in front of the caller's: ``partial(f, 1)(2)``
has the identity of ``f(1, 2)``, and ``obj(x)`` that of
``type(obj).__call__(obj, x)``. A callable that cannot be resolved this way
raises TypeError asking for ``durable_id=``.

Functions that share a qualified name are told apart by what they captured
when they were defined: a closure's cells (``make_adder(1)`` and
``make_adder(2)`` both run ``make_adder.<locals>.add``) and a local
function's default values join the call's arguments under the keyword
``<captured>``, which no caller may pass. A captured callable is known by
what it runs (so every function a decorator without ``functools.wraps``
decorates differs by the function its wrapper captured). A lambda has no name
of its own: every lambda in a scope is ``<lambda>``, and its position in the
file changes with each edit, so it is refused.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import types
from typing import Any, Callable, Dict, List, Mapping, Sequence, Tuple, Union

#: How many layers (partials, wrappers, methods) a callable may have before it
#: is taken for a ``__wrapped__`` cycle.
MAX_LAYERS = 100

#: Modules whose local functions are machinery standing for another callable
#: (``partialmethod``'s unbound method is ``functools...<locals>._method``):
#: their name says nothing about what runs.
_MACHINERY_MODULES = frozenset({"functools"})


#: The keyword under which a function's captured values join its arguments.
#: It is not an identifier, so only ``**{...}`` could pass it, and that is
#: refused: a caller's keyword never poses as a captured value.
CAPTURED_KEYWORD = "<captured>"

_PARTIAL_CALL = vars(functools.partial)["__call__"]


@dataclasses.dataclass(frozen=True)
class BoundValue:
    """One argument of a resolved call and where it came from, e.g.
    ``args[0]`` (the caller's), ``partial.args[0]`` or ``self``."""

    value: Any
    path: str


@dataclasses.dataclass(frozen=True)
class ResolvedCall:
    """The named function a call runs and every argument it receives."""

    function_id: str
    args: Tuple[BoundValue, ...]
    kwargs: Dict[str, BoundValue]


@dataclasses.dataclass(frozen=True)
class RecursiveReference:
    """A captured callable that runs a function whose identity is already
    being built, ``levels`` captures up (a local function that calls
    itself): named by that position instead of being described again."""

    function_id: str
    levels: int


def check_call_arguments(args: Sequence[Any], kwargs: Mapping[str, Any]) -> None:
    """``args`` must be a tuple (or list) and ``kwargs`` a mapping."""
    if not isinstance(args, (tuple, list)):
        raise TypeError(f"args must be a tuple, not {type(args).__name__}")
    if not isinstance(kwargs, Mapping):
        raise TypeError(f"kwargs must be a dict, not {type(kwargs).__name__}")


def caller_arguments(
    args: Sequence[Any], kwargs: Mapping[str, Any]
) -> Tuple[List[BoundValue], Dict[Any, BoundValue]]:
    """The caller's own arguments, each with its path (``args[i]``,
    ``kwargs['name']``)."""
    check_call_arguments(args, kwargs)
    positional = [BoundValue(value, f"args[{i}]") for i, value in enumerate(args)]
    keywords = {name: BoundValue(value, f"kwargs[{name!r}]") for name, value in kwargs.items()}
    return positional, keywords


def resolve_call(func: Callable[..., Any], args: Sequence[Any], kwargs: Mapping[str, Any]) -> ResolvedCall:
    """The function ``func(*args, **kwargs)`` runs, named ``module.qualname``,
    with the values bound along the way merged into the call's arguments.

    Layers are peeled from the outside in:

    * ``functools.partial``: its args go in front of the call's, its keywords
      under the call's (a keyword the call passes wins, as when calling it);
    * a bound method of a plain function keeps the method's name and leaves
      its instance out (a method is named by what it is, as in Flink Agents);
      ``obj.__call__`` is ``obj``; a bound method of anything else (a callable
      object, a partial) passes its instance as the first argument;
    * a ``__wrapped__`` chain (``functools.wraps``, ``lru_cache``,
      ``update_wrapper``) is followed to the function it wraps;
    * a callable object is its type's ``__call__`` with the object as the
      first argument, ``self``: its state takes part in the digest, so it must
      have a canonical form (a dataclass or a pydantic model).

    The function reached adds what it captured (``_captured_values``) under
    the keyword ``CAPTURED_KEYWORD``.
    """
    positional, keywords = caller_arguments(args, kwargs)
    resolved = _resolve(func, positional, keywords, "", ())
    assert isinstance(resolved, ResolvedCall)  # nothing encloses the call itself
    return resolved


def function_name(func: Callable[..., Any], *, lambdas: bool = False) -> str:
    """``module.qualname`` of the function ``func`` runs, found through the
    same layers as ``resolve_call`` (partials, methods, wrappers, callable
    objects), without its bound or captured values. ``lambdas=True`` names a
    lambda by its shared ``<lambda>`` qualname instead of refusing it: for a
    caller that tells calls apart by their position, not by their id alone
    (Flink Agents' journal, ``durable_journal.flink_agents``)."""
    target, _, _ = _peel(func, [], {}, "")
    return _function_id(func, target, "", lambdas=lambdas)


def _peel(
    func: Any,
    positional: List[BoundValue],
    keywords: Dict[Any, BoundValue],
    prefix: str,
) -> Tuple[Any, List[BoundValue], Dict[Any, BoundValue]]:
    """The named function under ``func``'s layers, with the values those
    layers bind merged into the call's arguments."""
    target = func
    for _ in range(MAX_LAYERS):
        if _is_plain_partial(target):
            kind = _at(prefix, type(target).__name__)
            positional = [
                BoundValue(value, f"{kind}.args[{i}]") for i, value in enumerate(target.args)
            ] + positional
            keywords = {
                **{name: BoundValue(value, f"{kind}.keywords[{name!r}]") for name, value in target.keywords.items()},
                **keywords,
            }
            target = target.func
        elif isinstance(target, types.MethodType):
            instance, function = target.__self__, target.__func__
            if _is_own_call_method(instance, function):
                target = instance
            elif inspect.isfunction(function):
                target = function
            else:
                positional = [BoundValue(instance, _at(prefix, "self"))] + positional
                target = function
        elif (wrapped := _wrapped(target)) is not None:
            target = wrapped
        elif _is_callable_object(target):
            if not callable(target):
                raise TypeError(f"{target!r} is not callable")
            call_method = _own_call_method(type(target))
            if not inspect.isfunction(call_method):
                raise _unnamed(target, f"its __call__ ({call_method!r}) is not a Python function", prefix)
            positional = [BoundValue(target, _at(prefix, "self"))] + positional
            target = call_method
        else:
            return target, positional, keywords
    raise _unnamed(func, f"it has more than {MAX_LAYERS} layers of wrappers (a __wrapped__ cycle?)", prefix)


def _resolve(
    func: Any,
    positional: List[BoundValue],
    keywords: Dict[Any, BoundValue],
    prefix: str,
    enclosing: Tuple[Any, ...],
) -> Union[ResolvedCall, RecursiveReference]:
    """``resolve_call`` for a callable found at ``prefix`` (empty for the
    call itself, else the path of the captured variable holding it), inside
    the functions ``enclosing`` whose captured values are being resolved:
    the call of the named function under ``func``'s layers, with what it
    captured."""
    target, positional, keywords = _peel(func, positional, keywords, prefix)
    function_id = _function_id(func, target, prefix)
    if CAPTURED_KEYWORD in keywords:
        raise TypeError(
            f"argument {keywords[CAPTURED_KEYWORD].path} is reserved: the keyword {CAPTURED_KEYWORD!r} carries "
            "the values a function captured; pass durable_id= to name the call explicitly"
        )
    for levels, outer in enumerate(reversed(enclosing), start=1):
        if outer is target:
            return RecursiveReference(function_id, levels)
    captured_path = _at(prefix, f"<captured by {function_id}>")
    captured = _captured_values(target, captured_path)
    if captured:
        resolved = {
            name: _resolve(value, [], {}, f"{captured_path}[{name!r}]", enclosing + (target,))
            if callable(value)
            else value
            for name, value in captured.items()
        }
        keywords = {**keywords, CAPTURED_KEYWORD: BoundValue(resolved, captured_path)}
    return ResolvedCall(function_id, tuple(positional), keywords)


def _captured_values(function: Any, path: str) -> Dict[str, Any]:
    """What a Python function was given when it was defined, by name: its
    closure cells (free variables), and, for a local function (whose
    ``def`` runs again on each call of its parent), its default values."""
    if not inspect.isfunction(function):
        return {}
    captured: Dict[str, Any] = {}
    for name, cell in zip(function.__code__.co_freevars, function.__closure__ or ()):
        try:
            value = cell.cell_contents
        except ValueError:
            raise TypeError(
                f"{path}[{name!r}]: the captured variable {name!r} is not assigned yet; "
                "pass durable_id= to name the call explicitly"
            ) from None
        if name == "__class__" and _is_defining_class(value, function):
            continue  # the cell super() reads: the class is already in the qualname
        captured[name] = value
    if "<locals>" in function.__qualname__:
        code = function.__code__
        defaults = function.__defaults__ or ()
        positional_names = code.co_varnames[: code.co_argcount]
        captured.update(zip(positional_names[len(positional_names) - len(defaults) :], defaults))
        captured.update(function.__kwdefaults__ or {})
    return captured


def _is_defining_class(value: Any, function: Any) -> bool:
    return isinstance(value, type) and function.__qualname__.startswith(value.__qualname__ + ".")


def _at(prefix: str, name: str) -> str:
    return f"{prefix}.{name}" if prefix else name


def _is_plain_partial(target: Any) -> bool:
    """A partial (or subclass) that calls the way ``functools.partial`` does."""
    return isinstance(target, functools.partial) and _own_call_method(type(target)) is _PARTIAL_CALL


def _is_own_call_method(instance: Any, function: Any) -> bool:
    """``obj.__call__``: the same call as ``obj`` itself."""
    return not isinstance(instance, type) and _own_call_method(type(instance)) is function


def _wrapped(target: Any) -> Any:
    """What ``target`` wraps (``__wrapped__``), or None. A class is named by
    itself, whatever it carries."""
    if isinstance(target, type):
        return None
    return getattr(target, "__wrapped__", None)


def _is_callable_object(target: Any) -> bool:
    """An instance called through its type's ``__call__`` (not a function,
    builtin, method or class)."""
    return not isinstance(target, type) and not inspect.isroutine(target)


def _own_call_method(cls: type) -> Any:
    """The ``__call__`` that calling an instance of ``cls`` runs, as the class
    defines it (not the metaclass's ``type.__call__``, which ``cls.__call__``
    would find for a class without one)."""
    for klass in cls.__mro__:
        if "__call__" in vars(klass):
            return vars(klass)["__call__"]
    return None


def _function_id(func: Any, target: Any, prefix: str, lambdas: bool = False) -> str:
    module = getattr(target, "__module__", None)
    qualname = getattr(target, "__qualname__", None)
    if not isinstance(module, str) or not isinstance(qualname, str) or not module or not qualname:
        raise _unnamed(func, f"{target!r} has no module and qualified name", prefix)
    if module in _MACHINERY_MODULES and "<locals>" in qualname:
        raise _unnamed(func, f"{module}.{qualname} is machinery standing for another callable", prefix)
    if not lambdas and any(part.startswith("<") and part != "<locals>" for part in qualname.split(".")):
        raise _unnamed(
            func,
            f"{module}.{qualname} is not a name of its own: every lambda in a scope shares it, "
            "and its position in the file changes with each edit (define it with def)",
            prefix,
        )
    return f"{module}.{qualname}"


def _unnamed(func: Any, reason: str, prefix: str = "") -> TypeError:
    """``prefix``: the path of the captured variable ``func`` was found in."""
    where = f"{prefix}: " if prefix else ""
    return TypeError(
        f"{where}cannot name {func!r} as module.qualname: {reason}; pass durable_id= to name the call explicitly"
    )
