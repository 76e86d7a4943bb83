"""Candidates for the replay of what ``replay_agent.ReplayAgent`` recorded,
each changed in one way of docs/replay.md "What each change does (Python)"
(PythonReplayJobTest, replay_expectations.py). Their calls are synchronous
where the recording's first was asynchronous: a call's identity is the same."""

from durable_journal import flink_agents as durable_journal_flink_agents
from durable_journal import patched
from flink_agents.api.agents.agent import Agent
from flink_agents.api.decorators import action
from flink_agents.api.events.event import Event, InputEvent, OutputEvent
from flink_agents.api.runner_context import RunnerContext

from replay_agent import (PROMPT, ReplayAgent, ask_model, durable, forget, look_up, request_of,
                          send_answer, settle, side_effect)

durable_journal_flink_agents.install()

Unchanged = ReplayAgent

NEW_PROMPT = "Answer {name} briefly, knowing {profile}."


def mail(log, name):
    side_effect(log, f"mail {name}")
    return f"mailed {name}"


def find_profile(log, name):
    """look_up under another name."""
    side_effect(log, f"find_profile {name}")
    return f"profile of {name}"


def _asked(ctx, log, name, prompt=PROMPT, profile_call=look_up):
    """The profile and the model's reply, as the recorded agent gets them (with the prompt given)."""
    profile = durable(ctx, profile_call, log, name)
    return durable(ctx, ask_model, log, prompt.format(name=name, profile=profile))


class ChangedPrompt(Agent):
    """The model is asked another prompt: another call (its arguments differ)."""

    @action(InputEvent.EVENT_TYPE)
    @staticmethod
    def answer(event: Event, ctx: RunnerContext) -> None:
        log, name = request_of(event)
        send_answer(ctx, name, _asked(ctx, log, name, NEW_PROMPT), settle(ctx, log, name))


class ChangedPostProcessing(Agent):
    """The same calls; the reply is post-processed before it is sent."""

    @action(InputEvent.EVENT_TYPE)
    @staticmethod
    def answer(event: Event, ctx: RunnerContext) -> None:
        log, name = request_of(event)
        send_answer(ctx, name, _asked(ctx, log, name).upper(), settle(ctx, log, name))


class AddedCall(Agent):
    """A fifth call, after the recorded four."""

    @action(InputEvent.EVENT_TYPE)
    @staticmethod
    def answer(event: Event, ctx: RunnerContext) -> None:
        log, name = request_of(event)
        reply, settled = _asked(ctx, log, name), settle(ctx, log, name)
        send_answer(ctx, name, reply, settled, mailed=durable(ctx, mail, log, name))


#: For AddedCall: the stub answering the call the recording lacks, by function id.
MAIL_STUB = {"replay_candidates.mail": lambda: "mail stubbed"}


class RemovedCall(Agent):
    """The quota is no longer charged: the candidate finishes before the recorded calls do."""

    @action(InputEvent.EVENT_TYPE)
    @staticmethod
    def answer(event: Event, ctx: RunnerContext) -> None:
        log, name = request_of(event)
        reply = _asked(ctx, log, name)
        send_answer(ctx, name, reply, {"forgotten": durable(ctx, forget, log, name, reconciler=lambda: None)})


class RenamedCall(Agent):
    """look_up is now find_profile: the same arguments, another function id."""

    @action(InputEvent.EVENT_TYPE)
    @staticmethod
    def answer(event: Event, ctx: RunnerContext) -> None:
        log, name = request_of(event)
        send_answer(ctx, name, _asked(ctx, log, name, profile_call=find_profile), settle(ctx, log, name))


class ReorderedCalls(Agent):
    """The model first (without the profile), the profile after."""

    @action(InputEvent.EVENT_TYPE)
    @staticmethod
    def answer(event: Event, ctx: RunnerContext) -> None:
        log, name = request_of(event)
        reply = durable(ctx, ask_model, log, PROMPT.format(name=name, profile="nothing"))
        durable(ctx, look_up, log, name)
        send_answer(ctx, name, reply, settle(ctx, log, name))


class RenamedAction(Agent):
    """answer is now reply: nothing of the new name was recorded."""

    @action(InputEvent.EVENT_TYPE)
    @staticmethod
    async def reply(event: Event, ctx: RunnerContext) -> None:
        await ReplayAgent.answer(event, ctx)


REVIEW_EVENT = "review_event"


class ChangedListenedEvents(Agent):
    """answer listens to another event type; greet is new and listens to the input."""

    @action(REVIEW_EVENT)
    @staticmethod
    async def answer(event: Event, ctx: RunnerContext) -> None:
        await ReplayAgent.answer(event, ctx)

    @action(InputEvent.EVENT_TYPE)
    @staticmethod
    def greet(event: Event, ctx: RunnerContext) -> None:
        ctx.send_event(OutputEvent(output="hello"))


class PatchedPrompt(Agent):
    """A new prompt behind a patch marker: recordings made before it take the old path."""

    @action(InputEvent.EVENT_TYPE)
    @staticmethod
    def answer(event: Event, ctx: RunnerContext) -> None:
        log, name = request_of(event)
        profile = durable(ctx, look_up, log, name)
        prompt = NEW_PROMPT if patched(ctx, "brief-prompt") else PROMPT
        reply = durable(ctx, ask_model, log, prompt.format(name=name, profile=profile))
        send_answer(ctx, name, reply, settle(ctx, log, name))
