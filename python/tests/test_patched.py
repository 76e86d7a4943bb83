"""``patched(ctx, change_id)`` for Python actions: the library decides at the
slot in front of the call index; the runner context's Java journal (here a
stand-in with Flink Agents' primitives) records or steps past the marker."""

import pytest

from durable_journal import InvalidArgumentError, patched


class FakeJavaRunnerContext:
    """The primitives Flink Agents' Python runner context calls on its Java
    side, over a list of ``[id, status, result, exception]`` slots."""

    def __init__(self, slots=None):
        self.slots = [list(s) for s in (slots or [])]
        self.index = 0
        self.writes = 0

    def getCurrentCallResultFields(self):
        return list(self.slots[self.index]) if self.index < len(self.slots) else None

    def recordCallCompletion(self, function_id, args_digest, result, exception):
        del self.slots[self.index:]
        self.slots.append([function_id, "FAILED" if exception else "SUCCEEDED", result, exception])
        self.index += 1
        self.writes += 1

    def matchNextOrClearSubsequentCallResult(self, function_id, args_digest):
        slot = self.getCurrentCallResultFields()
        assert slot is not None and slot[0] == function_id, "patched only steps past its own marker"
        self.index += 1
        return [True, slot[2], slot[3]]


class Ctx:
    def __init__(self, java):
        self._j_runner_context = java


def test_a_new_execution_records_the_marker_and_its_replay_answers_true():
    java = FakeJavaRunnerContext()
    assert patched(Ctx(java), "prompt-v2") is True
    assert java.slots == [["patched:prompt-v2", "SUCCEEDED", None, None]]
    replay = FakeJavaRunnerContext(java.slots + [["llm-v2", "SUCCEEDED", b'"a"', None]])
    assert patched(Ctx(replay), "prompt-v2") is True
    assert (replay.index, replay.writes) == (1, 0)


def test_a_replay_recorded_before_the_change_takes_the_old_path_and_changes_nothing():
    recorded = [["llm-v1", "SUCCEEDED", b'"a"', None]]
    java = FakeJavaRunnerContext(recorded)
    assert patched(Ctx(java), "prompt-v2") is False
    assert (java.slots, java.index, java.writes) == (recorded, 0, 0)
    assert patched(Ctx(FakeJavaRunnerContext([["patched:other", "SUCCEEDED", None, None]])), "prompt-v2") is False
    assert patched(Ctx(FakeJavaRunnerContext([["patched:prompt-v2", "PENDING", None, None]])), "prompt-v2") is False


def test_an_empty_change_id_is_refused():
    with pytest.raises(InvalidArgumentError, match="non-empty change id"):
        patched(Ctx(FakeJavaRunnerContext()), "")


class FlinkAgentsJavaRunnerContext(FakeJavaRunnerContext):
    """Flink Agents' Java runner context: five fields, the function id and args digest apart."""

    def getCurrentCallResultFields(self):
        slot = super().getCurrentCallResultFields()
        if slot is None:
            return None
        function_id, _, digest = slot[0].partition("::")
        return [function_id, digest, slot[1], slot[2], slot[3]]


def test_flink_agents_five_field_slots_are_read_as_their_id_and_status():
    replay = FlinkAgentsJavaRunnerContext([["patched:prompt-v2", "SUCCEEDED", None, None], ["llm-v2", "SUCCEEDED", b'"a"', None]])
    assert patched(Ctx(replay), "prompt-v2") is True
    assert (replay.index, replay.writes) == (1, 0)
    old = FlinkAgentsJavaRunnerContext([["agent.ask::0123456789abcdef", "SUCCEEDED", b'"a"', None]])
    assert patched(Ctx(old), "prompt-v2") is False
    assert (old.index, old.writes) == (0, 0)
