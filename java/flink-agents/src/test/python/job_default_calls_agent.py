"""A Python agent for a job whose default is at most once
(``DurableAgents.connectToAgent(..., CallSemantics.AT_MOST_ONCE)``): its action
makes ``charge``, a call that declares nothing, and ``lookup``, wrapped with
``at_least_once``. The first run of each fails the task after its body ran and
before its outcome is recorded (a failover during the call): ``charge``
returns a value that cannot be pickled, ``lookup`` raises an exception that
cannot be pickled. The re-runs get ``CallInterruptedError`` for ``charge`` and
run ``lookup`` again.
"""

import json
import os
import threading

import durable_journal
from durable_journal import flink_agents as durable_journal_flink_agents
from flink_agents.api.agents.agent import Agent
from flink_agents.api.decorators import action
from flink_agents.api.events.event import Event, InputEvent, OutputEvent
from flink_agents.api.runner_context import RunnerContext
from idempotent_calls_agent import Crash, _log  # its install() covers this module too


def _first_run(log, call, marker):
    _log(log, call)
    first = not os.path.exists(marker)
    if first:
        _log(marker, "crashed")
    return first


def charge(log, marker):
    if _first_run(log, "charge", marker):
        return threading.Lock()  # not picklable: its PENDING slot is never completed
    return "charged"


def lookup(log, marker):
    if _first_run(log, "lookup", marker):
        raise Crash("lookup")
    return f"lookup {durable_journal.current_call().idempotency_key}"


class JobDefaultCallsAgent(Agent):
    """Two calls per request: one taking the job's default, one at least once."""

    @action(InputEvent.EVENT_TYPE)
    @staticmethod
    def answer(event: Event, ctx: RunnerContext) -> None:
        request = json.loads(InputEvent.from_event(event).input)
        log = request["log"]
        try:
            charged = ctx.durable_execute(charge, log, request["charge_marker"])
        except durable_journal.CallInterruptedError as interrupted:
            charged = f"interrupted {interrupted.idempotency_key}"
        looked = ctx.durable_execute(durable_journal_flink_agents.at_least_once(lookup), log, request["lookup_marker"])
        _log(log, f"answer {charged}|{looked}")
        ctx.send_event(OutputEvent(output=f"{charged}|{looked}"))
