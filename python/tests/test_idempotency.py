"""Idempotency keys of journaled calls (docs/identity.md): every case of
tests/vectors/idempotency.json through the C ABI, and the current call."""

import asyncio
import json
import threading

import pytest
from conftest import VECTORS_FILE

import durable_journal
from durable_journal import CallInterruptedError, DurableCall, ErrorCode, InvalidArgumentError

CASES = json.loads((VECTORS_FILE.parent / "idempotency.json").read_text(encoding="utf-8"))["cases"]


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_vector(case):
    entry = bytes.fromhex(case["entry_hex"])
    if "error" in case:
        with pytest.raises(InvalidArgumentError) as raised:
            durable_journal.call_idempotency_key(entry, case["call_id"], case["occurrence"])
        assert raised.value.code.name == case["error"]
    else:
        assert durable_journal.call_idempotency_key(entry, case["call_id"], case["occurrence"]) == case["key"]


def test_arguments_of_the_wrong_type_are_refused_before_the_library_is_called():
    with pytest.raises(TypeError):
        durable_journal.call_idempotency_key("not bytes", "c", 0)
    with pytest.raises(TypeError):
        durable_journal.call_idempotency_key(b"e", "c", True)


def test_current_call_is_the_running_call_inside_the_block_and_none_outside():
    with pytest.raises(LookupError):
        durable_journal.current_call()
    call = DurableCall("send-mail", 2, "idem:" + "0" * 32)
    with durable_journal.running_call(call):
        assert durable_journal.current_call() is call
        inner = DurableCall("other", 3, "idem:" + "1" * 32)
        with durable_journal.running_call(inner):
            assert durable_journal.current_call() is inner
        assert durable_journal.current_call() is call
    with pytest.raises(LookupError):
        durable_journal.current_call()


def test_the_current_call_belongs_to_its_context_not_to_another_thread():
    seen = []
    with durable_journal.running_call(DurableCall("a", 0, "idem:" + "2" * 32)):
        thread = threading.Thread(target=lambda: seen.append(_current_or_none()))
        thread.start()
        thread.join()

        async def body():
            return durable_journal.current_call().call_id

        assert asyncio.run(body()) == "a", "a task started in the body sees the call"
    assert seen == [None]


def _current_or_none():
    try:
        return durable_journal.current_call()
    except LookupError:
        return None


def test_call_interrupted_error_carries_its_code_and_the_call():
    error = CallInterruptedError("interrupted", "send-mail", 1, "idem:x", "str:user-1", 3, "reply")
    assert error.code == ErrorCode.CALL_INTERRUPTED == 17
    assert (error.call_id, error.position, error.sequence_number) == ("send-mail", 1, 3)
    assert isinstance(error, durable_journal.JournalError)
