package io.durablejournal.flinkagents;

import org.apache.flink.agents.plan.PythonFunction;
import org.apache.flink.agents.runtime.context.RunnerContextImpl;
import pemja.core.object.PyObject;

/**
 * A Python action of the plan whose durable calls the native journal decides. Flink Agents'
 * operator calls it as it calls any {@link PythonFunction} ({@code PythonActionExecutor} passes
 * the Python event and the Python {@code FlinkRunnerContext}); before the action runs, it installs
 * the action's {@link NativeJournalContext} on the Java runner context behind the Python one
 * ({@code FlinkRunnerContext._j_runner_context}, Flink Agents' {@code PythonRunnerContextImpl},
 * which pemja hands back as the same Java object). Every bridge call the Python
 * {@code durable_execute} / {@code durable_execute_async} then makes ({@code
 * matchNextOrClearSubsequentCallResult}, {@code recordCallCompletion}, {@code appendPendingCall},
 * {@code finalizeCurrentCall}, {@code clearCallResultsFromCurrentIndexAndPersist}, {@code
 * getCurrentCallResultFields}) reaches the native journal. A coroutine action continues without a
 * new call (Flink Agents' {@code PythonGeneratorActionTask}), on the context installed here.
 *
 * <p>The call identity is still the one Python computes: install {@code
 * durable_journal.flink_agents} in the agent's module for ids that are the same in every process.
 * Like {@link PythonFunction}, it keeps no state but its module and qualified name (Kryo copies
 * action tasks; the interpreter is set by the operator before each call).
 */
public class JournaledPythonFunction extends PythonFunction {
    /** The attribute of Flink Agents' Python {@code FlinkRunnerContext} holding the Java context. */
    static final String JAVA_CONTEXT_ATTRIBUTE = "_j_runner_context";

    /** The same function as {@code original}: its module and qualified name. */
    public JournaledPythonFunction(PythonFunction original) {
        super(original.getModule(), original.getQualName());
    }

    /**
     * @param args the Python event and Python runner context, as the operator passes them; with
     *     other arguments (a test calling the function itself) the function runs unchanged
     * @throws IllegalStateException when the Python runner context holds no Flink Agents runner
     *     context where 0.3.1 keeps it (a Flink Agents version the adapter does not know)
     */
    @Override
    public Object call(Object... args) throws Exception {
        if (args.length == 2 && args[1] instanceof PyObject) {
            ServedStates.installJournal(javaContextOf((PyObject) args[1]));
        }
        return super.call(args);
    }

    private RunnerContextImpl javaContextOf(PyObject pythonContext) {
        Object javaContext;
        try {
            javaContext = pythonContext.getAttr(JAVA_CONTEXT_ATTRIBUTE);
        } catch (Exception e) {
            // pemja's PythonException (an AttributeError here) is a checked exception its native
            // code throws undeclared.
            throw unknownContext("has no attribute " + JAVA_CONTEXT_ATTRIBUTE + " (" + e.getMessage() + ")");
        }
        if (!(javaContext instanceof RunnerContextImpl)) {
            throw unknownContext("holds " + (javaContext == null ? "None" : javaContext.getClass().getName())
                    + " in " + JAVA_CONTEXT_ATTRIBUTE + ", not Flink Agents' RunnerContextImpl");
        }
        return (RunnerContextImpl) javaContext;
    }

    private IllegalStateException unknownContext(String what) {
        return new IllegalStateException("Python action " + getModule() + "." + getQualName()
                + ": its Python runner context " + what + ", so the native journal cannot be installed for it; "
                + "supported Flink Agents versions: " + FlinkAgentsCompatibility.SUPPORTED_VERSIONS);
    }
}
