package io.durablejournal.kafka;

import static io.durablejournal.demo.JobSettings.CRASH;
import static io.durablejournal.demo.JobSettings.GATE;
import static io.durablejournal.demo.JobSettings.REQUESTS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.durablejournal.DurableExecutionContext;
import io.durablejournal.flink.ActionStateStoreFactory;
import io.durablejournal.flink.SubtaskScope;
import io.durablejournal.flinkagents.DurableAgents;
import io.durablejournal.flinkagents.demo.AgentJob;
import io.durablejournal.flinkagents.demo.SideEffects;
import io.durablejournal.flinkagents.demo.SupportAgent;
import io.durablejournal.flinkagents.demo.SupportRequest;
import io.durablejournal.store.EventIdentity;
import io.durablejournal.store.GroupedKey;
import io.durablejournal.testing.Checkpoints;
import io.durablejournal.testing.DecoratedStores;
import io.durablejournal.testing.Failures;
import io.durablejournal.testing.JobTest;
import io.durablejournal.testing.ForwardingStore;
import io.durablejournal.testing.LongJobTimeout;
import io.durablejournal.testing.RepeatedRuns;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The Flink Agents adapter with the Kafka store: a real Flink Agents 0.3.1 agent (the adapter
 * demo's {@link SupportAgent}: a chat call in its first action, two tool calls in its second, each
 * through {@code ctx.durableExecute}) on Flink Agents' own operator, wired by {@link
 * DurableAgents#connectToAgent} with {@link KafkaActionStateStores#factory}, at parallelism 2 on a
 * MiniCluster. Twelve requests of three users; the source waits for a checkpoint taken after
 * requests 0..4 were answered, emits 5..7 and holds further checkpoints; request 7's second action
 * crashes after its first tool call. Requests 5 and 6 completed after the checkpoint and request 7
 * was interrupted: their journals are only in the topic.
 */
class FlinkAgentsKafkaTest {
    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = KafkaBrokerExtension.withFlink(4);

    @TempDir
    Path tmp;

    private static ActionStateStoreFactory kafkaStores(String topicPrefix) throws Exception {
        KafkaBroker broker = KAFKA.broker();
        return KafkaActionStateStores.factory(broker.config(broker.createTopic(topicPrefix + "-" + UUID.randomUUID(), 3)));
    }

    private AgentJob.Settings settings(String name, ActionStateStoreFactory stores) {
        AgentJob.Settings settings = new AgentJob.Settings(tmp.resolve(name));
        settings.stores = stores;
        return settings;
    }

    private static AgentJob.Outcome run(Configuration conf, AgentJob.Settings settings) throws Exception {
        AgentJob.Outcome outcome = AgentJob.run(StreamExecutionEnvironment.getExecutionEnvironment(conf), settings);
        System.out.println("[timing] Flink Agents job with " + settings.stores + " at parallelism " + settings.parallelism
                + ": " + outcome.wallMillis + " ms");
        return outcome;
    }

    /** The directory that stands for the task manager's local disk; deleted at the injected crash. */
    private static Path loseAtTheCrash(AgentJob.Settings settings) throws IOException {
        Path machine = Files.createDirectories(settings.workDir.resolve("machine"));
        settings.atCrash = () -> {
            try {
                KafkaMachineLossTest.deleteRecursively(machine);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        };
        return machine;
    }

    @JobTest
    void withTheKafkaStoreEverySideEffectRunsExactlyOnceAfterTheMachineIsLost() throws Exception {
        AgentJob.Settings settings = settings("kafka", kafkaStores("journal-agents-machine-loss"));
        Path machine = loseAtTheCrash(settings);
        AgentJob.Outcome outcome = run(AgentJob.flinkConfiguration(Duration.ofMillis(100)), settings);

        assertTrue(outcome.crashed, "the crash was injected");
        assertFalse(Files.exists(machine), "the machine's directory was deleted before the restart");
        assertEquals(AgentJob.expectedAnswers(REQUESTS), outcome.answers, "every request answered once, from calls that ran once");
        assertEquals(REQUESTS * 3, outcome.sideEffects.size(), "every call of every request ran");
        assertEquals(Map.of(), RepeatedRuns.of(outcome.sideEffects), "no side effect ran twice");
        assertEquals(1, outcome.callsReplayed(), "the crashed action's first tool call replayed from the topic");
        assertEquals(1, outcome.actionsResumed, "request 7's interrupted action resumed over its journal");
        assertEquals(2 * (CRASH - GATE) + 1, outcome.actionsReemitted,
                "both actions of requests 5 and 6 and the first of request 7 came from the topic");
        assertEquals(REQUESTS, outcome.draftRuns, "no completed action ran again");
        assertEquals(REQUESTS + 1, outcome.resolveRuns, "every resolve ran once, the crashed one twice");
    }

    @JobTest
    void withFileStoresTheJournalsGoWithTheMachineAndTheRestoreIsRefused() throws Exception {
        AgentJob.Settings settings = settings("file", null);
        Path machine = loseAtTheCrash(settings);
        settings.stores = ActionStateStoreFactory.fileStores(machine.resolve("store").toString());

        Exception failure = assertThrows(Exception.class, () -> run(AgentJob.flinkConfiguration(Duration.ofMillis(100)), settings));
        assertTrue(Failures.causes(failure).contains("different store directory"), Failures.causes(failure));
        // Lost with the disk: request 7's recorded calls and what requests 5 and 6 completed after
        // the checkpoint. The refusal keeps them from running again.
        Map<String, Integer> sideEffects = SideEffects.counts(settings.sideEffectFile());
        assertEquals(CRASH * 3 + 2, sideEffects.size(), "requests 0..6 and two calls of request 7 ran before the crash");
        assertEquals(Map.of(), RepeatedRuns.of(sideEffects), "and nothing ran again");
    }

    /**
     * The crash fails the job for good at parallelism 2, its checkpoint retained; the job is
     * restored from it at parallelism 3 (a subtask with no marker of its own) or 1. The records
     * after the checkpoint are replayed to the subtasks that now own their users.
     */
    @ParameterizedTest(name = "restored at parallelism {0}")
    @ValueSource(ints = {3, 1})
    @LongJobTimeout
    void actionsInterruptedAtParallelism2FindTheirJournalsAtAnotherParallelism(int restoredParallelism) throws Exception {
        assertTrue(someUserMoves(restoredParallelism, request -> request.user), "a user of requests " + GATE + ".." + CRASH
                + " changes subtask");
        crashAndRestoreAt(restoredParallelism, kafkaStores("journal-agents-rescale"), false);
    }

    /**
     * The same with the requests keyed by the user's number (a {@code Long}, whose key group is not
     * its text's): every store call of a subtask is in a key group the subtask owns (so no store
     * loads a key group of another subtask), and the restored subtask that owns a user's Flink key
     * group finds the user's journal.
     */
    @Test
    @LongJobTimeout
    void aLongKeyedJobsJournalsAreInTheKeysFlinkKeyGroups() throws Exception {
        assertTrue(someUserMoves(3, FlinkAgentsKafkaTest::userNumber), "a user of requests " + GATE + ".." + CRASH
                + " changes subtask");
        assertTrue(someTextIsElsewhere(), "a user's text belongs to another subtask than the user's number at parallelism 2");
        String runId = UUID.randomUUID().toString();
        FOREIGN_KEY_GROUPS.put(runId, new ConcurrentLinkedQueue<>());
        try {
            ActionStateStoreFactory stores = new DecoratedStores(kafkaStores("journal-agents-long-keys"),
                    (store, scope) -> new KeyGroupWatch(store, scope, runId));
            crashAndRestoreAt(3, stores, true);
            assertEquals(List.of(), new ArrayList<>(FOREIGN_KEY_GROUPS.get(runId)), "no store call outside its subtask's key groups");
        } finally {
            FOREIGN_KEY_GROUPS.remove(runId);
        }
    }

    /** Per run, the store calls whose key is in a key group its subtask does not own. */
    private static final Map<String, Queue<String>> FOREIGN_KEY_GROUPS = new ConcurrentHashMap<>();

    /** A subtask's store that records every call whose key is in a key group the subtask does not own. */
    private static final class KeyGroupWatch extends ForwardingStore {
        private final SubtaskScope scope;
        private final String runId;

        KeyGroupWatch(io.durablejournal.store.ActionStateStore store, SubtaskScope scope, String runId) {
            super(store);
            this.scope = scope;
            this.runId = runId;
        }

        private Object watched(String call, Object key) {
            int keyGroup = key instanceof GroupedKey ? ((GroupedKey) key).keyGroup() : scope.keyGroupOf(key);
            if (keyGroup < scope.firstKeyGroup() || keyGroup > scope.lastKeyGroup()) {
                FOREIGN_KEY_GROUPS.get(runId).add(call + "(" + key + ") in " + scope);
            }
            return key;
        }

        @Override
        public void put(Object key, long seqNum, String actionName, EventIdentity event, io.durablejournal.ActionState state) {
            super.put(watched("put", key), seqNum, actionName, event, state);
        }

        @Override
        public io.durablejournal.ActionState get(Object key, long seqNum, String actionName, EventIdentity event) {
            return super.get(watched("get", key), seqNum, actionName, event);
        }

        @Override
        public DurableExecutionContext openContext(Object key, long seqNum, String actionName, EventIdentity event,
                io.durablejournal.ActionState initial) {
            return super.openContext(watched("openContext", key), seqNum, actionName, event, initial);
        }

        @Override
        public void pruneState(Object key, long seqNumUpTo) {
            super.pruneState(watched("pruneState", key), seqNumUpTo);
        }
    }

    private static Object userNumber(SupportRequest request) {
        return new AgentJob.ByUserNumber().getKey(request);
    }

    /** Whether the subtask owning a user's text at parallelism 2 is not the one owning the user's number. */
    private static boolean someTextIsElsewhere() {
        for (int i = 0; i < REQUESTS; i++) {
            SupportRequest request = SupportRequest.number(i);
            Object number = userNumber(request);
            if (subtaskOf(number, 2) != subtaskOf(number.toString(), 2)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The crash fails the job for good at parallelism 2 (its checkpoint retained), and the job is
     * restored from it at {@code restoredParallelism}: every side effect ran once, and the
     * interrupted action replayed its call from the topic.
     */
    private void crashAndRestoreAt(int restoredParallelism, ActionStateStoreFactory stores, boolean keyedByUserNumber)
            throws Exception {
        Path checkpoints = Files.createDirectories(tmp.resolve("checkpoints"));

        AgentJob.Settings first = settings("rescale", stores);
        first.keyedByUserNumber = keyedByUserNumber;
        Configuration failsForGood = KafkaRescaleTest.flinkConfiguration(checkpoints);
        failsForGood.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        Exception crashed = assertThrows(Exception.class, () -> run(failsForGood, first));
        assertTrue(Failures.causes(crashed).contains("injected crash in " + SupportRequest.id(CRASH)), Failures.causes(crashed));
        Map<String, Integer> beforeRestore = SideEffects.counts(first.sideEffectFile());
        assertEquals(CRASH * 3 + 2, beforeRestore.size(), "requests 0..6 and two calls of request 7 ran before the crash");

        AgentJob.Settings second = settings("rescale", stores);
        second.gateAt = -1;
        second.crashAt = -1;
        second.parallelism = restoredParallelism;
        second.keyedByUserNumber = keyedByUserNumber;
        Configuration restore = KafkaRescaleTest.flinkConfiguration(checkpoints);
        restore.set(StateRecoveryOptions.SAVEPOINT_PATH, Checkpoints.latestRetained(checkpoints).toUri().toString());
        // The collect sink has no uid: its id follows the chaining, which the parallelism changes.
        restore.set(StateRecoveryOptions.SAVEPOINT_IGNORE_UNCLAIMED_STATE, true);
        AgentJob.Outcome outcome = run(restore, second);

        Map<String, Integer> sideEffects = SideEffects.counts(second.sideEffectFile());
        assertEquals(REQUESTS * 3, sideEffects.size(), "every call of every request ran");
        assertEquals(Map.of(), RepeatedRuns.of(sideEffects), "no side effect ran twice");
        List<String> afterCheckpoint = answersOf(GATE, REQUESTS);
        assertEquals(afterCheckpoint, outcome.answers.stream().filter(afterCheckpoint::contains).collect(Collectors.toList()),
                "requests " + GATE + ".." + (REQUESTS - 1) + " answered once each, from calls that ran once");
        assertTrue(answersOf(0, REQUESTS).containsAll(outcome.answers),
                "any other answer is one the restored collect sink had buffered, built from calls that ran once: "
                        + outcome.answers);
        assertEquals(1, outcome.callsReplayed(), "the interrupted action's tool call replayed from the topic");
        assertEquals(1, outcome.actionsResumed, "request 7's interrupted action resumed over its journal");
        assertEquals(2 * (CRASH - GATE) + 1, outcome.actionsReemitted,
                "both actions of requests 5 and 6 and the first of request 7 came from the topic");
        assertEquals(REQUESTS - CRASH - 1, outcome.draftRuns, "only the requests after the crash drafted after the restore");
    }

    /**
     * Whether a user with a journal after the checkpoint belongs to another subtask at {@code
     * parallelism} than at 2, keyed by {@code keyOf}.
     */
    private static boolean someUserMoves(int parallelism, Function<SupportRequest, Object> keyOf) {
        for (int i = GATE; i <= CRASH; i++) {
            Object user = keyOf.apply(SupportRequest.number(i));
            if (subtaskOf(user, 2) != subtaskOf(user, parallelism)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The subtask that owns {@code user} at {@code parallelism}: these jobs keep Flink's default max
     * parallelism, the key groups of the Kafka store ({@link KafkaActionStateStores#DEFAULT_MAX_PARALLELISM}).
     */
    private static int subtaskOf(Object user, int parallelism) {
        int keyGroups = KafkaActionStateStores.DEFAULT_MAX_PARALLELISM;
        return KeyGroupRangeAssignment.assignKeyToParallelOperator(user, keyGroups, parallelism);
    }

    /** The answers of requests {@code from .. to-1} when every call ran once, sorted as the outcome's. */
    private static List<String> answersOf(int from, int to) {
        List<String> answers = new ArrayList<>();
        for (int i = from; i < to; i++) {
            answers.add(SupportAgent.expectedAnswer(SupportRequest.number(i)));
        }
        Collections.sort(answers);
        return answers;
    }
}
