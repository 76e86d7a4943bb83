package io.durablejournal.flinkagents;

import org.apache.flink.agents.api.Event;
import org.apache.flink.agents.plan.JavaFunction;
import org.apache.flink.agents.runtime.context.RunnerContextImpl;

/**
 * A Java action of the plan whose durable calls the native journal decides: Flink Agents' operator
 * calls it as it calls any {@link JavaFunction} ({@code call(event, runnerContext)} from {@code
 * JavaActionTask}); it installs the action's {@link NativeJournalContext} on Flink Agents' runner
 * context in place of Flink Agents' own journal and calls the action's method with a {@link
 * JournaledRunnerContext} over it.
 *
 * <p>Action tasks live in Flink keyed state, serialized and copied by Kryo: this function keeps no
 * state beyond {@link JavaFunction}'s own (its method is resolved at call time, and {@link
 * MethodByReference} copies the cached one), and finds the journal at call time.
 */
public class JournaledJavaFunction extends JavaFunction {
    /** The same function as {@code original}: its class, method name and parameter types. */
    public JournaledJavaFunction(JavaFunction original) throws Exception {
        super(original.getQualName(), original.getMethodName(), original.getParameterTypes());
    }

    /**
     * @param args the event and Flink Agents' runner context, as the operator passes them; with
     *     another context (a test calling the function itself) the method runs with it unchanged
     */
    @Override
    public Object call(Object... args) throws Exception {
        if (args.length == 2 && args[0] instanceof Event && args[1] instanceof RunnerContextImpl) {
            RunnerContextImpl flinkAgents = (RunnerContextImpl) args[1];
            NativeJournalContext journal = ServedStates.installJournal(flinkAgents);
            if (journal != null) {
                return super.call(args[0], FlinkAgentsCompatibility.shim().runnerContext(flinkAgents, journal));
            }
        }
        return super.call(args);
    }
}
