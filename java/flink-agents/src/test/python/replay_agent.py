"""The agent PythonReplayJobTest records and replays: per request one action,
``answer``, that looks a profile up and asks a model (two durable calls whose
bodies log a line to the request's side-effect log), counts the requests of
its key in short-term memory and sends one output. The candidates of
``replay_candidates`` change it in each way of docs/replay.md."""

import functools
import json

from durable_journal import flink_agents as durable_journal_flink_agents
from flink_agents.api.agents.agent import Agent
from flink_agents.api.decorators import action
from flink_agents.api.events.event import Event, InputEvent, OutputEvent
from flink_agents.api.runner_context import RunnerContext

durable_journal_flink_agents.install()

PROMPT = "Answer {name} kindly, knowing {profile}."


def side_effect(log, line):
    """A call's side effect: a line in the request's log (the test counts them)."""
    with open(log, "a", encoding="utf-8") as out:
        out.write(line + "\n")


def look_up(log, name):
    side_effect(log, f"look_up {name}")
    return f"profile of {name}"


def ask_model(log, prompt):
    side_effect(log, f"ask_model {prompt}")
    return f"model: {prompt}"


def request_of(event: Event) -> tuple:
    """The request's side-effect log and name."""
    request = json.loads(InputEvent.from_event(event).input)
    return request["log"], request["name"]


def durable(ctx: RunnerContext, function, log, *args):
    """A durable call of ``function`` with the log bound (functools.partial), not an argument:
    a call's args digest is over its own arguments, so the recorded ids do not depend on the
    test's temporary directory."""
    return ctx.durable_execute(functools.partial(function, log), *args)


def count_request(ctx: RunnerContext) -> int:
    """The requests of this key so far, this one included (short-term memory)."""
    count = (ctx.short_term_memory.get("requests") or 0) + 1
    ctx.short_term_memory.set("requests", count)
    return count


class ReplayAgent(Agent):
    @action(InputEvent.EVENT_TYPE)
    @staticmethod
    def answer(event: Event, ctx: RunnerContext) -> None:
        log, name = request_of(event)
        profile = durable(ctx, look_up, log, name)
        reply = durable(ctx, ask_model, log, PROMPT.format(name=name, profile=profile))
        ctx.send_event(OutputEvent(output={"name": name, "reply": reply, "requests": count_request(ctx)}))
