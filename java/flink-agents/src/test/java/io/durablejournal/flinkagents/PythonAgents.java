package io.durablejournal.flinkagents;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.flink.agents.plan.AgentPlan;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.python.PythonOptions;

/**
 * The Python side of the Python-agent tests: the environment scripts/setup makes (build/pyenv,
 * with Flink Agents 0.3.1's Python runtime and pemja), passed by the Gradle build as system
 * properties, and the test agents in {@code src/test/python}.
 */
final class PythonAgents {
    private PythonAgents() {}

    /** The python of the environment (its embedded interpreter's libpython is found through it). */
    static final String EXECUTABLE = System.getProperty("durablejournal.python.executable");
    /** The environment's site-packages: the embedded interpreter does not activate the venv. */
    static final String SITE_PACKAGES = System.getProperty("durablejournal.python.sitePackages");
    /** python/ of this repository: durable_journal, which finds target/release's library. */
    static final String DURABLE_JOURNAL_PACKAGE = System.getProperty("durablejournal.python.package");
    /** The test agents' modules. */
    static final String AGENTS_DIR = new File("src/test/python").getAbsolutePath();

    /** Skips the calling test, saying why, where the Python environment is missing. */
    static void assumeEnvironment() {
        assumeTrue(EXECUTABLE != null && SITE_PACKAGES != null && new File(EXECUTABLE).canExecute(),
                "no Python environment with Flink Agents' Python runtime: run scripts/setup (it makes build/pyenv, "
                        + "whose python and site-packages the Gradle build passes as durablejournal.python.*)");
    }

    /** Every directory the agents' modules import from, in order. */
    static List<String> pythonPath() {
        List<String> path = new ArrayList<>();
        path.add(AGENTS_DIR);
        path.add(DURABLE_JOURNAL_PACKAGE);
        path.add(SITE_PACKAGES);
        return path;
    }

    /**
     * What a Flink job with Python actions sets: the python Flink Agents' operator starts its
     * embedded interpreter with and the paths it imports from (Flink's {@code python.executable}
     * and {@code python.pythonpath}, read through {@code PythonDependencyInfo}).
     */
    static void configure(Configuration conf) {
        conf.set(PythonOptions.PYTHON_EXECUTABLE, EXECUTABLE);
        conf.set(PythonOptions.PYTHON_PATH, String.join(File.pathSeparator, pythonPath()));
    }

    /**
     * A job environment of parallelism 1 for Python actions ({@link #configure}) that restarts a
     * failed job up to {@code attempts} times, without checkpoints: a restart reads the input
     * again, and each action runs over the journal its earlier attempt left in the store.
     */
    static org.apache.flink.streaming.api.environment.StreamExecutionEnvironment restartingEnvironment(int attempts) {
        Configuration conf = new Configuration();
        conf.set(org.apache.flink.configuration.RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        conf.set(org.apache.flink.configuration.RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, attempts);
        conf.set(org.apache.flink.configuration.RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY,
                java.time.Duration.ofMillis(50));
        configure(conf);
        org.apache.flink.streaming.api.environment.StreamExecutionEnvironment env =
                org.apache.flink.streaming.api.environment.StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(1);
        return env;
    }

    /**
     * The plan of Python agent {@code module.agentClass}, as Flink Agents' Python API makes it
     * ({@code AgentPlan.from_agent(...).model_dump_json(serialize_as_any=True)}, what a Python
     * job hands {@code CompileUtils.connectToAgent}), read back by Flink Agents' Java plan.
     */
    static AgentPlan plan(String module, String agentClass) throws IOException, InterruptedException {
        String script = "import sys\n"
                + "from flink_agents.plan.agent_plan import AgentPlan\n"
                + "from flink_agents.plan.configuration import AgentConfiguration\n"
                + "import " + module + " as agents\n"
                + "plan = AgentPlan.from_agent(agents." + agentClass + "(), AgentConfiguration())\n"
                + "sys.stdout.write(plan.model_dump_json(serialize_as_any=True))\n";
        ProcessBuilder builder = new ProcessBuilder(EXECUTABLE, "-c", script);
        builder.environment().put("PYTHONPATH", String.join(File.pathSeparator, pythonPath()));
        builder.redirectError(ProcessBuilder.Redirect.INHERIT);
        Process process = builder.start();
        String json = readAll(process.getInputStream());
        if (!process.waitFor(120, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException("planning " + module + "." + agentClass + " took over 120 s");
        }
        if (process.exitValue() != 0) {
            throw new IllegalStateException("planning " + module + "." + agentClass + " failed (exit "
                    + process.exitValue() + "; its error output is above)");
        }
        return new ObjectMapper().readValue(json, AgentPlan.class);
    }

    private static String readAll(InputStream in) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        in.transferTo(out);
        return out.toString(StandardCharsets.UTF_8);
    }
}
