package io.durablejournal.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static io.durablejournal.demo.JobSettings.REQUESTS;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.durablejournal.demo.AgentJob;
import io.durablejournal.testing.JobTest;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Which journals a job reads from a shared topic when it starts without a checkpoint: those of its
 * own earlier attempts (a failure before the first checkpoint completed), never those of another
 * run of the same job (the file store refuses such leftovers; in Kafka each run is its own
 * history, named by its job id).
 */
class KafkaJobHistoryTest {
    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = KafkaBrokerExtension.withFlink(4);

    @TempDir
    Path tmp;

    private AgentJob.Settings settings(String name, String topic) {
        return DemoJobs.uninterrupted(tmp.resolve(name), KafkaActionStateStores.factory(KAFKA.broker().config(topic)));
    }

    @JobTest
    void aCrashBeforeTheFirstCheckpointResumesTheJournalsOfTheFirstAttempt() throws Exception {
        String topic = KAFKA.broker().createTopic("journal-history-" + UUID.randomUUID(), 2);
        AgentJob.Settings settings = settings("early-crash", topic);
        settings.crashAt = 2;
        // The first checkpoint is a minute away: the restart has no checkpoint and re-reads the source.
        AgentJob.Outcome outcome = AgentJob.run(settings, Duration.ofMinutes(1));

        assertTrue(outcome.crashed);
        assertEquals(AgentJob.expectedAnswers(REQUESTS), outcome.answers);
        assertEquals(0, outcome.duplicateSideEffects(), "no side effect ran twice: " + outcome.sideEffects);
        // Request 2's two calls; an action of the other subtask may have been cut short mid-way too.
        assertTrue(outcome.callsReplayed >= 2, "the first attempt's journal of request 2 replayed: " + outcome.callsReplayed);
        assertTrue(outcome.actionsResumed >= 1);
        assertTrue(outcome.actionsReemitted >= 2, "requests 0 and 1 (at least) completed in the first attempt were re-emitted");
    }

    @JobTest
    void aNewRunOfTheJobNeverTakesAnEarlierRunsJournalsForItsOwn() throws Exception {
        String topic = KAFKA.broker().createTopic("journal-history-" + UUID.randomUUID(), 2);
        for (String run : new String[] {"first", "second"}) {
            AgentJob.Outcome outcome = DemoJobs.run(settings(run, topic));
            assertEquals(AgentJob.expectedAnswers(REQUESTS), outcome.answers, run + " run: answers from calls it ran itself");
            assertEquals(REQUESTS * 3, outcome.callsExecuted(), run + " run: every call ran in this run");
            assertEquals(0, outcome.actionsReemitted, run + " run: no stored output of another run was re-emitted");
        }
    }
}
