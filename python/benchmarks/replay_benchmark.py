"""How fast durable_journal.replay replays Flink Agents Python actions:
10,000 recorded actions of 10 calls of 1 KB each (the issue's size), made
up in the retained form (``RecordedAction``: the state JSON a file store
retains, Flink Agents' cloudpickle payloads), replayed through an agent
whose action makes those 10 calls, reads and writes short-term memory and
sends one output. The baseline, measured in the same run: the same action
run as often through Flink Agents' ``FlinkRunnerContext`` with its calls'
bodies run (a stand-in Java side that records nothing).

    DURABLE_JOURNAL_LIB=target/release/libdurable_journal.so PYTHONPATH=python \\
        build/pyenv/bin/python python/benchmarks/replay_benchmark.py [--actions 10000]
"""

import argparse
import base64
import functools
import json
import sys
import time

import cloudpickle
from flink_agents.api.agents.agent import Agent
from flink_agents.api.decorators import action
from flink_agents.api.events.event import Event, InputEvent, OutputEvent
from flink_agents.api.runner_context import RunnerContext

from durable_journal import compute_args_digest
from durable_journal import flink_agents as durable_journal_flink_agents
from durable_journal.replay import plan_of, replay_recorded
from durable_journal.replay.recorded import RecordedAction

durable_journal_flink_agents.install()

CALLS = 10
PAYLOAD = "x" * 1024


def tool(index, request):
    return PAYLOAD


class BenchmarkAgent(Agent):
    @action(InputEvent.EVENT_TYPE)
    @staticmethod
    def answer(event: Event, ctx: RunnerContext) -> None:
        request = InputEvent.from_event(event).input
        total = sum(len(ctx.durable_execute(functools.partial(tool, i), request)) for i in range(CALLS))
        count = (ctx.short_term_memory.get("n") or 0) + 1
        ctx.short_term_memory.set("n", count)
        ctx.send_event(OutputEvent(output={"request": request, "total": total, "n": count}))


def recorded(number):
    request = f"request-{number}"
    digest = compute_args_digest((request,), {})
    result = base64.b64encode(cloudpickle.dumps(PAYLOAD)).decode()
    calls = [{"functionId": f"__main__.tool::{digest}", "argsDigest": "", "status": "SUCCEEDED",
              "resultPayload": result, "exceptionPayload": None} for _ in range(CALLS)]
    output = {"type": "_output_event", "attributes": {"output": {"request": request, "total": CALLS * 1024, "n": 1}}}
    kryo_long = base64.b64encode(bytes([9, 2])).decode()  # Kryo's Long 1
    state = {"taskEvent": {"@class": "org.apache.flink.agents.api.InputEvent", "type": "_input_event",
                           "attributes": {"input": request}},
             "sensoryMemoryUpdates": [], "shortTermMemoryUpdates": [{"path": "n", "value": {"serde": "kryo", "version": 1, "payload": kryo_long}}],
             "outputEvents": [output], "callResults": calls, "completed": True}
    text = json.dumps(state)
    # One key per action: each reads memory of a complete, empty history.
    return RecordedAction(number, 0, None, f"str:user-{number}", 0, "answer", f"occ:{number}", text, json.loads(text))


class _Direct:
    """A Java side whose calls all run (no recording): the baseline."""

    def __init__(self):
        self.memory = {}

    def matchNextOrClearSubsequentCallResult(self, function_id, args_digest):  # noqa: N802
        return None

    def recordCallCompletion(self, *args):  # noqa: N802
        pass

    def sendEventJson(self, event_json):  # noqa: N802
        pass

    def getShortTermMemory(self):  # noqa: N802
        from durable_journal.replay.memory import ReplayMemory

        return ReplayMemory([], None, RuntimeError).view()

    def getActionName(self):  # noqa: N802
        return "answer"


def baseline(actions, plan):
    from flink_agents.runtime.flink_runner_context import FlinkRunnerContext

    ctx = FlinkRunnerContext(None, plan.model_dump_json(serialize_as_any=True), None, None)
    function = plan.actions["answer"].exec
    for action in actions:
        ctx._j_runner_context = _Direct()
        function(Event.from_json(json.dumps({k: v for k, v in action.task_event.items() if k != "@class"})), ctx)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--actions", type=int, default=10_000)
    count = parser.parse_args().actions
    actions = [recorded(i) for i in range(count)]
    plan = plan_of(BenchmarkAgent)
    started = time.perf_counter()
    baseline(actions, plan)
    direct = time.perf_counter() - started
    started = time.perf_counter()
    report = replay_recorded(actions, actions, plan)
    replayed = time.perf_counter() - started
    summary = report.summary()
    print(f"ran {count} actions ({CALLS} calls of 1 KB each) directly in {direct:.1f} s; replayed them in {replayed:.1f} s "
          f"({replayed / direct:.2f}x); {summary['unchanged']} unchanged")
    return 0 if summary["unchanged"] == count else 1


if __name__ == "__main__":
    sys.exit(main())
