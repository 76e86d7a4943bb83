package io.durablejournal.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.durablejournal.RunnerContextImpl;
import io.durablejournal.demo.AgentJob;
import io.durablejournal.testing.JobJar;
import io.durablejournal.testing.UserCodeLoaders;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a job restart on a Flink cluster does to a JNI library: the job's jar is loaded again by a
 * new user-code class loader (child-first) in the same JVM, and that loader must load the native
 * library again (a JVM refuses one library file from two class loaders). Two jobs are submitted
 * with a jar holding this library, its Flink integration and the agent, one after the other, to one MiniCluster; each
 * crashes once and recovers through its journal.
 */
class JobClassLoaderTest {
    @TempDir
    Path tmp;

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void jobsInFreshUserCodeClassLoadersLoadTheLibraryAndReplayTheirJournals() throws Exception {
        // The core jar (classes and native library), the Flink integration's jar and the demo's jar,
        // plus this test's agent, as a user would ship a job.
        Path jobJar = JobJar.build(tmp.resolve("job.jar"),
                new String[] {"durablejournal.test.jar", "durablejournal.flink.test.jar", "durablejournal.examples.test.jar"},
                LoaderProbeAgent.class);
        List<Set<String>> loadersPerJob = new ArrayList<>();
        try (MiniCluster cluster = UserCodeLoaders.startedCluster(4)) {
            for (int job = 0; job < 2; job++) {
                AgentJob.Settings settings = new AgentJob.Settings();
                settings.workDir = tmp.resolve("job-" + job);
                settings.agent = new LoaderProbeAgent(settings.supportAgent());
                AgentJob.Outcome outcome = AgentJob.run(UserCodeLoaders.environment(cluster,
                        AgentJob.flinkConfiguration(Duration.ofMillis(100)), settings.parallelism, jobJar), settings);
                System.out.println("[timing] job " + job + " in a user-code class loader: " + outcome.wallMillis + " ms");

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
                loadersPerJob.add(loaders);
            }
        }
        UserCodeLoaders.assertOnePerJob(loadersPerJob);
    }
}
