"""Every case of tests/vectors/identity.json, computed through the Python
package (tree -> C ABI -> Rust). The same file is checked by cargo test and
JUnit, so parity breaks fail in all three languages."""

import base64
import json

import pytest

import durable_journal as dj
from conftest import VECTORS_FILE
from vector_values import NativeBuilder, normalized

VECTORS = json.loads(VECTORS_FILE.read_text(encoding="utf-8"))
CASES = VECTORS["cases"]
PYTHON_TYPES = VECTORS["python_types"]


# The kinds some test below checks, filled as the tests are defined: every kind in the vectors
# must be one of them, so a kind added to the file without a Python check fails here.
CHECKED_KINDS = set()


def cases_of(*kinds):
    CHECKED_KINDS.update(kinds)
    return [pytest.param(c, id=c["name"]) for c in CASES if c["kind"] in kinds]


def error_code(case):
    return dj.ErrorCode[case["error"]]


def function_named(function_id):
    module, _, qualname = function_id.rpartition(".")

    def f():
        pass

    f.__module__, f.__qualname__ = module, qualname
    return f


@pytest.mark.parametrize("case", cases_of("args_digest"))
def test_args_digest(case):
    args, kwargs = NativeBuilder(PYTHON_TYPES).call(case["args"], case["kwargs"])
    if "error" in case:
        with pytest.raises(TypeError) as raised:
            dj.compute_args_digest(args, kwargs)
        assert raised.value.code == error_code(case)
        assert f"argument {case['path']} has no canonical encoding" in str(raised.value)
        assert "durable_id=" in str(raised.value)
        return
    assert dj.compute_args_digest(args, kwargs) == case["digest"]


@pytest.mark.parametrize("case", [c for c in cases_of("args_digest") if "error" not in c.values[0]])
def test_python_values_marshal_to_the_vector_tree(case):
    args, kwargs = NativeBuilder(PYTHON_TYPES).call(case["args"], case["kwargs"])
    expected = {"args": case["args"], "kwargs": case["kwargs"]}
    assert normalized(dj.call_tree(args, kwargs)) == normalized(expected)


@pytest.mark.parametrize("case", [c for c in cases_of("args_digest") if "error" not in c.values[0]])
def test_insertion_order_never_changes_the_digest(case):
    args, kwargs = NativeBuilder(PYTHON_TYPES, reverse=True).call(case["args"], case["kwargs"])
    assert dj.compute_args_digest(args, kwargs) == case["digest"]


@pytest.mark.parametrize("case", cases_of("call_id"))
def test_call_id(case):
    func = function_named(case["function_id"])
    if "durable_id" in case:
        # An explicit id never looks at the arguments: give it ones that
        # have no canonical form.
        args, kwargs = (object(),), {"client": object()}
        call = lambda: dj.durable_identity_for_call(func, args, kwargs, durable_id=case["durable_id"])
    else:
        args, kwargs = NativeBuilder(PYTHON_TYPES).call(case["args"], case["kwargs"])
        call = lambda: dj.durable_identity_for_call(func, args, kwargs)
    outcome_of(case, call)


def outcome_of(case, call):
    if "error" in case:
        with pytest.raises(dj.JournalError) as raised:
            call()
        assert raised.value.code == error_code(case)
    else:
        assert call() == case["expected"]


@pytest.mark.parametrize("case", cases_of("tool_call_id"))
def test_tool_call_id(case):
    outcome_of(case, lambda: dj.tool_call_durable_id(case["tool_call_id"]))


@pytest.mark.parametrize("case", cases_of("chat"))
def test_chat(case):
    assert dj.CHAT_DURABLE_ID == case["expected"]


@pytest.mark.parametrize("case", cases_of("root_occurrence"))
def test_root_occurrence(case):
    key = base64.b64decode(case["business_key"])
    outcome_of(case, lambda: dj.RuntimeIdentity.root_occurrence(key, case["input_sequence"]))


@pytest.mark.parametrize("case", cases_of("action_execution"))
def test_action_execution(case):
    outcome_of(
        case,
        lambda: dj.RuntimeIdentity.action_execution(case["triggering_occurrence"], case["action_name"]),
    )


@pytest.mark.parametrize("case", cases_of("emitted_occurrence"))
def test_emitted_occurrence(case):
    outcome_of(
        case,
        lambda: dj.RuntimeIdentity.emitted_occurrence(case["producer_execution"], case["emission_ordinal"]),
    )


@pytest.mark.parametrize("case", cases_of("generated_call_id"))
def test_generated_call_id(case):
    outcome_of(
        case,
        lambda: dj.RuntimeIdentity.generated_call_id(
            case["namespace"], case["session_id"], case["call_ordinal"]
        ),
    )


@pytest.mark.parametrize("case", cases_of("execution_identity"))
def test_execution_identity(case):
    if "error" in case:
        with pytest.raises(dj.JournalError) as raised:
            dj.ExecutionIdentity(case["execution_id"])
        assert raised.value.code == error_code(case)
        return
    produced = []
    with dj.RuntimeIdentity.for_execution(case["execution_id"]) as ids:
        for step in case["steps"]:
            if "emit" in step:
                existing = step["emit"]
                if existing is not None and existing.startswith("$"):
                    existing = produced[int(existing[1:])]
                call = lambda: ids.emit(existing)
            else:
                call = lambda: ids.next_call_id(**step["next_call_id"])
            if "error" in step:
                with pytest.raises(dj.JournalError) as raised:
                    call()
                assert raised.value.code == error_code(step)
                produced.append(None)
            else:
                produced.append(call())
                assert produced[-1] == step["expected"]


def test_vectors_are_enough_and_cover_every_kind():
    assert len(CASES) >= 60
    kinds = {c["kind"] for c in CASES}
    assert kinds == CHECKED_KINDS
    kinds_used = {info["kind"] for info in PYTHON_TYPES.values()}
    assert kinds_used == {"dataclass", "pydantic"}
