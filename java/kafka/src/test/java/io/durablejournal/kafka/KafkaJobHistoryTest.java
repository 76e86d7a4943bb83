package io.durablejournal.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.durablejournal.demo.AgentJob;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Which journals a job reads from a shared topic when it starts without a checkpoint: those of its
 * own earlier attempts (a failure before the first checkpoint completed), never those of another
 * run of the same job (the file store refuses such leftovers; in Kafka each run is its own
 * history, named by its job id).
 */
class KafkaJobHistoryTest {
    private static final int REQUESTS = 12;

    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1)
            .setNumberSlotsPerTaskManager(4)
            .build());

    private static KafkaBroker broker;

    @TempDir
    Path tmp;

    @BeforeAll
    static void startBroker() throws Exception {
        broker = KafkaBroker.shared();
    }

    private AgentJob.Settings settings(String name, String topic) {
        AgentJob.Settings settings = new AgentJob.Settings();
        settings.workDir = tmp.resolve(name);
        settings.requests = REQUESTS;
        settings.parallelism = 2;
        settings.storeFactory = KafkaActionStateStores.factory(broker.config(topic));
        return settings;
    }

    private static AgentJob.Outcome run(AgentJob.Settings settings, Duration checkpointInterval) throws Exception {
        return AgentJob.run(StreamExecutionEnvironment.getExecutionEnvironment(AgentJob.flinkConfiguration(checkpointInterval)), settings);
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void aCrashBeforeTheFirstCheckpointResumesTheJournalsOfTheFirstAttempt() throws Exception {
        String topic = broker.createTopic("journal-history-" + UUID.randomUUID(), 2);
        AgentJob.Settings settings = settings("early-crash", topic);
        settings.gateAt = -1;
        settings.crashAt = 2;
        // The first checkpoint is a minute away: the restart has no checkpoint and re-reads the source.
        AgentJob.Outcome outcome = run(settings, Duration.ofMinutes(1));

        assertTrue(outcome.crashed);
        assertEquals(AgentJob.expectedAnswers(REQUESTS), outcome.answers);
        assertEquals(0, outcome.duplicateSideEffects(), "no side effect ran twice: " + outcome.sideEffects);
        // Request 2's two calls; an action of the other subtask may have been cut short mid-way too.
        assertTrue(outcome.callsReplayed >= 2, "the first attempt's journal of request 2 replayed: " + outcome.callsReplayed);
        assertTrue(outcome.actionsResumed >= 1);
        assertTrue(outcome.actionsReemitted >= 2, "requests 0 and 1 (at least) completed in the first attempt were re-emitted");
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void aNewRunOfTheJobNeverTakesAnEarlierRunsJournalsForItsOwn() throws Exception {
        String topic = broker.createTopic("journal-history-" + UUID.randomUUID(), 2);
        for (String run : new String[] {"first", "second"}) {
            AgentJob.Settings settings = settings(run, topic);
            settings.gateAt = -1;
            settings.crashAt = -1;
            AgentJob.Outcome outcome = run(settings, Duration.ofMillis(100));
            assertEquals(AgentJob.expectedAnswers(REQUESTS), outcome.answers, run + " run: answers from calls it ran itself");
            assertEquals(REQUESTS * 3, outcome.callsExecuted(), run + " run: every call ran in this run");
            assertEquals(0, outcome.actionsReemitted, run + " run: no stored output of another run was re-emitted");
        }
    }
}
