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
from durable_journal.callables import MAX_LAYERS, function_name

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


# Functions that share a qualified name: lambdas, closures, and the wrappers
# of decorators that do not use functools.wraps.


def make_adder(n):
    def add(x):
        return x + n

    return add


def make_defaulted(n):
    def add(x, n=n):
        return x + n

    return add


def logged(target):
    """A decorator without functools.wraps: every function it decorates runs
    logged.<locals>.wrapper."""

    def wrapper(*args, **kwargs):
        return target(*args, **kwargs)

    return wrapper


def test_two_lambdas_in_one_scope_are_refused():
    def handlers():
        return (lambda to: send_email(to)), (lambda amount: charge_card(amount))

    email, charge = handlers()
    assert email.__qualname__ == charge.__qualname__
    for func in (email, charge, functools.partial(email, "ada@example.com")):
        with pytest.raises(TypeError) as raised:
            identity(func, ("x",), {})
        assert "lambda" in str(raised.value)
        assert "durable_id=" in str(raised.value)
    assert identity(email, ("x",), {}, durable_id="email-1") == "email-1"


def test_a_module_level_lambda_is_refused():
    with pytest.raises(TypeError, match=r"<lambda>.*durable_id="):
        identity(module_lambda, (1,), {})


module_lambda = lambda x: x  # noqa: E731


def test_closures_that_captured_different_values_get_different_ids():
    one, two = make_adder(1), make_adder(2)
    assert one.__qualname__ == two.__qualname__
    assert identity(one, (5,), {}) != identity(two, (5,), {})
    assert identity(one, (5,), {}) == identity(make_adder(1), (5,), {})
    assert identity(one, (5,), {}).startswith(f"{__name__}.make_adder.<locals>.add::")
    # Captured values count like bound arguments, under a name no caller can pass.
    digest = dj.compute_args_digest((5,), {"<captured>": {"n": 1}})
    assert identity(one, (5,), {}) == f"{__name__}.make_adder.<locals>.add::{digest}"


def test_default_values_of_a_local_function_are_captured_values():
    assert identity(make_defaulted(1), (5,), {}) != identity(make_defaulted(2), (5,), {})
    assert identity(make_defaulted(1), (5,), {}) == identity(make_defaulted(1), (5,), {})


def test_a_captured_value_without_canonical_form_names_the_variable():
    def make_fetcher(client):
        def fetch(url):
            return client, url

        return fetch

    with pytest.raises(TypeError) as raised:
        identity(make_fetcher(object()), ("https://example.com",), {})
    message = str(raised.value)
    scope = f"{__name__}.test_a_captured_value_without_canonical_form_names_the_variable.<locals>"
    assert f"argument <captured by {scope}.make_fetcher.<locals>.fetch>['client'] has no canonical" in message
    assert "durable_id=" in message
    assert identity(make_fetcher(object()), ("u",), {}, durable_id="fetch-1") == "fetch-1"


def test_a_decorator_without_wraps_is_told_apart_by_what_it_wraps():
    email, charge = logged(send_email), logged(charge_card)
    assert email.__qualname__ == charge.__qualname__
    assert identity(email, ("ada@example.com",), {}) != identity(charge, ("ada@example.com",), {})
    assert identity(email, ("ada@example.com",), {}) == identity(logged(send_email), ("ada@example.com",), {})
    assert identity(email, ("ada@example.com",), {}).startswith(f"{__name__}.logged.<locals>.wrapper::")
    # A captured callable is known by what it runs, bound values included.
    to_ada = logged(functools.partial(send_email, to="ada@example.com"))
    to_bob = logged(functools.partial(send_email, to="bob@example.com"))
    assert identity(to_ada, (), {}) != identity(to_bob, (), {})
    assert identity(logged(logged(send_email)), (), {}) != identity(logged(logged(charge_card)), (), {})
    assert identity(logged(Multiplier(2)), (5,), {}) != identity(logged(Multiplier(3)), (5,), {})


def test_a_captured_callable_that_cannot_be_named_names_the_variable():
    with pytest.raises(TypeError) as raised:
        identity(logged(lambda: None), (), {})
    message = str(raised.value)
    assert f"<captured by {__name__}.logged.<locals>.wrapper>['target']" in message
    assert "lambda" in message and "durable_id=" in message
    with pytest.raises(TypeError, match=r"<captured by .*wrapper>\['target'\]\.partial\.args\[0\] has no canonical"):
        identity(logged(functools.partial(f, object())), (), {})


def test_a_recursive_local_function_refers_to_itself_without_looping():
    def make_countdown(step):
        def countdown(n):
            return [] if n <= 0 else [n] + countdown(n - step)

        return countdown

    one, two = make_countdown(1), make_countdown(2)
    assert identity(one, (3,), {}) != identity(two, (3,), {})
    assert identity(one, (3,), {}) == identity(make_countdown(1), (3,), {})


def test_a_method_calling_super_does_not_capture_its_class():
    class Base:
        def handle(self, x):
            pass

    class Derived(Base):
        def handle(self, x):
            super().handle(x)

    assert Derived.handle.__closure__  # the __class__ cell super() needs
    assert identity(Derived().handle, (1,), {}) == (
        f"{Derived.handle.__module__}.{Derived.handle.__qualname__}::{dj.compute_args_digest((1,), {})}"
    )


def test_a_captured_variable_not_yet_assigned_is_refused():
    def make():
        def later_user():
            return later

        function = later_user
        with pytest.raises(TypeError, match=r"'later'.*not assigned.*durable_id="):
            identity(function, (), {})
        later = 1
        return function

    assert identity(make(), (), {}) != identity(make_adder(1), (), {})


def test_the_captured_values_keyword_is_reserved():
    def anything(**kwargs):
        pass

    for func, kwargs in [(anything, {"<captured>": {"n": 1}}), (functools.partial(anything, **{"<captured>": 1}), {})]:
        with pytest.raises(TypeError, match=r"\['<captured>'\] is reserved"):
            identity(func, (), kwargs)
    # The digest alone (no function) is not an identity and keeps any name.
    dj.compute_args_digest((), {"<captured>": 1})


class Mailer:
    def __call__(self, to):
        pass

    def send(self, to):
        pass


def test_function_name_is_what_a_call_runs_without_its_bound_values():
    assert function_name(functools.partial(send_email, "a@b")) == f"{__name__}.send_email"
    assert function_name(functools.wraps(charge_card)(lambda *a: charge_card(*a))) == f"{__name__}.charge_card"
    assert function_name(Mailer()) == f"{__name__}.Mailer.__call__"
    assert function_name(Mailer().send) == f"{__name__}.Mailer.send"
    # Captured values are not resolved: a closure over a value without a canonical form is named.
    client = object()

    def call_client():
        return client

    assert function_name(call_client).endswith(".call_client")


def test_function_name_refuses_a_lambda_unless_asked_to_name_it():
    anonymous = lambda: None  # noqa: E731
    with pytest.raises(TypeError, match="lambda"):
        function_name(anonymous)
    assert function_name(anonymous, lambdas=True).endswith(".<lambda>")
