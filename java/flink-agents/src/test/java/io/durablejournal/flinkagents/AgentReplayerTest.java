package io.durablejournal.flinkagents;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.durablejournal.CallResult;
import io.durablejournal.DivergencePolicy;
import io.durablejournal.flink.ActionStateStoreFactory;
import io.durablejournal.flink.replay.ActionReplay;
import io.durablejournal.flink.replay.ReplayReport;
import io.durablejournal.flink.replay.ReplaySelection;
import io.durablejournal.flinkagents.replay.AgentReplayer;
import io.durablejournal.flinkagents.replay.AgentReplayerMain;
import io.durablejournal.store.FileStoreOptions;
import io.durablejournal.store.RetainedAction;
import io.durablejournal.testing.DirectoryBytes;
import io.durablejournal.testing.MiniClusters;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.apache.flink.agents.api.InputEvent;
import org.apache.flink.agents.api.agents.Agent;
import org.apache.flink.agents.plan.AgentConfiguration;
import org.apache.flink.agents.plan.AgentPlan;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Records {@link ReplayAgent} on Flink Agents' own operator ({@link DurableAgents#connectToAgent})
 * on a MiniCluster with a file store that retains completed actions, then replays the recording
 * against candidates changed in each way docs/replay.md lists for Flink Agents actions. Every
 * replay reads the store without changing a byte, and no call body runs ({@link ReplayAgent#CALLS}
 * stays where the recording left it).
 */
class AgentReplayerTest {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    /** Three requests of user-1 (sequence numbers 0, 1, 2), one of user-2. */
    private static final List<String> REQUESTS = Arrays.asList("user-1:a", "user-1:bb", "user-1:ccc", "user-2:dddd");

    @RegisterExtension
    static final MiniClusterExtension FLINK = MiniClusters.withSlots(1);

    @TempDir
    static Path base;
    static Path store;
    static String recordedPlanDigest;
    static int callsRecorded;

    @BeforeAll
    static void recordAJob() throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        FileStoreOptions options = FileStoreOptions.defaults().retainCompleted(Duration.ofHours(1), 1000);
        AgentPlan plan = plan(new ReplayAgent(), "recorded");
        DurableAgents.connectToAgent(env.fromData(REQUESTS).keyBy(r -> r.substring(0, r.indexOf(':')), Types.STRING), plan,
                        ActionStateStoreFactory.fileStores(base.toString(), options))
                .sinkTo(new DiscardingSink<>());
        env.execute("record Flink Agents actions for replay");
        store = base.resolve("subtask-0");
        recordedPlanDigest = PlanDigests.of(plan);
        callsRecorded = ReplayAgent.CALLS.get();
        assertEquals(REQUESTS.size() * 3, callsRecorded, "llm, lookup and audit ran once per request");
    }

    static AgentPlan plan(Agent agent, String variant) throws Exception {
        Map<String, Object> config = new HashMap<>();
        config.put(ReplayAgent.VARIANT, variant);
        return new AgentPlan(agent, new AgentConfiguration(config));
    }

    private DirectoryBytes before;

    @AfterEach
    void replayWroteNothingAndRanNothing() throws Exception {
        if (before != null) {
            before.assertUnchanged();
        }
        assertEquals(callsRecorded, ReplayAgent.CALLS.get(), "no call body ran in a replay");
    }

    private ReplayReport replay(AgentReplayer replayer) throws Exception {
        before = DirectoryBytes.of(store);
        return replayer.replayStore(store, ReplaySelection.all());
    }

    private static AgentReplayer candidate(String variant) throws Exception {
        return candidate(new ReplayAgent(), variant);
    }

    private static AgentReplayer candidate(Agent agent, String variant) throws Exception {
        return AgentReplayer.of(plan(agent, variant), variant);
    }

    /** One line per replayed action, sorted: key, seq, action, outcome, calls, where it stopped or why, memory. */
    private static List<String> lines(ReplayReport report) {
        List<String> lines = new ArrayList<>();
        for (ActionReplay a : report.getActions()) {
            String why = a.getStop() != null ? a.getStop().describe() : a.getDetail() != null ? a.getDetail() : "";
            String stubbed = a.getStubbedCalls().isEmpty() ? "" : " stubbed " + a.getStubbedCalls();
            String oldPaths = a.getOldPaths().isEmpty() ? "" : " old path of " + a.getOldPaths();
            lines.add(a.getKey() + " " + a.getSeq() + " " + a.getActionName() + ": " + name(a.getOutcome()) + ", "
                    + a.getReplayedCalls() + "/" + a.getRecordedCalls() + " replayed" + stubbed + oldPaths
                    + (why.isEmpty() ? "" : ", " + why) + "; memory " + a.getMemory());
        }
        lines.sort(null);
        return lines;
    }

    private static String name(ActionReplay.Outcome outcome) {
        return outcome.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }

    private static ActionReplay only(ReplayReport report, String key, long seq, String action) {
        return report.getActions().stream()
                .filter(a -> a.getKey().equals(key) && a.getSeq() == seq && a.getActionName().equals(action))
                .findFirst().orElseThrow(() -> new AssertionError(key + " " + seq + " " + action + " in " + report.toTable()));
    }

    /**
     * The eight actions as recorded, each line with {@code answer}'s and {@code review}'s parts.
     * review's journal holds its patch marker and one call: the marker the candidate asks for
     * again counts as a replayed slot ("2/2 replayed").
     */
    private static List<String> everyAction(String answer, String review) {
        List<String> lines = new ArrayList<>();
        long[][] keys = {{1, 0}, {1, 1}, {1, 2}, {2, 0}};
        for (long[] key : keys) {
            String prefix = "str:user-" + key[0] + " " + key[1] + " ";
            lines.add(prefix + "answer: " + answer.replace("$memory", memoryOfAnswer(key[1])));
            lines.add(prefix + "review: " + review);
        }
        lines.sort(null);
        return lines;
    }

    /** What answer's memory read got: rebuilt from the key's actions before it (two per earlier request). */
    private static String memoryOfAnswer(long seq) {
        long before = seq * 2;
        return "rebuilt from " + before + " recorded action" + (before == 1 ? "" : "s") + " of the key";
    }

    @Test
    void theRetainedCopiesHoldWhatAReplayNeeds() {
        List<RetainedAction> retained = RetainedAction.read(store);
        assertEquals(REQUESTS.size() * 2, retained.size(), "answer and review of every request");
        for (RetainedAction action : retained) {
            assertEquals(recordedPlanDigest, action.getPlanDigest(), "the adapter named the plan");
            assertTrue(action.getPlanDigest().startsWith("flink-agents-plan:sha256:"), action.getPlanDigest());
            JsonNode event = action.getState().getTaskEvent();
            assertNotNull(event, "the triggering event: " + action);
            assertEquals(action.getActionName().equals("answer") ? InputEvent.EVENT_TYPE : ReplayAgent.REVIEW,
                    event.get("type").asText());
            List<String> ids = action.getState().getCallResults().stream().map(CallResult::getFunctionId)
                    .collect(Collectors.toList());
            assertEquals(action.getActionName().equals("answer") ? Arrays.asList("llm", "tool:lookup")
                    : Arrays.asList("patched:audit-v2", "tool:audit"), ids, "every call with its outcome, the marker too");
            action.getState().getCallResults().forEach(call -> assertEquals(CallResult.Status.SUCCEEDED, call.getStatus()));
            long sent = action.getState().getOutputEvents().stream()
                    .filter(out -> !FlinkAgentsCompatibility.shim().isMemoryObservation(out.get("type").asText())).count();
            assertEquals(1, sent, "the event it sent (beside Flink Agents main's memory observation events)");
            assertEquals(action.getActionName().equals("answer") ? 1 : 0, action.getState().getShortTermMemoryUpdates().size(),
                    "answer's memory update");
        }
        RetainedAction third = retained.stream().filter(a -> a.getKey().equals("str:user-1") && a.getSeq() == 2
                && a.getActionName().equals("answer")).findFirst().orElseThrow(AssertionError::new);
        assertEquals("\"LLM says user-1:ccc\"", new String(third.getState().getCallResults().get(0).getResultPayload(),
                StandardCharsets.UTF_8));
        assertEquals("seen", third.getState().getShortTermMemoryUpdates().get(0).get("path").asText());
    }

    @Test
    void theUnchangedAgentReplaysEveryCallAndEveryOutputAndMemoryUpdateIsUnchanged() throws Exception {
        ReplayReport report = replay(candidate("recorded"));
        assertEquals(everyAction("unchanged, 2/2 replayed; memory $memory", "unchanged, 2/2 replayed; memory not read"),
                lines(report));
        assertEquals("8 replayed of agent recorded: 0 not-replayable, 0 diverged, 0 would-run, 0 failed, 0 not-triggered,"
                + " 0 newly-triggered, 0 output-changed, 8 unchanged", report.summaryLine());
        ActionReplay third = only(report, "str:user-1", 2, "answer");
        assertEquals(Arrays.asList("{\"attributes\":{\"answer\":\"Answer: LLM says user-1:ccc #10 (request 3)\"},"
                + "\"type\":\"review_request\"}"), third.getCandidateOutputs());
        assertEquals(third.getRecordedOutputs(), third.getCandidateOutputs());
        assertEquals(Arrays.asList("{\"memory\":\"short-term\",\"path\":\"seen\",\"value\":3}"), third.getCandidateMemoryUpdates());
        assertEquals(third.getRecordedMemoryUpdates(), third.getCandidateMemoryUpdates());
        assertEquals(recordedPlanDigest, third.getPlanDigest());
        assertEquals(recordedPlanDigest, candidate("recorded").planDigest(), "the same plan, the same digest");
        assertEquals(0, report.exitStatus(ReplayReport.FAIL_ON_ANY_CHANGE));
    }

    @Test
    void aChangedPromptWithTheSameCallsChangesTheOutputOnly() throws Exception {
        ReplayReport report = replay(candidate("prompt"));
        assertEquals(everyAction("output-changed, 2/2 replayed; memory $memory", "unchanged, 2/2 replayed; memory not read"),
                lines(report));
        ActionReplay first = only(report, "str:user-2", 0, "answer");
        assertEquals(Arrays.asList("{\"attributes\":{\"answer\":\"Answer: LLM says user-2:dddd #11 (request 1)\"},"
                + "\"type\":\"review_request\"}"), first.getRecordedOutputs());
        assertEquals(Arrays.asList("{\"attributes\":{\"answer\":\"Briefly: LLM says user-2:dddd #11 (request 1)\"},"
                + "\"type\":\"review_request\"}"), first.getCandidateOutputs());
        assertEquals(first.getRecordedMemoryUpdates(), first.getCandidateMemoryUpdates(), "the same memory update");
        assertEquals(1, report.exitStatus(ReplayReport.FAIL_ON_ANY_CHANGE));
        assertTrue(report.toTable().contains("recorded [{\"attributes\":{\"answer\":\"Answer: LLM says user-2:dddd"),
                report.toTable());
    }

    @Test
    void anAddedCallIsNotRunAndTheActionStopsThere() throws Exception {
        ReplayReport report = replay(candidate("add-call"));
        assertEquals(everyAction("would-run, 2/2 replayed, would run tool:mail at 2 (not recorded; no stub); memory $memory",
                "unchanged, 2/2 replayed; memory not read"), lines(report));
        assertEquals(Arrays.asList(), only(report, "str:user-1", 0, "answer").getCandidateOutputs(), "it stopped: no outputs");
    }

    @Test
    void anAddedCallWithAStubIsAnsweredByTheStubAndTheOutputsCompared() throws Exception {
        ReplayReport report = replay(candidate("add-call").withStub("tool:mail", () -> "mail stubbed"));
        assertEquals(everyAction("output-changed, 2/2 replayed stubbed [tool:mail]; memory $memory",
                "unchanged, 2/2 replayed; memory not read"), lines(report));
        assertEquals(Arrays.asList("{\"attributes\":{\"answer\":\"Answer: LLM says user-1:a #8 mail stubbed (request 1)\"},"
                + "\"type\":\"review_request\"}"), only(report, "str:user-1", 0, "answer").getCandidateOutputs());
    }

    @Test
    void aRemovedCallIsADivergenceWhereTheCandidateFinished() throws Exception {
        ReplayReport report = replay(candidate("remove-call"));
        assertEquals(everyAction("diverged, 1/2 replayed, diverged at 1: recorded tool:lookup (SUCCEEDED), candidate finished;"
                + " memory $memory", "unchanged, 2/2 replayed; memory not read"), lines(report));
    }

    @Test
    void aRenamedCallDivergesAtItsPosition() throws Exception {
        ReplayReport report = replay(candidate("rename-call"));
        assertEquals(everyAction("diverged, 1/2 replayed, diverged at 1: recorded tool:lookup (SUCCEEDED), candidate"
                + " tool:search; memory $memory", "unchanged, 2/2 replayed; memory not read"), lines(report));
        ActionReplay.Stop stop = only(report, "str:user-1", 1, "answer").getStop();
        assertEquals("tool:lookup", stop.recordedId);
        assertEquals("tool:search", stop.candidateId);
        assertEquals(1, stop.position);
    }

    @Test
    void reorderedCallsDivergeAtTheFirstOne() throws Exception {
        ReplayReport report = replay(candidate("reorder"));
        assertEquals(everyAction("diverged, 0/2 replayed, diverged at 0: recorded llm (SUCCEEDED), candidate tool:lookup;"
                + " memory $memory", "unchanged, 2/2 replayed; memory not read"), lines(report));
    }

    @Test
    void aRenamedActionIsNewlyTriggeredAndItsOldNameCountedAsAnotherAction() throws Exception {
        ReplayReport report = replay(candidate(new ReplayAgent("respond", ReplayAgent.REVIEW), "recorded"));
        List<String> expected = new ArrayList<>();
        for (String request : new String[] {"str:user-1 0", "str:user-1 1", "str:user-1 2", "str:user-2 0"}) {
            expected.add(request + " respond: newly-triggered, 0/0 replayed, the candidate's action respond listens to the"
                    + " recorded event _input_event, which has no recording of it: not run; memory not read");
            expected.add(request + " review: unchanged, 2/2 replayed; memory not read");
        }
        expected.sort(null);
        assertEquals(expected, lines(report));
        assertEquals(Map.of("answer", 4), report.getOtherActions());
        assertEquals("8 replayed of agent recorded: 0 not-replayable, 0 diverged, 0 would-run, 0 failed, 0 not-triggered,"
                + " 4 newly-triggered, 0 output-changed, 4 unchanged; not replayed, other action names: {answer=4}",
                report.summaryLine());
        assertEquals(1, report.exitStatus(ReplayReport.FAIL_ON_ANY_CHANGE));
    }

    @Test
    void anActionThatListensToOtherEventsIsNotTriggeredByItsRecordingsAndNewlyTriggeredByTheEventsItNowListensTo()
            throws Exception {
        ReplayReport report = replay(candidate(new ReplayAgent("answer", InputEvent.EVENT_TYPE), "recorded"));
        List<String> expected = new ArrayList<>();
        String[] requests = {"str:user-1 0", "str:user-1 1", "str:user-1 2", "str:user-2 0"};
        for (int i = 0; i < requests.length; i++) {
            long seq = Long.parseLong(requests[i].substring(requests[i].length() - 1));
            expected.add(requests[i] + " answer: unchanged, 2/2 replayed; memory " + memoryOfAnswer(seq));
            expected.add(requests[i] + " review: not-triggered, 0/2 replayed, the candidate's action review does not listen"
                    + " to the recorded event review_request: not run; memory not read");
            expected.add(requests[i] + " review: newly-triggered, 0/0 replayed, the candidate's action review listens to the"
                    + " recorded event _input_event, which has no recording of it: not run; memory not read");
        }
        expected.sort(null);
        assertEquals(expected, lines(report));
        assertEquals(4, report.summary().get(ActionReplay.Outcome.NOT_TRIGGERED));
        assertEquals(4, report.summary().get(ActionReplay.Outcome.NEWLY_TRIGGERED));
    }

    @Test
    void memoryIsRebuiltFromTheKeysWholeHistoryAndNotReconstructibleFromAPrunedStartOrAGap() throws Exception {
        before = DirectoryBytes.of(store);
        List<RetainedAction> retained = RetainedAction.read(store);
        AgentReplayer unchanged = candidate("recorded");

        ReplayReport whole = unchanged.replay(retained, ReplaySelection.all().key("str:user-1"));
        assertEquals("rebuilt from 4 recorded actions of the key", only(whole, "str:user-1", 2, "answer").getMemory());
        assertEquals(ActionReplay.Outcome.UNCHANGED, only(whole, "str:user-1", 2, "answer").getOutcome());

        // As a store whose oldest copies were dropped: user-1's first request is no longer retained.
        List<RetainedAction> prunedStart = retained.stream().filter(a -> !(a.getKey().equals("str:user-1") && a.getSeq() == 0))
                .collect(Collectors.toList());
        ReplayReport pruned = unchanged.replay(prunedStart, ReplaySelection.all().key("str:user-1"));
        String notFromTheStart = "memory not reconstructible: the retained history of key str:user-1 does not start at its"
                + " first input (sequence number 0 was pruned or never retained)";
        assertEquals(Arrays.asList(
                "str:user-1 1 answer: not-replayable, 0/2 replayed, " + notFromTheStart + "; memory not reconstructible",
                "str:user-1 1 review: unchanged, 2/2 replayed; memory not read",
                "str:user-1 2 answer: not-replayable, 0/2 replayed, " + notFromTheStart + "; memory not reconstructible",
                "str:user-1 2 review: unchanged, 2/2 replayed; memory not read"), lines(pruned));
        assertEquals(Arrays.asList(), only(pruned, "str:user-1", 1, "answer").getCandidateOutputs(), "stopped at the read");

        List<RetainedAction> gap = retained.stream().filter(a -> !(a.getKey().equals("str:user-1") && a.getSeq() == 1))
                .collect(Collectors.toList());
        ActionReplay afterTheGap = only(unchanged.replay(gap, ReplaySelection.all()), "str:user-1", 2, "answer");
        assertEquals(ActionReplay.Outcome.NOT_REPLAYABLE, afterTheGap.getOutcome());
        assertEquals("memory not reconstructible: the retained history of key str:user-1 has a gap: no action of its input 1"
                + " is retained", afterTheGap.getDetail());
        assertEquals(ActionReplay.Outcome.UNCHANGED,
                only(unchanged.replay(gap, ReplaySelection.all()), "str:user-1", 0, "answer").getOutcome(),
                "the first request's memory is whole");
    }

    @Test
    void codeBehindAPatchMarkerTakesTheOldPathOnRecordingsMadeBeforeIt() throws Exception {
        // answer asks for prompt-v2, which the recording predates: the old prompt. review asked for
        // audit-v2 when it was recorded: the new path, its marker replayed.
        ReplayReport report = replay(candidate("patched"));
        assertEquals(everyAction("unchanged, 2/2 replayed old path of [prompt-v2]; memory $memory",
                "unchanged, 2/2 replayed; memory not read"), lines(report));
    }

    @Test
    void aRecordedMarkerTheCandidateNoLongerAsksForIsADivergenceAtItsSlot() throws Exception {
        ReplayReport report = replay(candidate("drop-marker"));
        assertEquals(everyAction("unchanged, 2/2 replayed; memory $memory", "diverged, 0/2 replayed, diverged at 0: recorded"
                + " patched:audit-v2 (SUCCEEDED), candidate tool:audit; memory not read"), lines(report));
    }

    @Test
    void whatAReplayCannotGiveEndsTheActionNotReplayableAndACandidateThatThrowsFailed() throws Exception {
        ReplayReport longTerm = replay(candidate("long-term"));
        assertEquals(everyAction("not-replayable, 0/2 replayed, long-term memory is not available in a replay; memory not read",
                "unchanged, 2/2 replayed; memory not read"), lines(longTerm));
        replayWroteNothingAndRanNothing();

        ReplayReport throwing = replay(candidate("throws"));
        ActionReplay failed = only(throwing, "str:user-2", 0, "answer");
        assertEquals(ActionReplay.Outcome.FAILED, failed.getOutcome());
        assertEquals("java.lang.IllegalStateException: the candidate fails on user-2:dddd", failed.getDetail());
        assertEquals(Arrays.asList(), failed.getCandidateOutputs());
        assertEquals(4, throwing.summary().get(ActionReplay.Outcome.FAILED));
    }

    @Test
    void patchedNeedsTheNativeJournalsRunnerContext() throws Exception {
        org.apache.flink.agents.runtime.context.RunnerContextImpl flinkAgentsOwn =
                new org.apache.flink.agents.runtime.context.RunnerContextImpl(null, () -> { }, plan(new ReplayAgent(), "x"), null,
                        "job");
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> Patches.patched(flinkAgentsOwn, "prompt-v2"));
        assertTrue(refused.getMessage().contains("needs the runner context of the native journal"), refused.getMessage());
    }

    @Test
    void theCommandPrintsTheReportAndExitsByFailOn() throws Exception {
        before = DirectoryBytes.of(store);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = AgentReplayerMain.run(new String[] {"--store", store.toString(), "--agent", PromptCandidate.class.getName(),
                "--json", "--key", "str:user-2"}, new PrintStream(out, true, "UTF-8"), new PrintStream(err, true, "UTF-8"));
        assertEquals(1, status, err.toString("UTF-8"));
        JsonNode json = MAPPER.readTree(out.toString("UTF-8"));
        assertEquals(1, json.get("summary").get("output-changed").asInt(), json.toString());
        assertEquals(1, json.get("summary").get("unchanged").asInt(), json.toString());
        assertEquals(0, json.get("summary").get("newly-triggered").asInt(), json.toString());
        JsonNode answer = json.get("actions").get(0).get("action").asText().equals("answer") ? json.get("actions").get(0)
                : json.get("actions").get(1);
        assertEquals("output-changed", answer.get("outcome").asText());
        assertEquals("{\"memory\":\"short-term\",\"path\":\"seen\",\"value\":1}", answer.get("candidateMemoryUpdates").get(0).asText());

        assertEquals(0, AgentReplayerMain.run(new String[] {"--store", store.toString(), "--agent", PromptCandidate.class.getName(),
                "--fail-on", "diverged"}, new PrintStream(out), new PrintStream(err)), "--fail-on chooses");
        assertEquals(0, AgentReplayerMain.run(new String[] {"--store", store.toString(), "--agent", ReplayAgent.class.getName()},
                new PrintStream(out), new PrintStream(err)), "an Agent class is planned with the default configuration");
        assertEquals(2, AgentReplayerMain.run(new String[] {"--store"}, new PrintStream(out), new PrintStream(err)));
        assertEquals(2, AgentReplayerMain.run(new String[] {"--store", store.toString(), "--agent", String.class.getName()},
                new PrintStream(out), new PrintStream(err)), "not an agent");
        assertTrue(err.toString("UTF-8").contains("usage"));
    }

    @Test
    void theCommandTakesStubsAsTheCallsRecordedValues(@TempDir Path files) throws Exception {
        before = DirectoryBytes.of(store);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = AgentReplayerMain.run(new String[] {"--store", store.toString(), "--agent", AddCallCandidate.class.getName(),
                "--key", "str:user-2", "--action", "answer", "--stub", "tool:mail=\"mail stubbed\"", "--json"},
                new PrintStream(out, true, "UTF-8"), new PrintStream(err, true, "UTF-8"));
        assertEquals(1, status, err.toString("UTF-8"));
        JsonNode answer = MAPPER.readTree(out.toString("UTF-8")).get("actions").get(0);
        assertEquals("output-changed", answer.get("outcome").asText(), answer.toString());
        assertEquals("[\"tool:mail\"]", answer.get("stubbedCalls").toString());
        assertEquals("{\"attributes\":{\"answer\":\"Answer: LLM says user-2:dddd #11 mail stubbed (request 1)\"},"
                + "\"type\":\"review_request\"}", answer.get("candidateOutputs").get(0).asText());

        Path value = Files.write(files.resolve("mail.json"), "\"from a file\"".getBytes(StandardCharsets.UTF_8));
        out.reset();
        AgentReplayerMain.run(new String[] {"--store", store.toString(), "--agent", AddCallCandidate.class.getName(),
                "--key", "str:user-2", "--action", "answer", "--stub", "tool:mail=@" + value}, new PrintStream(out, true, "UTF-8"),
                new PrintStream(err, true, "UTF-8"));
        assertTrue(out.toString("UTF-8").contains("#11 from a file (request 1)"), out.toString("UTF-8"));

        err.reset();
        assertEquals(2, AgentReplayerMain.run(new String[] {"--store", store.toString(), "--agent", AddCallCandidate.class.getName(),
                "--stub", "tool:mail=not json"}, new PrintStream(out), new PrintStream(err, true, "UTF-8")));
        assertTrue(err.toString("UTF-8").contains("--stub tool:mail: a stub's value is not JSON"), err.toString("UTF-8"));
        assertEquals(2, AgentReplayerMain.run(new String[] {"--store", store.toString(), "--agent", AddCallCandidate.class.getName(),
                "--stub", "tool:mail"}, new PrintStream(out), new PrintStream(err)), "no value");
    }

    /**
     * A job of {@link ReplayAgent} recorded with its "crash" variant: user-3's first request
     * completes; its second crashes after its llm call, and the job, without restarts, fails with
     * that action's journal in flight. A restore with each candidate, under each divergence policy,
     * is planned from the store, which stays byte for byte as the crash left it.
     */
    @Test
    void journalsInFlightAtADeployArePlannedUnderEachPolicy(@TempDir Path crashed) throws Exception {
        Configuration conf = new Configuration();
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(1);
        FileStoreOptions options = FileStoreOptions.defaults().retainCompleted(Duration.ofHours(1), 1000);
        DurableAgents.connectToAgent(env.fromData("user-3:a", "user-3:bb").keyBy(r -> r.substring(0, r.indexOf(':')), Types.STRING),
                        plan(new ReplayAgent(), "crash"), ActionStateStoreFactory.fileStores(crashed.toString(), options))
                .sinkTo(new DiscardingSink<>());
        assertThrows(Exception.class, () -> env.execute("crash with a journal in flight"));
        callsRecorded = ReplayAgent.CALLS.get();
        Path inFlight = crashed.resolve("subtask-0");
        assertEquals(Arrays.asList("str:user-3 1 answer [llm]"), RetainedAction.readInFlight(inFlight).stream()
                .map(a -> a.getKey() + " " + a.getSeq() + " " + a.getActionName() + " " + a.getState().getCallResults().stream()
                        .map(CallResult::getFunctionId).collect(Collectors.toList()))
                .collect(Collectors.toList()), "the crashed action's journal, its llm call recorded");
        before = DirectoryBytes.of(inFlight);

        ReplayReport continues = candidate("recorded").planRestore(inFlight, DivergencePolicy.WARN, ReplaySelection.all());
        assertEquals(Arrays.asList("str:user-3 1 answer: would-run, 1/1 replayed, would run tool:lookup at 1 (not recorded;"
                + " no stub); memory rebuilt from 2 recorded actions of the key"), lines(continues));
        assertEquals("a restore replays 1 recorded call, then runs tool:lookup at 1 and what follows",
                continues.getActions().get(0).getDetail());
        assertEquals("a restore replays 1 recorded call and completes without running a call", candidate("remove-call")
                .planRestore(inFlight, DivergencePolicy.FAIL, ReplaySelection.all()).getActions().get(0).getDetail());

        // What a replay cannot give (long-term memory) ends the plan; the sentence is the native library's.
        assertEquals("a restore replays 0 recorded calls, then the plan cannot follow the action: long-term memory is not"
                + " available in a replay", candidate("long-term").planRestore(inFlight, DivergencePolicy.WARN, ReplaySelection.all())
                .getActions().get(0).getDetail());

        Map<DivergencePolicy, String> reordered = new java.util.EnumMap<>(DivergencePolicy.class);
        for (DivergencePolicy policy : DivergencePolicy.values()) {
            ActionReplay plan = candidate("reorder").planRestore(inFlight, policy, ReplaySelection.all()).getActions().get(0);
            assertEquals(ActionReplay.Outcome.DIVERGED, plan.getOutcome());
            reordered.put(policy, plan.getDetail());
        }
        String atTheFirst = "a restore replays 0 recorded calls, then ";
        String difference = "at 0 (recorded llm, new code tool:lookup)";
        assertEquals(atTheFirst + "fails the task " + difference + ": NON_DETERMINISTIC_REPLAY", reordered.get(DivergencePolicy.FAIL));
        assertEquals(atTheFirst + "cuts the journal " + difference + ", logs and counts it (callsDiverged), and runs tool:lookup"
                + " and what follows", reordered.get(DivergencePolicy.WARN));
        assertEquals(atTheFirst + "cuts the journal " + difference + " and runs tool:lookup and what follows",
                reordered.get(DivergencePolicy.CUT));

        ReplayReport renamed = candidate(new ReplayAgent("respond", ReplayAgent.REVIEW), "recorded")
                .planRestore(inFlight, DivergencePolicy.WARN, ReplaySelection.all());
        assertEquals(0, renamed.getActions().size());
        assertEquals(Map.of("answer", 1), renamed.getOtherActions());
        assertEquals(0, candidate("recorded").replayStore(inFlight, ReplaySelection.all().key("str:user-3").action("answer"))
                .getActions().stream().filter(a -> a.getSeq() == 1).count(), "a journal in flight is no retained action");

        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = AgentReplayerMain.run(new String[] {"--store", inFlight.toString(), "--agent", ReplayAgent.class.getName(),
                "--plan-restore", "cut"}, new PrintStream(out, true, "UTF-8"), new PrintStream(err, true, "UTF-8"));
        assertEquals(1, status, err.toString("UTF-8"));
        assertEquals(Arrays.asList("key         seq  action  outcome    calls         detail",
                "str:user-3  1    answer  would-run  1/1 replayed  a restore replays 1 recorded call, then runs tool:lookup at 1"
                        + " and what follows",
                "1 replayed of agent " + ReplayAgent.class.getName() + ": 0 not-replayable, 0 diverged, 1 would-run, 0 failed,"
                        + " 0 not-triggered, 0 newly-triggered, 0 output-changed, 0 unchanged"),
                Arrays.asList(out.toString("UTF-8").split("\n")));
        assertEquals(2, AgentReplayerMain.run(new String[] {"--store", inFlight.toString(), "--agent", ReplayAgent.class.getName(),
                "--plan-restore", "sometimes"}, new PrintStream(out), new PrintStream(err)), "not a policy");
    }

    /** A variant of {@link ReplayAgent} planned as a command names its candidate: by a class. */
    abstract static class VariantCandidate implements Supplier<AgentPlan> {
        private final String variant;

        VariantCandidate(String variant) {
            this.variant = variant;
        }

        @Override
        public AgentPlan get() {
            try {
                return plan(new ReplayAgent(), variant);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
    }

    /** The changed-prompt candidate. */
    public static final class PromptCandidate extends VariantCandidate {
        public PromptCandidate() {
            super("prompt");
        }
    }

    /** The candidate with an added tool:mail call. */
    public static final class AddCallCandidate extends VariantCandidate {
        public AddCallCandidate() {
            super("add-call");
        }
    }
}
