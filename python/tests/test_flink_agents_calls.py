"""durable_journal.flink_agents_calls against a stand-in for the Java
NativeJournalContext: what a Python durable_execute call declares, and how it
follows the native journal's decision (beginCallWithSemantics). The journal's
decisions themselves are the Rust journal's (rust/journal/semantics/tests.rs);
the job runs are PythonIdempotencyJobTest."""

import threading

import pytest

cloudpickle = pytest.importorskip("cloudpickle")

import durable_journal
from durable_journal import flink_agents_calls as calls


class StandInJournal:
    """Answers beginCallWithSemantics with ``answer`` and notes what it is asked."""

    def __init__(self, answer=None):
        self.answer = answer
        self.begun = []
        self.recorded = []

    def beginCallWithSemantics(self, function, digest, declared):
        self.begun.append((function, digest, declared))
        return self.answer

    def recordCallCompletion(self, function, digest, result, exception):
        self.recorded.append((function, digest, result, exception))


def lookup(x):
    return x + 1


def test_the_wrappers_declare_their_semantics_and_keep_the_functions_identity():
    assert calls.declared_semantics(lookup) is None
    assert calls.declared_semantics(calls.at_most_once(lookup)) == "AT_MOST_ONCE"
    assert calls.declared_semantics(calls.at_least_once(lookup)) == "AT_LEAST_ONCE"
    assert calls.is_at_most_once(calls.at_most_once(lookup))
    assert not calls.is_at_most_once(calls.at_least_once(lookup))
    assert calls.at_least_once(lookup).__qualname__ == lookup.__qualname__
    assert calls.at_least_once(lookup)(1) == 2


def test_a_call_the_journal_lets_run_records_its_outcome_under_its_declared_semantics():
    journal = StandInJournal()
    assert calls._decided(journal, "lookup", "d1", "AT_LEAST_ONCE", lookup, (1,), {}) == 2
    assert journal.begun == [("lookup", "d1", "AT_LEAST_ONCE")]
    assert [(f, d, cloudpickle.loads(r), e) for f, d, r, e in journal.recorded] == [("lookup", "d1", 2, None)]


def test_a_failing_body_is_recorded_and_raised():
    journal = StandInJournal()

    def fails():
        raise ValueError("no such user")

    with pytest.raises(ValueError, match="no such user"):
        calls._decided(journal, "fails", "", None, fails, (), {})
    (_, _, result, exception), = journal.recorded
    assert result is None and isinstance(cloudpickle.loads(exception), ValueError)


def test_an_outcome_that_cannot_be_pickled_is_raised_and_not_recorded():
    journal = StandInJournal()
    with pytest.raises(Exception):
        calls._decided(journal, "lock", "", None, threading.Lock, (), {})
    assert journal.recorded == []


def test_a_recorded_outcome_is_replayed_without_running_the_body():
    journal = StandInJournal([True, cloudpickle.dumps("recorded"), None])
    assert calls._decided(journal, "lookup", "", None, pytest.fail, (), {}) == "recorded"
    assert journal.recorded == []


def test_an_interrupted_call_raises_call_interrupted_error_with_its_key():
    journal = StandInJournal([False, "interrupted", "charge", 0, "idem:" + "0" * 32, "str:user-1", 3, "answer"])
    with pytest.raises(durable_journal.CallInterruptedError) as raised:
        calls._decided(journal, "charge", "", None, pytest.fail, (), {})
    assert raised.value.idempotency_key == "idem:" + "0" * 32
    assert raised.value.position == 0
    assert journal.recorded == []
