package io.durablejournal.flinkagents;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.durablejournal.flinkagents.demo.AgentJob;
import io.durablejournal.flinkagents.demo.SideEffects;
import io.durablejournal.flinkagents.demo.SupportAgent;
import io.durablejournal.testing.JobJar;
import io.durablejournal.testing.UserCodeLoaders;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Flink Agents job as a cluster runs it: a job jar with the core (and its native library),
 * this adapter and the agent, loaded by a user-code class loader of its own (child-first), which
 * must load the native library again (a JVM refuses one library file from two class loaders).
 * Two jobs, one after the other, on one MiniCluster; each crashes mid-action after a checkpoint
 * and recovers through its journal. Flink Agents itself comes from the cluster's class path, as
 * from a Flink distribution's {@code lib/}.
 */
class JobClassLoaderTest {
    @TempDir
    Path tmp;

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void jobsInFreshUserCodeClassLoadersReplayTheirJournals() throws Exception {
        // The core jar, the Flink integration's jar and this adapter's jar, plus the agent's classes,
        // as a user would ship a job. The demo's staging, source and request type stay out: the
        // job's loader finds them on the test's class path, where the test reaches them too.
        Path jobJar = JobJar.build(tmp.resolve("job.jar"),
                new String[] {"durablejournal.test.jar", "durablejournal.flink.test.jar", "durablejournal.flinkagents.test.jar"},
                SupportAgent.class, SideEffects.class);
        List<Set<String>> loadersPerJob = new ArrayList<>();
        try (MiniCluster cluster = UserCodeLoaders.startedCluster(4)) {
            for (int job = 0; job < 2; job++) {
                AgentJob.Settings settings = new AgentJob.Settings();
                settings.workDir = tmp.resolve("job-" + job);
                AgentJob.Outcome outcome = AgentJob.run(UserCodeLoaders.environment(cluster,
                        AgentJob.flinkConfiguration(Duration.ofMillis(100)), settings.parallelism, jobJar), settings);
                System.out.println("[timing] job " + job + " in a user-code class loader: " + outcome.wallMillis + " ms");

                assertTrue(outcome.crashed);
                assertEquals(AgentJob.expectedAnswers(settings.requests), outcome.answers);
                assertEquals(0, outcome.duplicateSideEffects(), "no side effect ran twice: " + outcome.sideEffects);
                assertEquals(1, outcome.callsReplayed());
                // The agent ran from the job jar.
                UserCodeLoaders.assertChildFirst(outcome.agentLoaders, SupportAgent.class.getClassLoader());
                loadersPerJob.add(outcome.agentLoaders);
            }
        }
        UserCodeLoaders.assertOnePerJob(loadersPerJob);
    }
}
