package io.durablejournal.flink;

import io.durablejournal.RunnerContextImpl;
import io.durablejournal.demo.Request;
import io.durablejournal.demo.SupportAgent;
import io.durablejournal.testing.UserCodeLoaders;

/**
 * The support agent, with each answer naming the class loader that ran it: {@code <answer> @<id>:<loader class>}.
 * Shipped to the cluster inside a job jar, so Flink loads it (and this library) in the job's
 * user-code class loader.
 */
public class LoaderProbeAgent implements AgentAction<Request, String> {
    private static final long serialVersionUID = 1L;
    static final String SEPARATOR = " @";

    private final SupportAgent agent;

    public LoaderProbeAgent(SupportAgent agent) {
        this.agent = agent;
    }

    @Override
    public String run(Request input, RunnerContextImpl ctx) throws Exception {
        ClassLoader loader = RunnerContextImpl.class.getClassLoader();
        return agent.run(input, ctx) + SEPARATOR + UserCodeLoaders.describe(loader);
    }
}
