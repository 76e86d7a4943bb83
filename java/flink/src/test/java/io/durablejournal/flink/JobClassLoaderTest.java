package io.durablejournal.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.durablejournal.RunnerContextImpl;
import io.durablejournal.demo.AgentJob;
import io.durablejournal.testing.LongJobTimeout;
import io.durablejournal.testing.UserCodeLoaderJobsTest;
import io.durablejournal.testing.UserCodeLoaders;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * What a job restart on a Flink cluster does to a JNI library: the job's jar is loaded again by a
 * new user-code class loader (child-first) in the same JVM, and that loader must load the native
 * library again (a JVM refuses one library file from two class loaders). Two jobs are submitted
 * with a jar holding this library, its Flink integration and the agent, one after the other, to one MiniCluster; each
 * crashes once and recovers through its journal.
 */
@LongJobTimeout
class JobClassLoaderTest extends UserCodeLoaderJobsTest {
    JobClassLoaderTest() {
        // With the core's and the Flink integration's jars: the demo's jar and this test's agent.
        super("durablejournal.examples.test.jar", LoaderProbeAgent.class);
    }

    @Override
    protected Set<String> runAndCheck(int job, JobEnvironments jobs) throws Exception {
        AgentJob.Settings settings = new AgentJob.Settings(tmp.resolve("job-" + job));
        settings.agent = new LoaderProbeAgent(settings.supportAgent());
        AgentJob.Outcome outcome = AgentJob.run(
                jobs.environment(AgentJob.flinkConfiguration(Duration.ofMillis(100)), settings.parallelism), settings);

        Set<String> loaders = new HashSet<>();
        List<String> answers = new ArrayList<>();
        for (String answer : outcome.answers) {
            int at = answer.lastIndexOf(LoaderProbeAgent.SEPARATOR);
            assertTrue(at > 0, answer);
            answers.add(answer.substring(0, at));
            loaders.add(answer.substring(at + LoaderProbeAgent.SEPARATOR.length()));
        }
        Collections.sort(answers);
        assertTrue(outcome.crashed);
        assertEquals(AgentJob.expectedAnswers(settings.requests), answers);
        assertEquals(0, outcome.duplicateSideEffects(), "no side effect ran twice: " + outcome.sideEffects);
        assertEquals(2, outcome.callsReplayed);
        UserCodeLoaders.assertChildFirst(loaders, RunnerContextImpl.class.getClassLoader());
        return loaders;
    }
}
