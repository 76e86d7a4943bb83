"""A Python agent whose action makes two calls to a service that deduplicates
by idempotency key (the log file's ``request <key>`` lines): ``charge``, a
default call, and ``notify``, an at-most-once call. Each fails the task once
after the service took its request and before its outcome is recorded (a
failover during the call): ``charge`` raises an exception that cannot be
pickled (Flink Agents cannot record it and raises it), ``notify`` returns a
value that cannot be pickled (the finalize of its PENDING slot fails). The
first re-run repeats ``charge`` under the same key; the second replays it and
gets ``CallInterruptedError`` for ``notify``.
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

durable_journal_flink_agents.install()


def _log(path, line):
    with open(path, "a", encoding="utf-8") as log:
        log.write(line + "\n")


class Crash(Exception):
    """The task dying in a call: it holds a lock, so it cannot be pickled and is never recorded."""

    def __init__(self, call):
        super().__init__(f"crash during {call}")
        self.lock = threading.Lock()


def _send(log, call, marker):
    key = durable_journal.current_call().idempotency_key
    _log(log, f"request {key}")
    _log(log, call)
    first_run = not os.path.exists(marker)
    if first_run:
        _log(marker, "crashed")
    return key, first_run


def charge(log, marker):
    key, first_run = _send(log, "charge", marker)
    if first_run:
        raise Crash("charge")
    return f"charge {key}"


def notify(log, marker):
    key, first_run = _send(log, "notify", marker)
    if first_run:
        return threading.Lock()  # not picklable: the PENDING slot is never finalized
    return f"notify {key}"


class IdempotentCallsAgent(Agent):
    """Two calls per request: one at least once, one at most once."""

    @action(InputEvent.EVENT_TYPE)
    @staticmethod
    def answer(event: Event, ctx: RunnerContext) -> None:
        request = json.loads(InputEvent.from_event(event).input)
        log = request["log"]
        charged = ctx.durable_execute(charge, log, request["charge_marker"])
        try:
            notified = ctx.durable_execute(durable_journal_flink_agents.at_most_once(notify), log, request["notify_marker"])
        except durable_journal.CallInterruptedError as interrupted:
            notified = f"interrupted {interrupted.idempotency_key} at {interrupted.position} of {interrupted.action}"
        _log(log, f"answer {charged}|{notified}")
        ctx.send_event(OutputEvent(output=f"{charged}|{notified}"))
