package io.durablejournal.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.durablejournal.demo.AgentJob;
import io.durablejournal.demo.Request;
import io.durablejournal.demo.SideEffectLog;
import io.durablejournal.demo.SupportAgent;
import io.durablejournal.flink.InFlightStaging.InFlightAgent;
import io.durablejournal.flink.InFlightStaging.Probe;
import io.durablejournal.store.ActionStateStores;
import io.durablejournal.store.NativeActionStateStore;
import io.durablejournal.testing.JobResults;
import io.durablejournal.testing.JobTest;
import io.durablejournal.testing.MiniClusters;
import io.durablejournal.testing.RepeatedRuns;
import io.durablejournal.testing.RunRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.KeyedStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * An action in flight ACROSS a completed checkpoint, then a failure: {@link DurableAsyncActions}
 * on a MiniCluster (parallelism 2, checkpoints every 100 ms, fixed-delay restarts, as in {@link
 * AgentJobMiniClusterTest}). Twelve requests of four users, each a chat and two tool calls whose
 * side effects are appended to a file outside Flink.
 *
 * <p>The staging, with no sleeps ({@link InFlightStaging}): the source emits all requests with no
 * checkpoint between them and stays up. Request {@code B} makes its chat call and blocks. Every
 * other request that can, completes meanwhile on the same subtask (several actions in flight on
 * one store): those queued behind B in the ordered async operator stay there, completed; the rest
 * leave it. A checkpoint triggered after that completes and releases B, which makes its first
 * tool call and crashes, once. Flink restores that checkpoint (or a later one with the same
 * queue): B comes back from the async operator's state, not from the source, and its journal has
 * both calls, the one from before the checkpoint and the one from after.
 */
class AsyncInFlightCheckpointTest {
    private static final int REQUESTS = 12;
    private static final int PARALLELISM = 2;
    private static final int MAX_PARALLELISM = 128;
    private static final int MAX_IN_FLIGHT = 16;
    /** Request 4: user-0's second request (sequence number 1). */
    private static final int BLOCKED = 4;

    @RegisterExtension
    static final MiniClusterExtension FLINK = MiniClusters.withSlots(4);

    /** Where each request goes, relative to B on B's subtask. */
    private static final Layout LAYOUT = new Layout();

    @TempDir
    Path tmp;

    static final class Layout {
        final String blocked = InFlightStaging.request(BLOCKED).id;
        /** Other users' requests after B on B's subtask: completed, but queued behind B at the checkpoint. */
        final Set<String> completedBehind = new TreeSet<>();
        /** B's user's later requests: wait for B (a key's records run in order), not started at the checkpoint. */
        final Set<String> waitingBehind = new TreeSet<>();
        /** Everything else: completed and emitted before the checkpoint. */
        final Set<String> emitted = new TreeSet<>();
        final Map<String, String> requestOfEntry = new HashMap<>();

        Layout() {
            Request b = InFlightStaging.request(BLOCKED);
            int blockedSubtask = subtaskOf(b.user);
            Map<String, Integer> nextSeq = new HashMap<>();
            for (int i = 0; i < REQUESTS; i++) {
                Request r = InFlightStaging.request(i);
                int seq = nextSeq.merge(r.user, 1, Integer::sum) - 1;
                requestOfEntry.put(r.user + "/" + seq, r.id);
                if (i == BLOCKED) {
                    continue;
                }
                boolean behind = i > BLOCKED && subtaskOf(r.user) == blockedSubtask;
                if (behind && r.user.equals(b.user)) {
                    waitingBehind.add(r.id);
                } else if (behind) {
                    completedBehind.add(r.id);
                } else {
                    emitted.add(r.id);
                }
            }
        }

        static int subtaskOf(String user) {
            return KeyGroupRangeAssignment.assignKeyToParallelOperator(user, MAX_PARALLELISM, PARALLELISM);
        }

        Set<String> mustComplete() {
            Set<String> all = new HashSet<>(emitted);
            all.addAll(completedBehind);
            return all;
        }
    }

    @BeforeAll
    static void theLayoutHasEveryCase() {
        // With keys user-0..3 on two subtasks: user-1 alone on subtask 1, the others on subtask 0.
        assertEquals(Set.of("req-06", "req-07", "req-10", "req-11"), LAYOUT.completedBehind);
        assertEquals(Set.of("req-08"), LAYOUT.waitingBehind);
        assertTrue(LAYOUT.emitted.containsAll(Set.of("req-00", "req-01", "req-02", "req-03")), LAYOUT.emitted.toString());
    }

    /** The answers every request gets when each call runs exactly once, sorted. */
    private static List<String> expectedAnswers() {
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < REQUESTS; i++) {
            expected.add(SupportAgent.expectedAnswer(InFlightStaging.request(i)));
        }
        Collections.sort(expected);
        return expected;
    }

    private static final class Outcome {
        List<String> answers;
        Map<String, Integer> sideEffects;
        Probe probe;
        JobExecutionResult result;
        long wallMillis;

        long counter(String name) {
            return JobResults.counter(result, name);
        }
    }

    private Outcome run(boolean journal) throws Exception {
        Path work = Files.createDirectories(tmp.resolve(journal ? "journaled" : "plain"));
        Probe probe = new Probe(LAYOUT.blocked, LAYOUT.mustComplete(), LAYOUT.emitted, LAYOUT.requestOfEntry, journal);
        try (RunRegistry.Registration<Probe> registration = InFlightStaging.RUNS.register(probe)) {
            String runId = registration.id();
            long started = System.nanoTime();
            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(
                    AgentJob.flinkConfiguration(Duration.ofMillis(100)));
            env.setParallelism(PARALLELISM);
            env.setMaxParallelism(MAX_PARALLELISM);
            InFlightAgent agent = new InFlightAgent(runId, work);
            KeyedStream<Request, String> requests = env
                    .addSource(InFlightStaging.source(runId, REQUESTS), "requests", Types.POJO(Request.class))
                    .setParallelism(1)
                    .keyBy(new AgentJob.ByUser(), Types.STRING);
            DataStream<String> answers = journal
                    ? DurableAsyncActions.apply(requests, AgentJob.ACTION_NAME, agent, Types.STRING,
                            InFlightStaging.observedFileStores(work.resolve("store").toString(), runId), MAX_IN_FLIGHT)
                    : DurableAsyncActions.withoutJournal(requests, AgentJob.ACTION_NAME, agent, Types.STRING, MAX_IN_FLIGHT);
            answers = answers.map(InFlightStaging.seenDownstream(runId), Types.STRING);

            Outcome outcome = new Outcome();
            outcome.answers = new ArrayList<>();
            try (CloseableIterator<String> results = answers.collectAsync()) {
                JobClient client = env.executeAsync("async in-flight checkpoint (" + (journal ? "journal" : "no journal") + ")");
                results.forEachRemaining(outcome.answers::add);
                outcome.result = client.getJobExecutionResult().get();
            }
            Collections.sort(outcome.answers);
            outcome.sideEffects = SideEffectLog.counts(work.resolve(InFlightAgent.SIDE_EFFECT_LOG));
            outcome.probe = probe;
            outcome.wallMillis = (System.nanoTime() - started) / 1_000_000;
            System.out.println("[timing] async in-flight job " + (journal ? "with" : "without") + " the journal: "
                    + outcome.wallMillis + " ms (witness checkpoint " + probe.witness().checkpoint() + ")");
            return outcome;
        }
    }

    @JobTest
    void anActionInFlightAcrossACompletedCheckpointResumesAndEverySideEffectRunsExactlyOnce() throws Exception {
        Outcome outcome = run(true);
        Probe probe = outcome.probe;

        assertTrue(probe.witness().checkpoint() > 0, "B was released by a completed checkpoint taken while it was in flight");
        assertNotNull(probe.completedWhileBlocked);
        assertTrue(probe.completedWhileBlocked.containsAll(LAYOUT.completedBehind),
                "actions on B's subtask completed while B was in flight: " + probe.completedWhileBlocked);

        assertEquals(expectedAnswers(), outcome.answers, "every request answered once, from calls that ran once");
        assertEquals(REQUESTS * 3, outcome.sideEffects.size(), "every call of every request ran");
        assertEquals(Map.of(), RepeatedRuns.of(outcome.sideEffects), "no side effect ran twice");

        // B came back from the async operator's checkpointed queue: the source emitted it once.
        for (int i = 0; i < REQUESTS; i++) {
            String id = InFlightStaging.request(i).id;
            assertEquals(1, probe.sourceEmissions.get(id).get(), id + " left the source once");
            assertEquals(id.equals(LAYOUT.blocked) ? 2 : 1, probe.bodyRuns(id), "action body runs of " + id);
        }
        assertEquals(2, outcome.counter(DurableActionFunction.ACC_CALLS_REPLAYED),
                "B's chat (made before the checkpoint) and first tool call (after it) replayed from the journal");
        assertEquals(1, outcome.counter(DurableActionFunction.ACC_ACTIONS_RESUMED), "B resumed over its journal");
        assertEquals(LAYOUT.completedBehind.size(), outcome.counter(DurableActionFunction.ACC_ACTIONS_REEMITTED),
                "the completed actions queued behind B were re-emitted from the store, not re-run");
        assertEquals(1 + LAYOUT.waitingBehind.size(), outcome.counter(DurableActionFunction.ACC_ACTIONS_RUN),
                "after the restart only B and the request of its user waiting behind it ran");

        Path store = tmp.resolve("journaled").resolve("store");
        for (int subtask = 0; subtask < PARALLELISM; subtask++) {
            Path dir = ActionStateStoreFactory.subtaskDirectory(store.toString(), subtask);
            try (NativeActionStateStore opened = ActionStateStores.openFileStore(dir)) {
                assertEquals(0, opened.stats().entries(), "the final checkpoint pruned every entry of " + dir);
            }
        }
        assertEquals(0, EmissionLedger.openCount(), "every attempt released its emission ledgers");
    }

    @JobTest
    void withoutTheJournalTheSameJobRunsSideEffectsAgain() throws Exception {
        Outcome outcome = run(false);
        Probe probe = outcome.probe;

        assertTrue(probe.witness().checkpoint() > 0);
        assertEquals(REQUESTS * 3, outcome.sideEffects.size());
        Map<String, Integer> expectedRepeats = new TreeMap<>();
        // B ran its chat and first tool call again, the completed requests queued behind it everything.
        expectedRepeats.put(LAYOUT.blocked + "/" + SupportAgent.CHAT, 2);
        expectedRepeats.put(LAYOUT.blocked + "/" + SupportAgent.lookupId(InFlightStaging.request(BLOCKED)), 2);
        for (int i = 0; i < REQUESTS; i++) {
            Request r = InFlightStaging.request(i);
            if (LAYOUT.completedBehind.contains(r.id)) {
                expectedRepeats.put(r.id + "/" + SupportAgent.CHAT, 2);
                expectedRepeats.put(r.id + "/" + SupportAgent.lookupId(r), 2);
                expectedRepeats.put(r.id + "/" + SupportAgent.ticketId(r), 2);
            }
        }
        assertEquals(expectedRepeats, RepeatedRuns.of(outcome.sideEffects), "side effects that ran twice");
        assertEquals(2 + 3 * LAYOUT.completedBehind.size(), SideEffectLog.duplicates(outcome.sideEffects));

        List<String> expected = expectedAnswers();
        Set<String> wrong = new TreeSet<>();
        for (String answer : outcome.answers) {
            if (!expected.contains(answer)) {
                wrong.add(answer.substring(0, answer.indexOf(':')));
            }
        }
        Set<String> rerun = new TreeSet<>(LAYOUT.completedBehind);
        rerun.add(LAYOUT.blocked);
        assertEquals(rerun, wrong, "the answers of the re-run requests name a second run: " + outcome.answers);
        assertEquals(REQUESTS, outcome.answers.size());
        assertEquals(0, outcome.counter(DurableActionFunction.ACC_CALLS_REPLAYED));
    }
}
