package io.durablejournal.kafka;

import static io.durablejournal.demo.JobSettings.CRASH;
import static io.durablejournal.demo.JobSettings.GATE;
import static io.durablejournal.demo.JobSettings.REQUESTS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.durablejournal.RunnerContextImpl;
import io.durablejournal.demo.AgentJob;
import io.durablejournal.demo.Request;
import io.durablejournal.demo.RequestSource;
import io.durablejournal.demo.SupportAgent;
import io.durablejournal.flink.ActionStateStoreFactory;
import io.durablejournal.flink.AgentAction;
import io.durablejournal.testing.Failures;
import io.durablejournal.testing.JobTest;
import io.durablejournal.testing.MiniClusters;
import io.durablejournal.testing.RepeatedRuns;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The loss of the machine that ran the job: the agent job of the demo ({@link AgentJob}: twelve
 * requests, three durable calls each, a checkpoint completed before request 5) crashes in request
 * 7 after two calls, and at that moment every local directory of the job (the machine's disk) is
 * deleted. Flink restarts the job from the checkpoint, as it would on another machine.
 *
 * <p>With the Kafka store nothing the journal needs was on that disk: every side effect runs
 * exactly once. With the file store the journals went with the disk, and the restore is refused
 * (its recovery marker names a store that no longer exists) instead of running calls again.
 */
class KafkaMachineLossTest {
    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = KafkaBrokerExtension.withFlink(4);

    /** The demo's agent, which deletes the machine's directory right before its injected crash. */
    static final class LosesTheMachine implements AgentAction<Request, String> {
        private static final long serialVersionUID = 1L;
        private final SupportAgent agent;
        private final String machine;

        LosesTheMachine(SupportAgent agent, Path machine) {
            this.agent = agent;
            this.machine = machine.toString();
        }

        @Override
        public String run(Request request, RunnerContextImpl ctx) throws Exception {
            try {
                return agent.run(request, ctx);
            } catch (SupportAgent.InjectedCrash crash) {
                deleteRecursively(Path.of(machine));
                throw crash;
            }
        }
    }

    static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path path : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
                Files.delete(path);
            }
        }
    }

    private static AgentJob.Settings settings(Path workDir, ActionStateStoreFactory stores) throws IOException {
        AgentJob.Settings settings = DemoJobs.failover(workDir, stores);
        settings.agent = new LosesTheMachine(settings.supportAgent(), Files.createDirectories(machine(workDir)));
        return settings;
    }

    /** The directory that stands for the task manager's local disk, in the job's {@code workDir}. */
    private static Path machine(Path workDir) {
        return workDir.resolve("machine");
    }

    @JobTest
    void withTheKafkaStoreEverySideEffectRunsExactlyOnceAfterTheMachineIsLost(@TempDir Path tmp) throws Exception {
        String topic = KAFKA.broker().createTopic("journal-machine-loss-" + UUID.randomUUID(), 3);
        AgentJob.Settings settings = settings(tmp, KafkaActionStateStores.factory(KAFKA.broker().config(topic)));
        AgentJob.Outcome outcome = DemoJobs.run(settings);

        assertTrue(outcome.crashed, "the crash was injected");
        assertFalse(Files.exists(machine(tmp)), "the machine's directory was deleted before the restart");
        assertEquals(AgentJob.expectedAnswers(REQUESTS), outcome.answers, "every request answered once, from calls that ran once");
        assertEquals(Map.of(), RepeatedRuns.of(outcome.sideEffects), "no side effect ran twice");
        assertEquals(REQUESTS * 3, outcome.sideEffects.size());
        assertEquals(2, outcome.callsReplayed, "the two calls of " + RequestSource.requestId(CRASH) + " replayed from Kafka");
        assertEquals(1, outcome.actionsResumed);
        assertEquals(CRASH - GATE, outcome.actionsReemitted, "actions completed after the checkpoint re-emitted from Kafka");
    }

    /**
     * The file store's case, on a MiniCluster of its own. The restore is refused at the first
     * restart and fails the job for good: before that refusal suppressed restarts, the job spent
     * its three restart attempts on the same refusal and, in some runs of the whole suite, found
     * no free slot for one of them, so the job's last failure was not the refusal.
     */
    static class FileStoreTest {
        @RegisterExtension
        static final MiniClusterExtension FLINK = MiniClusters.withSlots(4);

        @JobTest
        void withTheFileStoreTheJournalsGoWithTheMachineAndTheRestoreIsRefused(@TempDir Path tmp) throws Exception {
            String stores = machine(tmp).resolve("store").toString();
            AgentJob.Settings settings = settings(tmp, ActionStateStoreFactory.fileStores(stores));

            Exception failure = assertThrows(Exception.class, () -> DemoJobs.run(settings));
            String causes = Failures.causes(failure);
            assertTrue(causes.contains("different store directory"), causes);
            // What was lost: request 7's two recorded calls, and the outputs of requests 5 and 6
            // completed after the checkpoint. Refusing keeps them from running again.
            Map<String, Integer> sideEffects = io.durablejournal.demo.SideEffectLog.counts(settings.sideEffectLog());
            assertEquals(CRASH * 3 + 2, sideEffects.size(), "requests 0..6 and two calls of request 7 ran before the crash");
            assertTrue(sideEffects.values().stream().allMatch(n -> n == 1), "and nothing ran again: " + sideEffects);
        }
    }

}
