"""Python values -> canonical form: what is accepted, what is equal, and how
values without a canonical form are reported."""

import collections
import dataclasses
import enum
import functools
import sys
from typing import Any, Optional

import pydantic
import pytest

import durable_journal as dj
from durable_journal.canonical import NonCanonicalValue


@dataclasses.dataclass
class Point:
    x: int
    y: int
    cache: Any = dataclasses.field(default=None, compare=False)


@dataclasses.dataclass
class Config:
    name: str
    client: Any = None


class Model(pydantic.BaseModel):
    name: str
    tags: set
    inner: Optional["Model"] = None


class Open(pydantic.BaseModel, extra="allow"):
    a: int


class Color(enum.Enum):
    RED = 1
    BLUE = 2


class Level(enum.IntEnum):
    LOW = 1


def digest(*args, **kwargs):
    return dj.compute_args_digest(args, kwargs)


def test_equal_values_of_python_types_that_compare_equal():
    assert digest({1, 2}) == digest(frozenset({2, 1}))
    assert digest(b"ab") == digest(bytearray(b"ab"))
    assert digest({"a": 1, "b": 2}) == digest(collections.OrderedDict([("b", 2), ("a", 1)]))
    assert digest((1, 2)) == digest(collections.namedtuple("P", "a b")(1, 2))


def test_values_python_calls_equal_but_of_different_kinds_differ():
    assert len({digest(1), digest(1.0), digest(True), digest("1"), digest(b"1")}) == 5
    assert digest([1, 2]) != digest((1, 2))
    assert digest(0.0) != digest(-0.0)
    assert digest(1, 2) != digest((1, 2))


def test_keyword_order_never_matters():
    assert digest(a=1, b=[1, 2], c={"x": {3}}) == digest(c={"x": {3}}, b=[1, 2], a=1)


def test_dataclass_by_field_values_not_identity():
    assert digest(Point(1, 2)) == digest(Point(1, 2))
    assert digest(Point(1, 2)) != digest(Point(2, 1))


def test_dataclass_fields_excluded_from_equality_are_excluded_from_the_digest():
    assert digest(Point(1, 2, cache=object())) == digest(Point(1, 2))


def test_pydantic_by_field_values_nested():
    a = Model(name="n", tags={"x", "y"}, inner=Model(name="i", tags=set()))
    b = Model(name="n", tags={"y", "x"}, inner=Model(name="i", tags=set()))
    assert digest(a) == digest(b)
    assert digest(a) != digest(Model(name="n", tags={"x"}, inner=None))


def test_pydantic_extra_fields_count():
    assert digest(Open(a=1, b=2)) != digest(Open(a=1, b=3))


def test_enum_members_by_name_and_type():
    tree = dj.value_tree(Color.RED)
    assert tree == {"object": {"type": f"{__name__}.Color", "fields": {"name": {"str": "RED"}}}}
    assert digest(Level.LOW) != digest(1)


def test_integers_of_any_size():
    huge = 7**6000  # more digits than Python 3.11 lets str() print
    tree = dj.value_tree(huge)
    assert len(tree["int"]) == 5071 and tree["int"].endswith("1")  # 7**4 ends in 2401
    if hasattr(sys, "set_int_max_str_digits"):
        previous = sys.get_int_max_str_digits()
        sys.set_int_max_str_digits(0)
        try:
            assert tree["int"] == str(huge)
            assert dj.value_tree(-huge)["int"] == "-" + str(huge)
        finally:
            sys.set_int_max_str_digits(previous)
    assert digest(huge) != digest(huge + 1)


def test_unsupported_value_names_its_path_and_suggests_durable_id():
    with pytest.raises(TypeError) as raised:
        digest(1, cfg=Config(name="c", client=object()))
    message = str(raised.value)
    assert "kwargs['cfg'].client" in message
    assert "builtins.object" in message
    assert "durable_id=" in message
    assert raised.value.code == dj.ErrorCode.NON_CANONICAL_ARGUMENT


@pytest.mark.parametrize(
    "args, kwargs, path",
    [
        ((lambda: 1,), {}, "args[0]"),
        (([1, {2: object()}],), {}, "args[0][1][2]"),
        ((), {"items": {"k": [None, {object()}]}}, "kwargs['items']['k'][1].<element #0>"),
        (({(1, object()): 1},), {}, "args[0].<key #0>[1]"),
        ((), {"f": functools.partial(print)}, "kwargs['f']"),
    ],
)
def test_paths_of_unsupported_values(args, kwargs, path):
    with pytest.raises(dj.NonCanonicalArgumentError) as raised:
        dj.compute_args_digest(args, kwargs)
    assert f"argument {path} has no canonical encoding" in str(raised.value)


def test_lone_surrogates_are_rejected_with_their_path():
    for args, kwargs, path in [
        (("ok", "bad\udc80"), {}, "args[1]"),
        ((), {"d": {"k\ud800": 1}}, "kwargs['d'].<key #0>"),
        ((), {"x\udfff": 1}, "kwargs['x\\udfff']"),
    ]:
        with pytest.raises(TypeError) as raised:
            dj.compute_args_digest(args, kwargs)
        assert f"argument {path} has" in str(raised.value), str(raised.value)
        assert "UTF-8" in str(raised.value)


def test_nan_is_rejected_by_the_native_library_with_its_path():
    with pytest.raises(TypeError) as raised:
        digest(cfg={"ratio": float("nan")})
    assert "kwargs['cfg']['ratio']" in str(raised.value)
    assert "NaN" in str(raised.value)


def test_infinities_are_values():
    assert digest(float("inf")) == digest(float("inf"))
    assert digest(float("inf")) != digest(float("-inf"))


def test_cycles_are_rejected_not_recursed():
    cyclic = [1]
    cyclic.append(cyclic)
    with pytest.raises(TypeError, match=r"args\[0\]\[1\].*cyclic"):
        digest(cyclic)
    point = Config(name="p")
    point.client = point
    with pytest.raises(TypeError, match=r"args\[0\]\.client.*cyclic"):
        digest(point)


def test_shared_but_acyclic_values_are_fine():
    shared = [1, 2]
    assert digest([shared, shared]) == digest([[1, 2], [1, 2]])


def test_nesting_limit():
    value = 1
    for _ in range(32):
        value = [value]
    assert len(digest(value)) == 16
    with pytest.raises(TypeError, match="nested more than 32 deep"):
        digest([value])


def test_explicit_durable_id_needs_no_canonical_arguments():
    assert dj.durable_identity_for_call(print, (object(),), {}, durable_id="订单-🚀") == "订单-🚀"


def test_the_native_rule_asks_for_the_call_only_when_it_derives_the_id():
    class Unresolvable:
        """Neither callable nor canonical: describing a call to it fails."""

    # Explicit: the call is never described, so not even the function is resolved.
    assert dj.durable_identity_for_call(Unresolvable(), (object(),), {}, durable_id="named") == "named"
    with pytest.raises(dj.InvalidArgumentError, match="empty"):
        dj.durable_identity_for_call(print, (1,), {}, durable_id="")
    # Derived: what describing raised reaches the caller unchanged, path and all.
    with pytest.raises(NonCanonicalValue) as raised:
        dj.durable_identity_for_call(print, (1, object()), {})
    assert raised.value.path == "args[1]"


def test_derived_call_id_is_function_id_and_digest():
    def local_fn():
        pass

    call_id = dj.durable_identity_for_call(local_fn, (1,), {"a": {2}})
    assert call_id == f"{__name__}.test_derived_call_id_is_function_id_and_digest.<locals>.local_fn::{digest(1, a={2})}"


def test_compute_function_id():
    class Service:
        def handle(self):
            pass

        def __call__(self):
            pass

    prefix = f"{__name__}.test_compute_function_id.<locals>.Service"
    assert dj.compute_function_id(Service().handle) == f"{prefix}.handle"
    assert dj.compute_function_id(Service.handle) == f"{prefix}.handle"
    # A callable object runs its type's __call__ (its state goes into the digest).
    assert dj.compute_function_id(Service()) == f"{prefix}.__call__"
    assert dj.compute_function_id(len) == "builtins.len"


def test_args_and_kwargs_must_be_a_tuple_and_a_dict():
    with pytest.raises(TypeError):
        dj.compute_args_digest("ab", {})
    with pytest.raises(TypeError):
        dj.compute_args_digest((), [("a", 1)])
    with pytest.raises(TypeError, match="names must be str"):
        dj.compute_args_digest((), {1: 2})
