"""RuntimeIdentity and the ExecutionIdentity allocators through the C ABI."""

import threading

import pytest

import durable_journal as dj
from durable_journal import RuntimeIdentity

OCCURRENCE = RuntimeIdentity.root_occurrence(b"user-42", 0)
EXECUTION = RuntimeIdentity.action_execution(OCCURRENCE, "reply")


def test_id_shapes():
    assert OCCURRENCE.startswith("occ:") and len(OCCURRENCE) == 4 + 32
    assert EXECUTION.startswith("exec:") and len(EXECUTION) == 5 + 32
    assert RuntimeIdentity.generated_call_id("ns", "s", 0).startswith("call:")


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: RuntimeIdentity.root_occurrence(b"k", -1), "must not be negative"),
        (lambda: RuntimeIdentity.root_occurrence(b"", 0), "business key is missing"),
        (lambda: RuntimeIdentity.root_occurrence(None, 0), "business key is missing"),
        (lambda: RuntimeIdentity.action_execution(OCCURRENCE, ""), "action name is missing"),
        (lambda: RuntimeIdentity.action_execution(None, "a"), "triggering occurrence is missing"),
        (lambda: RuntimeIdentity.action_execution(EXECUTION, "a"), "occ:<32 hex digits>"),
        (lambda: RuntimeIdentity.emitted_occurrence(EXECUTION, -3), "must not be negative"),
        (lambda: RuntimeIdentity.generated_call_id("ns", None, 0), "session id is missing"),
        (lambda: RuntimeIdentity.generated_call_id("ns", "s", 2**63), "does not fit"),
        (lambda: dj.tool_call_durable_id(""), "tool call id is empty"),
        (lambda: dj.tool_call_durable_id("a\ud800"), "not valid Unicode"),
    ],
)
def test_invalid_components_raise_value_error(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_wrong_types_raise_type_error():
    with pytest.raises(TypeError):
        RuntimeIdentity.root_occurrence("user-42", 0)
    with pytest.raises(TypeError):
        RuntimeIdentity.emitted_occurrence(EXECUTION, True)
    with pytest.raises(TypeError):
        RuntimeIdentity.action_execution(OCCURRENCE, 7)


def test_tool_call_ids_pass_through_unchanged():
    for tool_call_id in ["call_1", "调用-🔧", "😀" * 40, "a\u0000b"]:
        assert dj.tool_call_durable_id(tool_call_id) == "tool-call:" + tool_call_id


def test_equal_payload_events_in_one_round_get_distinct_ids_and_replay_reproduces_them():
    def round_of_two_equal_events():
        # Two input events with the same payload for one key in one round:
        # only their sequence numbers differ.
        occurrences = [RuntimeIdentity.root_occurrence(b"user-7", seq) for seq in (0, 1)]
        ids = []
        for occurrence in occurrences:
            execution = RuntimeIdentity.action_execution(occurrence, "echo")
            with RuntimeIdentity.for_execution(execution) as allocator:
                # the action emits the same payload twice and chats twice
                ids += [execution, allocator.emit(), allocator.emit()]
                ids += [allocator.next_call_id("chat", "s"), allocator.next_call_id("chat", "s")]
        return occurrences + ids

    first = round_of_two_equal_events()
    assert len(set(first)) == len(first)
    assert round_of_two_equal_events() == first


def test_re_emitting_an_event_with_an_id_is_an_error():
    with dj.ExecutionIdentity(EXECUTION) as ids:
        event_id = ids.emit()
        with pytest.raises(dj.IllegalStateError, match="already has occurrence id") as raised:
            ids.emit(event_id)
        assert raised.value.code == dj.ErrorCode.ILLEGAL_STATE
        assert ids.emit() == RuntimeIdentity.emitted_occurrence(EXECUTION, 1)


def test_call_ordinals_are_per_target():
    with dj.ExecutionIdentity(EXECUTION) as ids:
        chat0, search0, chat1 = ids.next_call_id("chat", "s"), ids.next_call_id("search", "s"), ids.next_call_id("chat", "s")
    assert chat0 == RuntimeIdentity.generated_call_id(EXECUTION + "/chat", "s", 0)
    assert chat1 == RuntimeIdentity.generated_call_id(EXECUTION + "/chat", "s", 1)
    assert search0 == RuntimeIdentity.generated_call_id(EXECUTION + "/search", "s", 0)


def test_closed_allocator_fails_fast_and_close_is_idempotent():
    ids = dj.ExecutionIdentity(EXECUTION)
    ids.close()
    ids.close()
    with pytest.raises(RuntimeError, match="closed"):
        ids.emit()


def test_concurrent_emits_hand_out_each_ordinal_once():
    threads, per_thread = 8, 50
    results = []
    with dj.ExecutionIdentity(EXECUTION) as ids:
        def work():
            mine = [ids.emit() for _ in range(per_thread)]
            results.extend(mine)

        workers = [threading.Thread(target=work) for _ in range(threads)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
    expected = {RuntimeIdentity.emitted_occurrence(EXECUTION, n) for n in range(threads * per_thread)}
    assert sorted(results) == sorted(expected)
