package io.durablejournal.flink.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.durablejournal.ActionState;
import io.durablejournal.DivergencePolicy;
import io.durablejournal.DurableCallable;
import io.durablejournal.DurableExecutionContext;
import io.durablejournal.JournalException;
import io.durablejournal.flink.ActionStateStoreFactory;
import io.durablejournal.flink.AgentAction;
import io.durablejournal.flink.DurableActionFunction;
import io.durablejournal.store.ActionStateStores;
import io.durablejournal.store.EventIdentity;
import io.durablejournal.store.FileStoreOptions;
import io.durablejournal.store.NativeActionStateStore;
import io.durablejournal.testing.DirectoryBytes;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Records a real MiniCluster job of {@link DurableActionFunction} with retention on, then replays
 * it against candidates changed in each way docs/replay.md lists. Every replay reads the store
 * without changing a byte, and no call body of a candidate runs (a counting side effect stays 0).
 */
class JournalReplayerTest {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final String ACTION = "answer";
    /** Bodies of the recording job's calls that ran. */
    static final AtomicInteger RECORDED_SIDE_EFFECTS = new AtomicInteger();
    /** Bodies of any candidate's calls that ran: a replay must leave it at 0. */
    static final AtomicInteger REPLAY_SIDE_EFFECTS = new AtomicInteger();

    @TempDir
    static Path base;
    static Path store;

    private static DurableCallable<String> call(String id, String value, AtomicInteger sideEffects) {
        return DurableCallable.of(id, String.class, () -> {
            sideEffects.incrementAndGet();
            return value;
        });
    }

    /** The action as it ran in production: an LLM call, then a lookup; the output joins them. */
    static String recordedAction(String input, io.durablejournal.RunnerContextImpl ctx, AtomicInteger sideEffects) throws Exception {
        String answer = ctx.durableExecute(call("llm", "LLM says " + input, sideEffects));
        String looked = ctx.durableExecute(call("tool:lookup", "#" + input.length(), sideEffects));
        return answer + " " + looked;
    }

    @BeforeAll
    static void recordAJob() throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        FileStoreOptions options = FileStoreOptions.defaults().retainCompleted(Duration.ofHours(1), 1000).planDigest("plan-v1");
        AgentAction<String, String> action = (input, ctx) -> recordedAction(input, ctx, RECORDED_SIDE_EFFECTS);
        env.fromData("alpha", "bravo", "charlie")
                .keyBy(r -> r, Types.STRING)
                .process(new DurableActionFunction<String, String, String>(ACTION, action, String.class,
                        ActionStateStoreFactory.fileStores(base.toString(), options)), Types.STRING)
                .sinkTo(new DiscardingSink<>());
        env.execute("record for replay");
        store = base.resolve("subtask-0");
        assertEquals(6, RECORDED_SIDE_EFFECTS.get());
    }

    private DirectoryBytes before;

    private ReplayReport replay(ReplayCandidate<String, String> candidate) throws Exception {
        before = DirectoryBytes.of(store);
        return JournalReplayer.of(candidate).replayStore(store, ReplaySelection.all());
    }

    @AfterEach
    void replayWroteNothingAndRanNothing() throws Exception {
        if (before != null) {
            before.assertUnchanged();
        }
        assertEquals(0, REPLAY_SIDE_EFFECTS.get(), "no candidate call body ran");
    }

    private static ReplayCandidate<String, String> candidate(AgentAction<String, String> action) {
        return ReplayCandidate.of(ACTION, action, String.class, String.class);
    }

    private static ActionReplay only(ReplayReport report, String key) {
        return report.getActions().stream().filter(a -> a.getKey().equals(key)).findFirst().orElseThrow(AssertionError::new);
    }

    @Test
    void theSameActionReplaysEveryCallAndEveryOutputIsUnchanged() throws Exception {
        ReplayReport report = replay(candidate((in, ctx) -> recordedAction(in, ctx, REPLAY_SIDE_EFFECTS)));
        assertEquals(3, report.getActions().size());
        for (ActionReplay action : report.getActions()) {
            assertEquals(ActionReplay.Outcome.UNCHANGED, action.getOutcome(), action.toString());
            assertEquals(2, action.getReplayedCalls());
            assertEquals("plan-v1", action.getPlanDigest());
            assertEquals("not read", action.getMemory());
        }
        ActionReplay alpha = only(report, "str:alpha");
        assertEquals(List.of("\"LLM says alpha #5\""), alpha.getRecordedOutputs());
        assertEquals(alpha.getRecordedOutputs(), alpha.getCandidateOutputs());
        assertEquals(0, report.exitStatus(ReplayReport.FAIL_ON_ANY_CHANGE));
    }

    @Test
    void aChangedPromptWithTheSameCallsChangesTheOutputOnly() throws Exception {
        ReplayReport report = replay(candidate((in, ctx) -> "Answer: " + recordedAction(in, ctx, REPLAY_SIDE_EFFECTS)));
        ActionReplay alpha = only(report, "str:alpha");
        assertEquals(ActionReplay.Outcome.OUTPUT_CHANGED, alpha.getOutcome());
        assertEquals(List.of("\"Answer: LLM says alpha #5\""), alpha.getCandidateOutputs());
        assertEquals(3, report.summary().get(ActionReplay.Outcome.OUTPUT_CHANGED));
        assertEquals(1, report.exitStatus(ReplayReport.FAIL_ON_ANY_CHANGE));
        assertEquals(0, report.exitStatus(java.util.EnumSet.of(ActionReplay.Outcome.DIVERGED)), "flags choose what fails");
    }

    private static String withMail(String input, io.durablejournal.RunnerContextImpl ctx) throws Exception {
        String recorded = recordedAction(input, ctx, REPLAY_SIDE_EFFECTS);
        return recorded + " " + ctx.durableExecute(call("tool:mail", "sent", REPLAY_SIDE_EFFECTS));
    }

    @Test
    void anAddedCallIsNotRunAndTheActionStopsThere() throws Exception {
        ReplayReport report = replay(candidate(JournalReplayerTest::withMail));
        ActionReplay alpha = only(report, "str:alpha");
        assertEquals(ActionReplay.Outcome.WOULD_RUN, alpha.getOutcome());
        assertEquals(2, alpha.getReplayedCalls());
        assertEquals(2, alpha.getStop().position);
        assertEquals("tool:mail", alpha.getStop().candidateId);
        assertNull(alpha.getStop().recordedId);
        assertTrue(alpha.getCandidateOutputs().isEmpty());
        assertTrue(report.toTable().contains("would run tool:mail at 2 (not recorded; no stub)"), report.toTable());
    }

    @Test
    void anAddedCallWithAStubIsAnsweredByTheStub() throws Exception {
        ReplayReport report = replay(candidate(JournalReplayerTest::withMail).withStub("tool:mail", () -> "stubbed"));
        ActionReplay alpha = only(report, "str:alpha");
        assertEquals(ActionReplay.Outcome.OUTPUT_CHANGED, alpha.getOutcome());
        assertEquals(List.of("tool:mail"), alpha.getStubbedCalls());
        assertEquals(List.of("\"LLM says alpha #5 stubbed\""), alpha.getCandidateOutputs());
    }

    @Test
    void asyncCallsAndBatchesReplayTheSameWayAndAnAddedBatchCallIsNotRun() throws Exception {
        ReplayReport async = replay(candidate((in, ctx) -> ctx.durableExecuteAsync(call("llm", "x", REPLAY_SIDE_EFFECTS)) + " "
                + ctx.durableExecuteAsync(call("tool:lookup", "y", REPLAY_SIDE_EFFECTS))));
        assertEquals(3, async.summary().get(ActionReplay.Outcome.UNCHANGED), async.toTable());
        replayWroteNothingAndRanNothing();

        ReplayReport batch = replay(candidate((in, ctx) -> ctx.durableExecuteAll(List.of(call("llm", "x", REPLAY_SIDE_EFFECTS),
                call("tool:lookup", "y", REPLAY_SIDE_EFFECTS))).stream().map(String::valueOf).collect(Collectors.joining(" "))));
        assertEquals(3, batch.summary().get(ActionReplay.Outcome.UNCHANGED), batch.toTable());
        replayWroteNothingAndRanNothing();

        ReplayReport longer = replay(candidate((in, ctx) -> ctx.durableExecuteAll(List.of(call("llm", "x", REPLAY_SIDE_EFFECTS),
                call("tool:lookup", "y", REPLAY_SIDE_EFFECTS), call("tool:mail", "z", REPLAY_SIDE_EFFECTS))).toString()));
        ActionReplay.Stop stop = only(longer, "str:alpha").getStop();
        assertEquals(ActionReplay.Outcome.WOULD_RUN, stop.kind, longer.toTable());
        assertEquals(2, stop.position);
        assertEquals("tool:mail", stop.candidateId);
    }

    @Test
    void aRemovedCallIsADivergenceWhereTheCandidateFinished() throws Exception {
        ReplayReport report = replay(candidate((in, ctx) -> ctx.durableExecute(call("llm", "fresh", REPLAY_SIDE_EFFECTS))));
        ActionReplay.Stop stop = only(report, "str:bravo").getStop();
        assertEquals(ActionReplay.Outcome.DIVERGED, stop.kind);
        assertEquals(1, stop.position);
        assertEquals("tool:lookup", stop.recordedId);
        assertEquals("SUCCEEDED", stop.recordedStatus);
        assertNull(stop.candidateId);
    }

    @Test
    void aRenamedCallDivergesAtItsPosition() throws Exception {
        ReplayReport report = replay(candidate((in, ctx) -> ctx.durableExecute(call("llm", "x", REPLAY_SIDE_EFFECTS)) + " "
                + ctx.durableExecute(call("tool:search", "y", REPLAY_SIDE_EFFECTS))));
        ActionReplay.Stop stop = only(report, "str:alpha").getStop();
        assertEquals(ActionReplay.Outcome.DIVERGED, stop.kind);
        assertEquals(1, stop.position);
        assertEquals("tool:lookup", stop.recordedId);
        assertEquals("tool:search", stop.candidateId);
        assertEquals(3, report.summary().get(ActionReplay.Outcome.DIVERGED));
    }

    @Test
    void reorderedCallsDivergeAtTheFirstOne() throws Exception {
        ReplayReport report = replay(candidate((in, ctx) -> ctx.durableExecute(call("tool:lookup", "y", REPLAY_SIDE_EFFECTS)) + " "
                + ctx.durableExecute(call("llm", "x", REPLAY_SIDE_EFFECTS))));
        ActionReplay.Stop stop = only(report, "str:alpha").getStop();
        assertEquals(0, stop.position);
        assertEquals("llm", stop.recordedId);
        assertEquals("tool:lookup", stop.candidateId);
        assertEquals(0, only(report, "str:alpha").getReplayedCalls());
    }

    @Test
    void aRenamedActionFindsNoRecordingOfItsNameAndTheReportSaysWhichNamesThereAre() throws Exception {
        before = DirectoryBytes.of(store);
        ReplayReport report = JournalReplayer.of(ReplayCandidate.of("answer-v2",
                (AgentAction<String, String>) (in, ctx) -> recordedAction(in, ctx, REPLAY_SIDE_EFFECTS), String.class, String.class))
                .replayStore(store, ReplaySelection.all());
        assertEquals(0, report.getActions().size());
        assertEquals(Map.of(ACTION, 3), report.getOtherActions());
        assertTrue(report.summaryLine().contains("other action names: {answer=3}"), report.summaryLine());
    }

    @Test
    void codeBehindAPatchMarkerTakesTheOldPathOnRecordingsMadeBeforeIt() throws Exception {
        ReplayReport report = replay(candidate((in, ctx) -> ctx.patched("mail-v2") ? withMail(in, ctx)
                : recordedAction(in, ctx, REPLAY_SIDE_EFFECTS)));
        for (ActionReplay action : report.getActions()) {
            assertEquals(ActionReplay.Outcome.UNCHANGED, action.getOutcome(), action.toString());
            assertEquals(List.of("mail-v2"), action.getOldPaths());
        }
    }

    @Test
    void selectionByKeyAndCount() throws Exception {
        before = DirectoryBytes.of(store);
        JournalReplayer<String, String> replayer = JournalReplayer.of(candidate((in, ctx) -> recordedAction(in, ctx, REPLAY_SIDE_EFFECTS)));
        assertEquals(List.of("str:bravo"), replayer.replayStore(store, ReplaySelection.all().key("str:bravo"))
                .getActions().stream().map(ActionReplay::getKey).collect(Collectors.toList()));
        assertEquals(2, replayer.replayStore(store, ReplaySelection.all().limit(2)).getActions().size());
        assertEquals(0, replayer.replayStore(store, ReplaySelection.all().action("other")).getActions().size());
        assertEquals(0, replayer.replayStore(store, ReplaySelection.all().completedBetween(0, 1)).getActions().size());
        long now = System.currentTimeMillis();
        assertEquals(3, replayer.replayStore(store, ReplaySelection.all().completedBetween(now - 3_600_000, now + 1))
                .getActions().size(), "the recording completed within the last hour");
        assertThrows(JournalException.class, () -> replayer.replayStore(base.resolve("no-such-store"), ReplaySelection.all()));
    }

    @Test
    void aJournalInFlightAtADeployIsPlannedUnderEachPolicy(@TempDir Path inFlight) throws Exception {
        FileStoreOptions options = FileStoreOptions.defaults().retainCompleted(Duration.ofHours(1), 10);
        ActionState initial = new ActionState();
        initial.setTaskEvent(MAPPER.valueToTree("delta"));
        try (NativeActionStateStore live = ActionStateStores.openFileStore(inFlight, options);
                DurableExecutionContext journal = live.openContext("delta", 0, ACTION, EventIdentity.rootOccurrence("delta", 0), initial)) {
            // The job died after the first call: the entry is in flight.
            journal.recordCallCompletion("llm", MAPPER.writeValueAsBytes("LLM says delta"), null);
        }
        Path saved = store;
        store = inFlight;
        try {
            before = DirectoryBytes.of(store);
            JournalReplayer<String, String> withMail = JournalReplayer.of(candidate(JournalReplayerTest::withMail));
            ActionReplay continues = withMail.planRestore(inFlight, DivergencePolicy.WARN, ReplaySelection.all()).getActions().get(0);
            assertEquals("str:delta", continues.getKey());
            assertEquals(ActionReplay.Outcome.WOULD_RUN, continues.getOutcome());
            assertEquals("a restore replays 1 recorded call, then runs tool:lookup at 1 and what follows", continues.getDetail());

            JournalReplayer<String, String> reordered = JournalReplayer.of(candidate((in, ctx) ->
                    ctx.durableExecute(call("tool:lookup", "y", REPLAY_SIDE_EFFECTS))));
            assertEquals("a restore replays 0 recorded calls, then fails the task at 0 (recorded llm, new code tool:lookup): "
                    + "NON_DETERMINISTIC_REPLAY", reordered.planRestore(inFlight, DivergencePolicy.FAIL, ReplaySelection.all())
                    .getActions().get(0).getDetail());
            assertTrue(reordered.planRestore(inFlight, DivergencePolicy.WARN, ReplaySelection.all()).getActions().get(0)
                    .getDetail().contains("cuts the journal at 0 (recorded llm, new code tool:lookup), logs and counts it"));
            assertEquals(0, withMail.replayStore(inFlight, ReplaySelection.all()).getActions().size(), "nothing completed yet");

            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            assertEquals(1, JournalReplayerMain.run(new String[] {"--store", inFlight.toString(), "--candidate",
                    MailCandidate.class.getName(), "--plan-restore", "WARN", "--json"}, new PrintStream(out, true, "UTF-8"),
                    new PrintStream(err, true, "UTF-8")), err.toString("UTF-8"));
            assertEquals("a restore replays 1 recorded call, then runs tool:lookup at 1 and what follows",
                    MAPPER.readTree(out.toString("UTF-8")).get("actions").get(0).get("detail").asText());
            assertEquals("a restore replays 1 recorded call, then runs tool:lookup at 1 and what follows",
                    JournalReplayer.of(candidate(JournalReplayerTest::withMail).withStub("tool:lookup", () -> "stubbed"))
                            .planRestore(inFlight, DivergencePolicy.CUT, ReplaySelection.all()).getActions().get(0).getDetail(),
                    "a restore runs the call for real: a stub does not carry the plan past it");
            assertEquals(2, JournalReplayerMain.run(new String[] {"--store", inFlight.toString(), "--candidate",
                    MailCandidate.class.getName(), "--plan-restore", "WARN", "--since", "0"}, new PrintStream(out),
                    new PrintStream(err, true, "UTF-8")), "in-flight journals have no completion time");
            replayWroteNothingAndRanNothing();
        } finally {
            store = saved;
            before = null;
        }
    }

    /** A recorded patch marker the candidate asks for again is a replayed slot, beside the replayed calls. */
    @Test
    void aRecordedMarkerAskedForAgainCountsAsAReplayedSlot(@TempDir Path inFlight) throws Exception {
        ActionState initial = new ActionState();
        initial.setTaskEvent(MAPPER.valueToTree("echo"));
        try (NativeActionStateStore live = ActionStateStores.openFileStore(inFlight,
                        FileStoreOptions.defaults().retainCompleted(Duration.ofHours(1), 10));
                DurableExecutionContext journal = live.openContext("echo", 0, ACTION, EventIdentity.rootOccurrence("echo", 0), initial)) {
            assertTrue(journal.patched("mail-v2"), "a new execution records the marker");
            journal.recordCallCompletion("llm", MAPPER.writeValueAsBytes("LLM says echo"), null);
        }
        Path saved = store;
        store = inFlight;
        try {
            before = DirectoryBytes.of(store);
            ActionReplay plan = JournalReplayer.of(candidate((in, ctx) -> ctx.patched("mail-v2") ? withMail(in, ctx)
                    : recordedAction(in, ctx, REPLAY_SIDE_EFFECTS))).planRestore(inFlight, DivergencePolicy.WARN,
                    ReplaySelection.all()).getActions().get(0);
            assertEquals(2, plan.getRecordedCalls(), "the marker and llm");
            assertEquals(2, plan.getReplayedCalls(), "the marker replayed, then llm");
            assertEquals(List.of(), plan.getOldPaths());
            assertEquals("a restore replays 2 recorded calls, then runs tool:lookup at 2 and what follows", plan.getDetail());
            replayWroteNothingAndRanNothing();
        } finally {
            store = saved;
            before = null;
        }
    }

    /** The candidate a CI step names on the command line. */
    public static final class MailCandidate implements Supplier<ReplayCandidate<?, ?>> {
        @Override
        public ReplayCandidate<?, ?> get() {
            return candidate(JournalReplayerTest::withMail);
        }
    }

    @Test
    void theCommandPrintsJsonAndExitsNonZeroWhenSomethingWouldRun() throws Exception {
        before = DirectoryBytes.of(store);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = JournalReplayerMain.run(new String[] {"--store", store.toString(), "--candidate", MailCandidate.class.getName(),
                "--json", "--key", "str:charlie"}, new PrintStream(out, true, "UTF-8"), new PrintStream(err, true, "UTF-8"));
        assertEquals(1, status, err.toString("UTF-8"));
        JsonNode json = MAPPER.readTree(out.toString("UTF-8"));
        assertEquals(1, json.get("summary").get("replayed").asInt());
        assertEquals(1, json.get("summary").get("would-run").asInt());
        JsonNode action = json.get("actions").get(0);
        assertEquals("str:charlie", action.get("key").asText());
        assertEquals("would-run", action.get("outcome").asText());
        assertEquals("tool:mail", action.get("stop").get("candidateId").asText());
        assertEquals(2, action.get("stop").get("position").asInt());
        int ignoring = JournalReplayerMain.run(new String[] {"--store", store.toString(), "--candidate", MailCandidate.class.getName(),
                "--fail-on", "diverged"}, new PrintStream(out, true, "UTF-8"), new PrintStream(err, true, "UTF-8"));
        assertEquals(0, ignoring, "--fail-on chooses");
        out.reset();
        JournalReplayerMain.run(new String[] {"--store", store.toString(), "--candidate", MailCandidate.class.getName(),
                "--json", "--key", "str:charlie", "--stub", "tool:mail=\"stubbed\""}, new PrintStream(out, true, "UTF-8"),
                new PrintStream(err, true, "UTF-8"));
        JsonNode stubbed = MAPPER.readTree(out.toString("UTF-8")).get("actions").get(0);
        assertEquals("output-changed", stubbed.get("outcome").asText(), stubbed.toString());
        assertEquals("\"LLM says charlie #7 stubbed\"", stubbed.get("candidateOutputs").get(0).asText());
        assertEquals("[\"tool:mail\"]", stubbed.get("stubbedCalls").toString());
        assertEquals(2, JournalReplayerMain.run(new String[] {"--store"}, new PrintStream(out), new PrintStream(err)));
        assertTrue(new String(err.toByteArray(), StandardCharsets.UTF_8).contains("usage"));
    }
}
