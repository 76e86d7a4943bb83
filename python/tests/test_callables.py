"""Callables without a name of their own (partials, callable objects, bound
methods of those, wrappers) get the identity of the function they run plus
the values bound to it, so two different functions never share a durable id;
what cannot be resolved asks for durable_id=."""

import dataclasses
import functools
import operator
import types
from typing import Any

import pydantic
import pytest

import durable_journal as dj
from durable_journal.callables import MAX_LAYERS

identity = dj.durable_identity_for_call


def send_email(to, subject="hello"):
    pass


def charge_card(amount, currency="EUR"):
    pass


def f(a, b=0, c=0):
    pass


@dataclasses.dataclass
class Multiplier:
    factor: int
    client: Any = dataclasses.field(default=None, compare=False)

    def __call__(self, x):
        return x * self.factor


class Greeter(pydantic.BaseModel):
    greeting: str

    def __call__(self, name):
        return f"{self.greeting} {name}"


class StatefulClient:
    """A callable object whose state has no canonical form."""

    def __init__(self):
        self.connection = object()

    def __call__(self, request):
        pass


class Service:
    def handle(self, x):
        pass


def test_partials_of_different_functions_never_share_an_id():
    email = identity(functools.partial(send_email, to="ada@example.com"), (), {})
    charge = identity(functools.partial(charge_card, amount=5), (), {})
    assert email != charge
    assert email.startswith(f"{__name__}.send_email::")
    assert charge.startswith(f"{__name__}.charge_card::")


def test_a_partial_is_the_call_it_makes():
    assert identity(functools.partial(f, 1), (2,), {}) == identity(f, (1, 2), {})
    assert identity(functools.partial(f, 1, c=3), (2,), {}) == identity(f, (1, 2), {"c": 3})
    assert identity(functools.partial(f, b=1), (), {"b": 2}) == identity(f, (), {"b": 2})
    assert identity(functools.partial(f, 1), (), {}) != identity(functools.partial(f, 2), (), {})


def test_nested_partials_merge_every_layer():
    inner = functools.partial(f, 1, b=1)
    inner.note = "an attribute keeps CPython from flattening the nesting"
    outer = functools.partial(inner, 2, b=2)
    assert outer.func is inner
    assert identity(outer, (3,), {}) == identity(f, (1, 2, 3), {"b": 2})


def test_a_partial_subclass_that_calls_like_partial_is_a_partial():
    class Tagged(functools.partial):
        pass

    assert identity(Tagged(f, 1), (2,), {}) == identity(f, (1, 2), {})


def test_a_partial_bound_value_without_canonical_form_is_named():
    with pytest.raises(TypeError) as raised:
        identity(functools.partial(f, object()), (), {})
    assert "argument partial.args[0] has no canonical encoding" in str(raised.value)
    assert "durable_id=" in str(raised.value)
    with pytest.raises(TypeError, match=r"argument partial.keywords\['b'\] has no canonical encoding"):
        identity(functools.partial(f, b=object()), (), {})


def test_compute_function_id_names_what_a_partial_runs():
    assert dj.compute_function_id(functools.partial(send_email)) == f"{__name__}.send_email"


def test_callable_objects_carry_their_state():
    double, triple = Multiplier(2), Multiplier(3)
    assert identity(double, (5,), {}) != identity(triple, (5,), {})
    assert identity(double, (5,), {}) == identity(Multiplier(2, client=object()), (5,), {})
    assert identity(double, (5,), {}).startswith(f"{__name__}.Multiplier.__call__::")
    # The same call, spelled three ways.
    assert identity(double, (5,), {}) == identity(Multiplier.__call__, (double, 5), {})
    assert identity(double.__call__, (5,), {}) == identity(double, (5,), {})


def test_pydantic_callable_models_carry_their_fields():
    hello, hi = Greeter(greeting="hello"), Greeter(greeting="hi")
    assert identity(hello, ("ada",), {}) != identity(hi, ("ada",), {})
    assert identity(hello, ("ada",), {}) == identity(Greeter(greeting="hello"), ("ada",), {})


def test_a_callable_object_without_canonical_state_asks_for_durable_id():
    client = StatefulClient()
    with pytest.raises(TypeError) as raised:
        identity(client, ("req",), {})
    message = str(raised.value)
    assert "argument self has no canonical encoding" in message
    assert "StatefulClient have no canonical form" in message
    assert "durable_id=" in message
    assert identity(client, ("req",), {}, durable_id="fetch-1") == "fetch-1"


def test_builtin_callable_objects_ask_for_durable_id():
    with pytest.raises(TypeError, match="durable_id="):
        identity(operator.itemgetter(1), ([1, 2],), {})


def test_something_not_callable_is_a_type_error():
    with pytest.raises(TypeError, match="is not callable"):
        identity(42, (), {})


def test_a_bound_method_of_a_callable_object_passes_its_instance():
    class Shop:
        pass

    # Shop.checkout(x) runs Multiplier(2)(shop, x): the multiplier and the
    # instance it is bound to both take part.
    bound = types.MethodType(Multiplier(2), 7)
    assert identity(bound, (), {}) == identity(Multiplier(2), (7,), {})
    assert identity(bound, (), {}) != identity(types.MethodType(Multiplier(3), 7), (), {})
    with pytest.raises(TypeError, match="argument self has no canonical encoding"):
        identity(types.MethodType(Multiplier(2), Shop()), (), {})


def test_a_bound_method_of_a_partial_passes_its_instance():
    bound = types.MethodType(functools.partial(f, 1), 2)
    assert identity(bound, (3,), {}) == identity(f, (1, 2, 3), {})


def test_methods_keep_their_name_and_leave_their_instance_out():
    assert identity(Service().handle, (1,), {}) == f"{__name__}.Service.handle::{dj.compute_args_digest((1,), {})}"


def test_wrappers_stand_for_what_they_wrap():
    def decorate(target):
        @functools.wraps(target)
        def wrapper(*args, **kwargs):
            return target(*args, **kwargs)

        return wrapper

    email = decorate(functools.partial(send_email, to="ada@example.com"))
    charge = decorate(functools.partial(charge_card, amount=5))
    assert identity(email, (), {}) != identity(charge, (), {})
    assert identity(email, (), {}) == identity(send_email, (), {"to": "ada@example.com"})
    assert identity(decorate(decorate(f)), (1,), {}) == identity(f, (1,), {})
    assert identity(functools.lru_cache(f), (1,), {}) == identity(f, (1,), {})


def test_a_wrapper_object_stands_for_what_it_wraps():
    class Retry:
        def __init__(self, target):
            self.target = target
            functools.update_wrapper(self, target)

        def __call__(self, *args, **kwargs):
            return self.target(*args, **kwargs)

    assert identity(Retry(functools.partial(f, 1)), (2,), {}) == identity(f, (1, 2), {})


def test_a_wrapped_cycle_is_refused():
    def loop():
        pass

    loop.__wrapped__ = loop
    with pytest.raises(TypeError, match=f"more than {MAX_LAYERS} layers"):
        identity(loop, (), {})


def test_partialmethod_machinery_is_never_a_name():
    class Account:
        def deposit(self, amount):
            pass

        deposit_ten = functools.partialmethod(deposit, 10)

    account = Account()
    # Through an instance it is a partial of the bound method.
    assert identity(account.deposit_ten, (), {}) == identity(account.deposit, (10,), {})
    with pytest.raises(TypeError, match="machinery standing for another callable"):
        identity(Account.deposit_ten, (account,), {})
