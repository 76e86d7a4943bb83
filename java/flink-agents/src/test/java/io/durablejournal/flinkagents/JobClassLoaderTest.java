package io.durablejournal.flinkagents;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.durablejournal.flinkagents.demo.AgentJob;
import io.durablejournal.flinkagents.demo.SideEffects;
import io.durablejournal.flinkagents.demo.SupportAgent;
import io.durablejournal.testing.UserCodeLoaderJobsTest;
import io.durablejournal.testing.UserCodeLoaders;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;

/**
 * The Flink Agents job as a cluster runs it: a job jar with the core (and its native library),
 * this adapter and the agent, loaded by a user-code class loader of its own (child-first), which
 * must load the native library again (a JVM refuses one library file from two class loaders).
 * Two jobs, one after the other, on one MiniCluster; each crashes mid-action after a checkpoint
 * and recovers through its journal. Flink Agents itself comes from the cluster's class path, as
 * from a Flink distribution's {@code lib/}.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class JobClassLoaderTest extends UserCodeLoaderJobsTest {
    JobClassLoaderTest() {
        // With the core's and the Flink integration's jars: this adapter's jar and the agent's
        // classes. The demo's staging, source and request type stay out: the job's loader finds
        // them on the test's class path, where the test reaches them too.
        super("durablejournal.flinkagents.test.jar", SupportAgent.class, SideEffects.class);
    }

    @Override
    protected Set<String> runAndCheck(int job, JobEnvironments jobs) throws Exception {
        AgentJob.Settings settings = new AgentJob.Settings(tmp.resolve("job-" + job));
        AgentJob.Outcome outcome = AgentJob.run(
                jobs.environment(AgentJob.flinkConfiguration(Duration.ofMillis(100)), settings.parallelism), settings);

        assertTrue(outcome.crashed);
        assertEquals(AgentJob.expectedAnswers(settings.requests), outcome.answers);
        assertEquals(0, outcome.duplicateSideEffects(), "no side effect ran twice: " + outcome.sideEffects);
        assertEquals(1, outcome.callsReplayed());
        // The agent ran from the job jar.
        UserCodeLoaders.assertChildFirst(outcome.agentLoaders, SupportAgent.class.getClassLoader());
        return outcome.agentLoaders;
    }
}
