"""What a restore with a candidate's code does to the journals in flight of a
file store written by Flink Agents' operator (``plan_restore``,
``--plan-restore``), and a replay of a Kafka store's retained-topic dump
(``replay_dump``, ``--dump``), over vectors the Rust side made
(tests/vectors/replay: ``capi::replay::tests`` and
``store::log::retention::tests`` write and check them). Each report is
exact; no file of the store changes and no call's body runs (each of
restore_agent.py's raises)."""

import hashlib
import shutil
from pathlib import Path

import pytest

from conftest import REPO_DIR, flink_agents_runtime

flink_agents_runtime()

from durable_journal import flink_agents as durable_journal_flink_agents  # noqa: E402
from durable_journal.replay import plan_restore, replay_dump, restore_plan  # noqa: E402
from durable_journal.replay.__main__ import main  # noqa: E402

import restore_agent  # noqa: E402

VECTORS = REPO_DIR / "tests" / "vectors" / "replay"
LOOK_UP_2 = "restore_agent.look_up::28adebcab1917273"
ASK_MODEL_1 = "restore_agent.ask_model::7eccc64fc9de07b4"
SUMMARY = ("2 replayed of restore_agent:RestoreAgent: 0 not-replayable, 1 diverged, 1 would-run, 0 failed, "
           "0 not-triggered, 0 newly-triggered, 0 output-changed, 0 unchanged; not replayed, other action names: {\"other\": 1}")
RUNS = f"a restore replays 1 recorded call, then runs {ASK_MODEL_1} at 1 and what follows"
AT_0 = f"at 0 (recorded llm, new code {LOOK_UP_2})"


@pytest.fixture(autouse=True)
def candidate_identity():
    """The candidate's calls get the ids they were recorded with, as its module's install() gives them."""
    durable_journal_flink_agents.install("restore_agent")
    yield
    durable_journal_flink_agents.uninstall("restore_agent")


@pytest.fixture
def store(tmp_path):
    copy = tmp_path / "store"
    shutil.copytree(VECTORS / "in_flight_store", copy)
    before = _files(copy)
    yield copy
    assert _files(copy) == before, "the store's files are byte-identical"


def _files(directory: Path) -> dict:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(directory.iterdir())}


@pytest.mark.parametrize("policy, diverged", [
    ("WARN", f"a restore replays 0 recorded calls, then cuts the journal {AT_0}, logs and counts it (callsDiverged), "
             f"and runs {LOOK_UP_2} and what follows"),
    ("CUT", f"a restore replays 0 recorded calls, then cuts the journal {AT_0} and runs {LOOK_UP_2} and what follows"),
    ("FAIL", f"a restore replays 0 recorded calls, then fails the task {AT_0}: NON_DETERMINISTIC_REPLAY"),
])
def test_each_entry_in_flight_is_planned_under_the_policy(store, policy, diverged):
    report = plan_restore(store, restore_agent.RestoreAgent, policy, candidate_name="restore_agent:RestoreAgent")
    rows = [(a.key, a.action, a.outcome, a.replayed_calls, a.recorded_calls, a.detail) for a in report.actions]
    assert rows == [
        ("str:user-1", "act", "would-run", 1, 1, RUNS),
        ("str:user-2", "act", "diverged", 0, 1, diverged),
    ], "the completed entry (user-3) is not in flight; the other action's is counted"
    assert (report.actions[0].stop.candidate_id, report.actions[1].stop.recorded_id) == (ASK_MODEL_1, "llm")
    assert report.to_table().splitlines() == [
        "key         seq  action  outcome    calls         detail",
        f"str:user-1  0    act     would-run  1/1 replayed  {RUNS}",
        f"str:user-2  0    act     diverged   0/1 replayed  {diverged}",
        SUMMARY,
    ]


def test_the_command_plans_a_restore_and_exits_1_on_what_it_finds(store, capsys):
    assert main(["--store", str(store), "--agent", "restore_agent:RestoreAgent", "--plan-restore", "FAIL"]) == 1
    assert capsys.readouterr().out.splitlines()[-1] == SUMMARY
    assert main(["--store", str(store), "--agent", "restore_agent:RestoreAgent", "--plan-restore", "CUT",
                 "--key", "str:user-1", "--fail-on", "diverged"]) == 0


def test_a_restore_plan_is_the_native_librarys_and_a_finished_or_failed_action_says_so():
    assert restore_plan("WARN", 2, None, None) == {
        "replayed": 2, "consequence": "completes", "text": "a restore replays 2 recorded calls and completes without running a call"}
    assert restore_plan("FAIL", 1, None, "ValueError: no")["text"] == "a restore replays 1 recorded call, then the action throws ValueError: no"
    # Memory the replay cannot rebuild: the native library says the plan stops there, under every policy.
    for policy in ("WARN", "CUT", "FAIL"):
        assert restore_plan(policy, 1, None, None, "memory not reconstructible: seq 0 is missing") == {
            "replayed": 1, "consequence": "unplanned",
            "text": "a restore replays 1 recorded call, then the plan cannot follow the action: memory not reconstructible: seq 0 is missing"}
    with pytest.raises(ValueError, match="no divergence policy 'LOUD'"):
        restore_plan("LOUD", 0, None, None)


DUMP_TABLE = [
    "key         seq  action  outcome    calls         detail",
    "str:user-1  0    act     unchanged  2/2 replayed",
    f"str:user-2  0    act     diverged   0/1 replayed  diverged at 0: recorded llm (SUCCEEDED), candidate {LOOK_UP_2}",
    "2 replayed of restore_agent:RestoreAgent: 0 not-replayable, 1 diverged, 0 would-run, 0 failed, 0 not-triggered, "
    "0 newly-triggered, 0 output-changed, 1 unchanged",
]


def test_a_retained_topic_dump_replays_through_the_candidate(tmp_path, capsys):
    dump = tmp_path / "retained.dump"
    shutil.copyfile(VECTORS / "retained_topic.dump", dump)
    report = replay_dump(dump, restore_agent.RestoreAgent, candidate_name="restore_agent:RestoreAgent")
    assert report.to_table().splitlines() == DUMP_TABLE
    assert report.actions[0].candidate_outputs == report.actions[0].recorded_outputs == [
        '{"attributes":{"output":"model says hi"},"type":"_output_event"}']
    assert main(["--dump", str(dump), "--agent", "restore_agent:RestoreAgent", "--fail-on", "would-run"]) == 0
    assert capsys.readouterr().out.splitlines() == DUMP_TABLE
    assert dump.read_bytes() == (VECTORS / "retained_topic.dump").read_bytes()


def test_a_file_that_is_no_dump_exits_2_saying_why(tmp_path, capsys):
    not_a_dump = tmp_path / "retained.log"
    not_a_dump.write_bytes(b"DJKX")
    assert main(["--dump", str(not_a_dump), "--agent", "restore_agent:RestoreAgent"]) == 2
    assert "not a Kafka journal dump (KafkaJournalTool dump): it does not start with DJKD" in capsys.readouterr().err
    assert main(["--dump", str(tmp_path / "missing"), "--agent", "restore_agent:RestoreAgent"]) == 2
    assert "No such file" in capsys.readouterr().err
