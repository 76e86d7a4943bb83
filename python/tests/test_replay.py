"""durable_journal.replay's own parts: the C ABI journal it replays calls
on (every decision the native library's), the retained actions it reads,
Kryo scalars of memory updates, memory history, the selection and the
command's arguments. The replay of a real recording through Flink Agents'
runner context is PythonReplayJobTest's (java/flink-agents)."""

import base64
import json

import pytest

from durable_journal import ErrorCode, JournalError
from durable_journal.replay import Selection, read_retained
from durable_journal.replay.__main__ import main
from durable_journal.replay.journal import ReplayJournal
from durable_journal.replay.kryo import UnreadableValue, read_value
from durable_journal.replay.memory import History, ReplayMemory
from durable_journal.replay.recorded import RecordedAction

LOOK_UP = "agent.look_up::0123456789abcdef"


def state(*ids):
    calls = [{"functionId": i, "argsDigest": "", "status": "SUCCEEDED", "resultPayload": base64.b64encode(b"r").decode(),
              "exceptionPayload": None} for i in ids]
    return json.dumps({"taskEvent": None, "sensoryMemoryUpdates": [], "shortTermMemoryUpdates": [], "outputEvents": [],
                       "callResults": calls, "completed": True})


def test_the_native_journal_replays_a_matching_call_and_says_where_a_new_one_would_run():
    with ReplayJournal(state(LOOK_UP, "patched:v2")) as journal:
        assert journal.position() == {"position": 0, "length": 2, "slot": {
            "id": LOOK_UP, "functionId": "agent.look_up", "argsDigest": "0123456789abcdef", "status": "SUCCEEDED"}}
        assert journal.match_next("agent.look_up", "0123456789abcdef") == {"step": "hit", "position": 0, "callId": LOOK_UP}
        assert journal.patched("v2") is True
        assert journal.match_next("agent.mail", "") == {"step": "run", "position": 2, "callId": "agent.mail"}
        journal.record("agent.mail", "")
        assert journal.position() == {"position": 3, "length": 3, "slot": None}


def test_another_call_at_a_recorded_position_is_the_journals_divergence():
    with ReplayJournal(state(LOOK_UP)) as journal:
        answer = journal.match_next("agent.search", "0123456789abcdef")
        assert answer["step"] == "diverged"
        assert answer["divergence"]["position"] == 0
        assert answer["divergence"]["recorded"] == {"functionId": LOOK_UP, "argsDigest": "", "status": "SUCCEEDED"}
        assert answer["divergence"]["newCall"] == {"functionId": "agent.search::0123456789abcdef", "argsDigest": "0123456789abcdef"}
        assert journal.patched("v3") is False, "an old recording takes the old path"
        assert journal.position()["position"] == 0, "nothing changed"


def test_a_closed_journal_and_bad_state_are_clear_errors():
    journal = ReplayJournal(state())
    journal.close()
    journal.close()
    with pytest.raises(RuntimeError, match="closed"):
        journal.position()
    with pytest.raises(JournalError) as raised:
        ReplayJournal("[1]")
    assert raised.value.code == ErrorCode.MALFORMED_JSON


def test_retained_actions_are_read_read_only(tmp_path):
    assert read_retained(tmp_path) == []
    assert list(tmp_path.iterdir()) == [], "reading creates nothing"
    with pytest.raises(JournalError) as raised:
        read_retained(tmp_path / "missing")
    assert raised.value.code == ErrorCode.STORE_IO


@pytest.mark.parametrize("payload, value", [
    (b"\x09\x02", 1), (b"\x09\x03", -2), (b"\x09\xac\x02", 150), (b"\x02\x04", 2), (b"\x05\x01", True), (b"\x00", None),
    (b"\x03hel\xec", "hell"), (b"\x03\x82\xc3\xa9", "\u00e9"), (b"\x03\x81", ""),
])
def test_kryo_scalars_of_memory_updates_are_read(payload, value):
    assert read_value({"serde": "kryo", "version": 1, "payload": base64.b64encode(payload).decode()}) == value


def test_other_kryo_values_are_not_guessed():
    with pytest.raises(UnreadableValue, match="class registration 8"):
        read_value({"serde": "kryo", "version": 1, "payload": base64.b64encode(b"\x0a" + bytes(8)).decode()})
    assert read_value({"a": 1}) == {"a": 1}, "a JSON value is itself"


def recorded(number, seq, key="str:k", updates=()):
    body = {"shortTermMemoryUpdates": [{"path": p, "value": v} for p, v in updates]}
    return RecordedAction(number, 0, None, key, seq, "act", f"occ:{number}", json.dumps(body), body)


def test_memory_is_rebuilt_only_from_a_complete_history():
    history = [recorded(0, 0, updates=[("n", 1)]), recorded(1, 0, key="str:other"), recorded(2, 1)]
    assert History(history).gap(history[2]) is None
    assert History(history).updates(history[2], sensory=False) == [{"path": "n", "value": 1}]
    assert History(history).earlier_count(history[2]) == 1, "the other key's action is not of its history"
    assert "no longer holds 1 of the 2" in History(history[1:]).gap(history[2])
    assert "sequence number 0" in History([recorded(0, 1), recorded(1, 1)]).gap(recorded(1, 1))


def test_a_read_of_memory_that_is_not_known_stops_and_a_known_one_answers():
    stops = []
    memory = ReplayMemory(None, "gone", lambda why: stops.append(why) or KeyError(why))
    memory.view().set("x", 1)
    assert memory.updates == [{"path": "x", "value": 1}] and not memory.read, "a write reads nothing"
    with pytest.raises(KeyError):
        memory.view().get("x")
    assert stops == ["gone"] and memory.read
    known = ReplayMemory([{"path": "a.b", "value": 2}], None, KeyError).view()
    assert known.get("a.b").getValue() == 2 and known.get("a").get("b").getValue() == 2
    assert (known.isExist("a"), known.get("c"), known.getFieldNames()) == (True, None, ["a"])


def test_the_selection_takes_key_action_window_and_count_oldest_first():
    actions = [RecordedAction(i, 100 + i, None, f"str:{i % 2}", i, "a" if i < 3 else "b", "e", "{}", {}) for i in range(5)]
    numbers = lambda s: [a.number for a in s.apply(actions)]  # noqa: E731
    assert numbers(Selection()) == [0, 1, 2, 3, 4]
    assert numbers(Selection(key="str:0", limit=2)) == [0, 2]
    assert numbers(Selection(action="b")) == [3, 4]
    assert numbers(Selection(since=101, until=103)) == [1, 2]
    with pytest.raises(ValueError, match="negative"):
        Selection(limit=-1)


@pytest.mark.parametrize("args, message", [
    ([], "exactly one of --store and --dump is required"),
    (["--store", "d", "--dump", "f", "--agent", "json:dumps"], "exactly one of --store and --dump"),
    (["--store", "d"], "--agent is required"),
    (["--dump", "f", "--agent", "json:dumps", "--plan-restore", "WARN"], "--plan-restore plans the journals in flight of a file store"),
    (["--store", "d", "--agent", "json:dumps", "--stubs", "json:x", "--plan-restore", "CUT"], "--stubs does not apply to --plan-restore"),
    (["--store", "d", "--agent", "json:dumps", "--plan-restore", "LOUD"], "--plan-restore takes a divergence policy (CUT, WARN, FAIL), not 'LOUD'"),
    (["--store", "d", "--agent", "nomodule_xyz:A"], "cannot import nomodule_xyz"),
    (["--store", "d", "--agent", "json"], "is not module:attr"),
    (["--store", "d", "--agent", "json:nothing"], "json has no nothing"),
    (["--store", "d", "--agent", "json:dumps", "--fail-on", "broken"], "unknown outcome 'broken'"),
    (["--store", "d", "--agent", "json:dumps", "--limit", "x"], "--limit needs a whole number"),
    (["--store"], "--store needs a value"),
    (["--bogus", "1"], "unknown flag --bogus"),
])
def test_bad_arguments_exit_2_saying_why(args, message, capsys):
    assert main(args) == 2
    assert message in capsys.readouterr().err


def test_what_a_candidate_action_listens_to_decides_its_trigger_and_an_expression_is_not_guessed():
    from types import SimpleNamespace

    from durable_journal.replay.replayer import _triggers

    assert _triggers(SimpleNamespace(listen_event_types=["_input_event"]), "_input_event") is True  # Flink Agents 0.3
    assert _triggers(SimpleNamespace(listen_event_types=["review_event"]), "_input_event") is False
    assert _triggers(SimpleNamespace(trigger_conditions=["review_event"]), "_input_event") is False  # main
    assert _triggers(SimpleNamespace(trigger_conditions=["type == '_input_event' and x > 1"]), "_input_event") is None


def test_a_pending_recorded_slot_stops_the_action_instead_of_running_its_reconciler():
    from durable_journal.replay.context import ReplayJavaContext, ReplayStop

    pending = json.loads(state(LOOK_UP))
    pending["callResults"][0].update(status="PENDING", resultPayload=None)
    with ReplayJournal(json.dumps(pending)) as journal:
        memory = ReplayMemory([], None, KeyError)
        java = ReplayJavaContext(journal, pending["callResults"], "act", {}, memory, memory)
        with pytest.raises(ReplayStop, match="PENDING: its reconciler would run"):
            java.getCurrentCallResultFields()
        assert (java.stop.kind, java.stop.position, java.stop.recorded_id) == ("would-run", 0, LOOK_UP)


def test_a_call_past_the_recording_is_answered_by_its_stub_or_stops():
    cloudpickle = pytest.importorskip("cloudpickle")  # Flink Agents' payloads; not a dependency of durable_journal

    from durable_journal.replay.context import ReplayJavaContext, ReplayStop

    with ReplayJournal(state(LOOK_UP)) as journal:
        memory = ReplayMemory([], None, KeyError)
        java = ReplayJavaContext(journal, json.loads(state(LOOK_UP))["callResults"], "act", {"agent.mail": lambda: "stubbed"},
                                 memory, memory)
        assert java.matchNextOrClearSubsequentCallResult("agent.look_up", "0123456789abcdef") == [True, b"r", None]
        hit, value, exception = java.matchNextOrClearSubsequentCallResult("agent.mail", "fedcba9876543210")
        assert (hit, cloudpickle.loads(value), exception) == (True, "stubbed", None)
        with pytest.raises(ReplayStop, match="would run call 'agent.fax::fedcba9876543210' at position 2"):
            java.matchNextOrClearSubsequentCallResult("agent.fax", "fedcba9876543210")
        assert (java.replayed_calls, java.stubbed_calls) == (1, ["agent.mail::fedcba9876543210"])
        assert java.stop.candidate_args_digest == "fedcba9876543210"


def test_an_unreadable_store_exits_2_saying_why(tmp_path, capsys):
    assert main(["--store", str(tmp_path / "missing"), "--agent", "json:dumps"]) == 2
    assert "no store directory here" in capsys.readouterr().err
